"""Scoring and bonuses jobs through RQ's own worker: idempotent, and nothing is lost.

Each test ends with exactly one result, whether a job runs twice, is lost before it
runs, or its worker dies mid-job.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from rq import Queue, SimpleWorker
from rq.job import Job

from service.adapters.store import RedisEventStore
from service.api.app import create_app
from service.config import Settings
from tests.service.conftest import ADMIN
from tests.service.test_matches_api import knocked
from workers.jobs import advance


@pytest.fixture
def app(redis_client, key_prefix):
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix)
    return create_app(settings, client=redis_client, jobs_inline=False)


@pytest.fixture
def client(app):
    return app.test_client()


def work(redis_client) -> None:
    queues = [Queue(name, connection=redis_client) for name in ("scoring", "bonuses")]
    SimpleWorker(queues, connection=redis_client).work(burst=True)


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


def test_a_job_run_twice_records_one_result(client, redis_client, key_prefix):
    match = knocked(client)
    work(redis_client)
    store = RedisEventStore(redis_client, key_prefix)
    assert advance(store, match["id"], "scoring") == ()
    job = Queue("scoring", connection=redis_client).enqueue(
        "workers.jobs.run_scoring", match["id"], key_prefix, False, job_id=f"{key_prefix}-again")
    work(redis_client)
    assert job.get_status() == "finished" and job.return_value() == 0
    assert types(client, match).count("HandScored") == 1


def test_a_job_lost_before_it_ran_is_driven_again(client, redis_client):
    match = knocked(client)
    Queue("scoring", connection=redis_client).empty()  # the enqueue is lost
    work(redis_client)
    assert "HandScored" not in types(client, match)
    client.get(f"/v1/matches/{match['id']}")  # any read re-drives the waiting job
    work(redis_client)
    assert types(client, match).count("HandScored") == 1


def test_a_worker_killed_mid_job_leaves_exactly_one_result(client, redis_client, key_prefix):
    match = knocked(client)
    queue = Queue("scoring", connection=redis_client)
    (job_id,) = queue.get_job_ids()
    queue.remove(job_id)  # a worker took it ...
    job = Job.fetch(job_id, connection=redis_client)
    job.set_status("started")
    job.started_at = datetime.now(UTC) - timedelta(minutes=5)
    job.save()  # ... and died before appending anything
    client.get(f"/v1/matches/{match['id']}")
    work(redis_client)
    assert types(client, match).count("HandScored") == 1


def test_a_worker_killed_after_appending_changes_nothing_on_rerun(client, redis_client,
                                                                  key_prefix):
    match = knocked(client)
    store = RedisEventStore(redis_client, key_prefix)
    assert len(advance(store, match["id"], "scoring")) == 3  # appended, then the worker died
    work(redis_client)  # the queued copy of the job runs anyway
    assert types(client, match).count("HandScored") == 1


def test_reaching_the_target_queues_the_bonuses_job(client, redis_client):
    match = knocked(client, target=50)
    work(redis_client)
    view = client.get(f"/v1/matches/{match['id']}").json
    assert view["phase"] == "complete" and view["winner"] == 1
    assert view["final_scores"] == [0, 67 + 200 + 25]
    assert types(client, match)[-4:] == ["HandScored", "SeedRevealed", "MatchSeedRevealed",
                                          "MatchCompleted"]
