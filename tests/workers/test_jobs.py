"""System steps through RQ's own worker: idempotent, and nothing is lost.

Each test ends with exactly one result, whether a job runs twice, is lost before it
runs, is popped by a worker that dies, or its worker dies after appending.
"""

from __future__ import annotations

import time

import pytest
from rq import Queue, SimpleWorker
from rq.job import Job

from service.adapters.work import STEPS, WorkIndex
from service.api.app import create_app
from service.config import Settings
from service.usecases.commands import RunStep
from service.usecases.reconciling import index_everything
from tests.service.conftest import ADMIN
from tests.service.test_matches_api import knocked
from workers.reconciler import Reconciler


@pytest.fixture
def app(redis_client, key_prefix):
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix)
    return create_app(settings, client=redis_client, jobs_inline=False)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def wiring(app):
    return app.extensions["rummy_wiring"]


def work(redis_client) -> None:
    SimpleWorker([Queue("steps", connection=redis_client)],
                 connection=redis_client).work(burst=True)


def reconcile(wiring, later_s: float = 0.0) -> int:
    """One reconciler tick, as if ``later_s`` seconds had passed."""
    index = WorkIndex(wiring.client, wiring.settings.key_prefix,
                      clock=lambda: time.time() + later_s)
    return Reconciler(index, wiring.runner, wiring.clocks).tick()


def types(client, match) -> list[str]:
    return [e["type"] for e in client.get(f"/v1/matches/{match['id']}/events").json["events"]]


def test_the_view_says_scoring_until_a_worker_has_run(client, redis_client):
    match = knocked(client)
    view = client.get(f"/v1/matches/{match['id']}").json
    assert (view["phase"], view["awaiting"]) == ("scoring", "scoring")
    work(redis_client)
    view = client.get(f"/v1/matches/{match['id']}").json
    assert (view["phase"], view["hand_number"], view["scores"]) == ("upcard", 2, [0, 67])
    assert types(client, match)[-3:] == ["HandScored", "SeedRevealed", "HandDealt"]


def test_a_job_run_twice_records_one_result(client, redis_client, key_prefix, wiring):
    match = knocked(client)
    work(redis_client)
    assert wiring.runner.run(match["id"], RunStep()).appended == ()
    job = Queue("steps", connection=redis_client).enqueue(
        "workers.jobs.run_step", match["id"], key_prefix, job_id=f"{key_prefix}-again")
    work(redis_client)
    assert job.get_status() == "finished" and job.return_value() == 0
    assert types(client, match).count("HandScored") == 1


def test_reads_do_not_drive_work(client, redis_client):
    match = knocked(client)
    Queue("steps", connection=redis_client).empty()  # the enqueue is lost
    for path in ("", "/events", "/state?at=3", "/export"):
        client.get(f"/v1/matches/{match['id']}{path}")
    assert Queue("steps", connection=redis_client).count == 0
    work(redis_client)
    assert "HandScored" not in types(client, match)


def test_a_lost_enqueue_is_driven_again_by_the_reconciler(client, redis_client, wiring):
    match = knocked(client)
    Queue("steps", connection=redis_client).empty()
    assert reconcile(wiring) == 0  # a queued step has its grace period first
    assert reconcile(wiring, later_s=3) == 1
    assert types(client, match).count("HandScored") == 1
    assert wiring.index.pending(STEPS) == 0  # done: the match leaves the index


def test_a_job_popped_by_a_worker_that_died_is_driven_again(client, redis_client, wiring):
    match = knocked(client)
    queue = Queue("steps", connection=redis_client)
    (job_id,) = queue.get_job_ids()
    queue.remove(job_id)  # BLPOP took it, then the worker was killed
    assert Job.fetch(job_id, connection=redis_client).get_status() == "queued"
    reconcile(wiring, later_s=3)
    assert types(client, match).count("HandScored") == 1


def test_a_worker_killed_after_appending_changes_nothing_on_rerun(client, redis_client, wiring):
    match = knocked(client)
    assert len(wiring.runner.run(match["id"], RunStep()).appended) == 3  # then it died
    work(redis_client)  # the queued copy of the job runs anyway
    reconcile(wiring, later_s=3)  # and so does the reconciler
    assert types(client, match).count("HandScored") == 1
    assert wiring.index.pending(STEPS) == 0


def test_reaching_the_target_runs_the_bonuses_step(client, redis_client):
    match = knocked(client, target=50)
    work(redis_client)
    view = client.get(f"/v1/matches/{match['id']}").json
    assert view["phase"] == "complete" and view["winner"] == 1
    assert view["final_scores"] == [0, 67 + 200 + 25]
    assert types(client, match)[-4:] == ["HandScored", "SeedRevealed", "MatchSeedRevealed",
                                          "MatchCompleted"]


def test_a_step_marked_but_never_appended_leaves_the_index(client, wiring):
    match = knocked(client)
    wiring.index.mark(STEPS, "no-such-match", time.time())
    reconcile(wiring, later_s=3)
    assert types(client, match).count("HandScored") == 1
    assert wiring.index.pending(STEPS) == 0


def test_a_scan_indexes_matches_that_awaited_work_before_the_index(client, redis_client,
                                                                  wiring):
    match = knocked(client)
    redis_client.delete(wiring.index.key(STEPS))  # as after an upgrade: never indexed
    Queue("steps", connection=redis_client).empty()
    assert index_everything(wiring) == {"matches": 1, "steps": 1, "clocks": 0}
    reconcile(wiring)
    assert types(client, match).count("HandScored") == 1
