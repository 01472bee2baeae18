"""System steps in real mode: due in the work index, run by workers, never lost.

Each test ends with exactly one result, whether a step runs twice, its wake-up is lost,
the process that ended the hand dies before marking it due, or the worker that claimed it
dies.
"""

from __future__ import annotations

import time

import pytest
from rq import Queue, SimpleWorker
from rq.job import Job

import workers.jobs
import workers.webhooks
from domain.match import StepDue
from service.adapters.jobs import REPLAYS, WEBHOOKS
from service.adapters.work import WorkIndex
from service.config import Settings
from service.usecases.commands import RunStep
from service.usecases.obligations import KINDS
from service.usecases.reconciling import index_everything
from tests.service.conftest import ADMIN, ADMIN_AUTH
from tests.service.test_matches_api import knocked
from workers.__main__ import rq_worker
from workers.reconciler import LEASE_S, Reconciler


@pytest.fixture
def app(redis_client, jobs_redis, key_prefix, serving):
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix)
    return serving(settings, redis_client, jobs_inline=False, job_client=jobs_redis)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def wiring(app):
    return app.extensions["rummy"]


def reconcile(wiring, later_s: float = 0.0) -> int:
    """A worker's reconciler doing what is due, as if ``later_s`` seconds had passed."""
    index = WorkIndex(wiring.client, wiring.settings.key_prefix, KINDS,
                      clock=lambda: time.time() + later_s)
    return Reconciler(index, wiring.obligations).drain()


def types(client, match) -> list[str]:
    return [e["type"] for e in client.get(f"/v1/matches/{match['id']}/events").json["events"]]


def test_the_view_says_scoring_until_a_worker_has_run(client, wiring):
    match = knocked(client)
    view = client.get(f"/v1/matches/{match['id']}").json
    assert (view["phase"], view["awaiting"]) == ("scoring", "scoring")
    assert reconcile(wiring) == 1
    view = client.get(f"/v1/matches/{match['id']}").json
    assert (view["phase"], view["hand_number"], view["scores"]) == ("upcard", 2, [0, 67])
    assert types(client, match)[-3:] == ["HandScored", "SeedRevealed", "HandDealt"]
    assert wiring.index.pending(StepDue.kind) == 0  # done: the match leaves the index


def test_a_step_run_twice_records_one_result(client, wiring):
    match = knocked(client)
    assert len(wiring.runner.run(match["id"], RunStep()).appended) == 3
    assert wiring.runner.run(match["id"], RunStep()).appended == ()
    reconcile(wiring)  # the worker comes afterwards: nothing left to do
    assert types(client, match).count("HandScored") == 1
    assert wiring.index.pending(StepDue.kind) == 0


def written(redis_client, key_prefix) -> dict[str, object]:
    """Every key the app or RQ may write, with what it holds (sorted sets with scores)."""
    keys = [*redis_client.scan_iter(match=f"*{key_prefix}*"), *redis_client.scan_iter("rq:*")]
    return {key: (redis_client.zrange(key, 0, -1, withscores=True)
                  if redis_client.type(key) == b"zset" else redis_client.type(key))
            for key in keys}


def test_reads_change_nothing(client, redis_client, key_prefix, wiring):
    match = knocked(client)
    redis_client.delete(f"{key_prefix}:work:wake")  # the knock's wake-up, gone
    before = written(redis_client, key_prefix)
    for path in ("", "/events", "/state?at=3", "/export"):
        assert client.get(f"/v1/matches/{match['id']}{path}").status_code == 200
    assert written(redis_client, key_prefix) == before  # no job, no mark, no wake-up


def test_a_lost_wake_up_costs_only_the_poll(client, redis_client, wiring):
    match = knocked(client)
    redis_client.delete(f"{wiring.settings.key_prefix}:work:wake")
    assert not wiring.index.wait(0.05)
    assert reconcile(wiring) == 1
    assert types(client, match).count("HandScored") == 1


def test_a_process_that_died_before_its_mark_leaves_the_match_marked(client, wiring,
                                                                    monkeypatch):
    monkeypatch.setattr(wiring.work, "after", lambda match_id, match: None)  # it died here
    match = knocked(client)
    assert reconcile(wiring) == 0  # the mark made before the append is not due yet
    assert reconcile(wiring, later_s=1.5) == 1
    assert types(client, match).count("HandScored") == 1


def test_a_step_claimed_by_a_worker_that_died_is_done_when_its_lease_ends(client, wiring):
    match = knocked(client)
    lease, claimed = wiring.index.claim(StepDue.kind, LEASE_S)  # then it was killed
    assert claimed == [match["id"]]
    assert reconcile(wiring) == 0
    assert reconcile(wiring, later_s=LEASE_S + 0.1) == 1
    assert types(client, match).count("HandScored") == 1


def test_reaching_the_target_runs_the_bonuses_step(client, wiring):
    match = knocked(client, target=50)
    reconcile(wiring)
    view = client.get(f"/v1/matches/{match['id']}").json
    assert view["phase"] == "complete" and view["winner"] == 1
    assert view["final_scores"] == [0, 67 + 200 + 25]
    assert types(client, match)[-4:] == ["HandScored", "SeedRevealed", "MatchSeedRevealed",
                                          "MatchCompleted"]


def test_a_mark_whose_append_never_happened_leaves_the_index(client, wiring):
    match = knocked(client)
    wiring.index.mark(StepDue.kind, "no-such-match", time.time())
    reconcile(wiring)
    assert types(client, match).count("HandScored") == 1
    assert wiring.index.pending(StepDue.kind) == 0


def test_a_scan_indexes_matches_that_awaited_work_before_the_index(client, redis_client,
                                                                  wiring):
    match = knocked(client)
    redis_client.delete(wiring.index.key(StepDue.kind))  # as after an upgrade: never indexed
    marked = index_everything(wiring.aggregates(), wiring.index)
    assert marked == {"scanned": {"match": 1, "tournament": 0}, "steps": 1, "clocks": 0,
                      "bots": 0, "tournaments": 0, "ratings": 0}
    reconcile(wiring)
    assert types(client, match).count("HandScored") == 1


def test_a_step_job_of_an_earlier_release_still_runs(client, jobs_redis, key_prefix):
    match = knocked(client)
    queue = Queue("scoring", connection=jobs_redis)
    queue.enqueue("workers.jobs.run_scoring", match["id"], key_prefix, False)
    SimpleWorker([queue], connection=jobs_redis).work(burst=True)
    assert types(client, match).count("HandScored") == 1


def test_a_webhook_delivery_runs_before_the_verifications_queued_ahead_of_it(
        wiring, jobs_redis, key_prefix, monkeypatch):
    """However many verifications wait, the next job a worker takes is the delivery an
    organiser's backend waits for: a worker serves ``webhooks`` before ``replays``."""
    ran: list[str] = []
    monkeypatch.setattr(workers.jobs, "run_replay", lambda *args: ran.append("replay"))
    monkeypatch.setattr(workers.webhooks, "run_delivery", lambda *args: ran.append("delivery"))
    jobs = wiring.work.jobs
    replays = [jobs.enqueue_replay("a-match", f"verification-{n}") for n in range(20)]
    jobs.enqueue_delivery("an-organiser", "a-webhook", "a-delivery")
    try:
        rq_worker(jobs_redis).work(burst=True, max_jobs=1)
        assert ran == ["delivery"]
        assert queued_here(jobs_redis, key_prefix, REPLAYS) == replays
    finally:
        for name in (REPLAYS, WEBHOOKS):  # the real Redis's queues are shared
            for job_id in queued_here(jobs_redis, key_prefix, name):
                Queue(name, connection=jobs_redis).remove(job_id)


def queued_here(redis_client, key_prefix: str, queue: str) -> list[str]:
    """This test's jobs in an RQ queue, in order."""
    return [job_id for job_id in Queue(queue, connection=redis_client).job_ids
            if job_id.startswith(f"{key_prefix}-")]


def test_a_tournament_verification_is_a_replays_job_that_files_its_report(
        client, jobs_redis, key_prefix):
    """Real mode: asking queues ``workers.jobs.run_tournament_replay`` on ``replays``; the
    job, run as a worker runs it (its wiring built from the job's connection and prefix),
    verifies the export and files the report where the API reads it."""
    made = client.post("/v1/tournaments", headers=ADMIN_AUTH, json={
        "variant": "gin", "format": "round_robin",
        "players": [{"name": "Ann"}, {"name": "Bob"}]}).json
    url = f"/v1/tournaments/{made['id']}/verifications"
    asked = client.post(url).json
    try:
        (job_id,) = queued_here(jobs_redis, key_prefix, REPLAYS)
        job = Job.fetch(job_id, connection=jobs_redis)
        assert (job.func_name, job.args) == ("workers.jobs.run_tournament_replay",
                                             (made["id"], asked["id"], key_prefix))
        assert job.perform() is True  # the job function, as a worker calls it
    finally:
        for job_id in queued_here(jobs_redis, key_prefix, REPLAYS):
            Queue(REPLAYS, connection=jobs_redis).remove(job_id)
    report = client.get(f"{url}/{asked['id']}").json
    assert report["status"] == "finished" and report["report"]["ok"]
    assert [check["name"] for check in report["report"]["checks"]] == [
        "hash_chain", "pairings", "results"]
