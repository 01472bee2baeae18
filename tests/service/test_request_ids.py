"""Request ids (service/correlation.py, service/api/observed.py): taken from a client's
``X-Request-Id`` when it is sensible, else made; on every answer; in the log lines, the
queued jobs and the webhook deliveries of the request."""

from __future__ import annotations

import io
import json
import logging
import re
import threading
from collections.abc import Iterator

import pytest
import redis
from rq import Queue

from service import correlation, logs
from service.config import Settings
from tests.service.conftest import ADMIN, bearer, create
from tests.service.test_matches_api import DECK, act
from workers.__main__ import rq_worker

MADE = re.compile(r"[0-9a-f]{32}")


def rid(answer) -> str:
    return answer.headers["X-Request-Id"]


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """What the process's JSON log handler (``service.logs``) writes, as text."""
    out = io.StringIO()
    handler = logs.handler(out)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield out
    root.removeHandler(handler)
    root.setLevel(level)


def lines(out: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


class TestTheHeader:
    def test_a_sensible_id_is_echoed(self, client):
        for sent in ("abc", "4f0c6a2e-1d7b-4e1c-9a85-3c2d1e0f9b7a", "a.b_c~d+e/f=g:h@i-j",
                     "x" * 128):
            assert rid(client.get("/healthz", headers={"X-Request-Id": sent})) == sent

    def test_one_is_made_when_none_is_sent(self, client):
        first, second = rid(client.get("/healthz")), rid(client.get("/healthz"))
        assert MADE.fullmatch(first) and MADE.fullmatch(second) and first != second

    @pytest.mark.parametrize("sent", ["", "x" * 129, "has space", 'quo"te', "semi;colon",
                                      "new\\nline", "caf\u00e9", "<script>"])
    def test_a_bad_one_is_replaced_not_trimmed(self, client, sent):
        assert MADE.fullmatch(rid(client.get("/healthz", headers={"X-Request-Id": sent})))

    def test_every_answer_carries_it_errors_and_streams_included(self, client):
        match = create(client, DECK)
        answers = {
            "404 no route": client.get("/no/such/page"),
            "405": client.delete("/healthz"),
            "401": client.post(f"/v1/matches/{match['id']}/actions", json={"type": "pass"}),
            "404 match": client.get("/v1/matches/nope"),
            "422": act(client, match, 0, {"type": "pass"}),
            "400": act(client, match, 1, {"type": "fly"}),
            "metrics": client.get("/metrics"),
            "web page": client.get("/"),
            "openapi": client.get("/openapi.json"),
        }
        for what, answer in answers.items():
            answer.close()
            assert MADE.fullmatch(answer.headers.get("X-Request-Id", "")), what
        stream = client.get(f"/v1/matches/{match['id']}/stream",
                            headers={**bearer(match["seats"][0]["token"]),
                                     "X-Request-Id": "stream-1"})
        assert stream.mimetype == "text/event-stream" and rid(stream) == "stream-1"
        stream.close()

    def test_a_browser_on_another_origin_may_send_and_read_it(self, client):
        preflight = client.options("/v1/matches", headers={
            "Origin": "https://table.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "x-request-id"})
        assert "x-request-id" in preflight.headers["Access-Control-Allow-Headers"].lower()
        answer = client.get("/healthz", headers={"Origin": "https://table.example"})
        assert "X-Request-Id" in answer.headers["Access-Control-Expose-Headers"]


def test_a_log_line_of_the_request_is_json_with_its_id(client, app, json_lines, monkeypatch):
    """The 503 handler logs on the request's thread: that line carries the request's id."""
    match = create(client, DECK)
    store = app.extensions["rummy"].store

    def down(*args, **kwargs):
        raise redis.ConnectionError("Redis went away")

    monkeypatch.setattr(store, "read", down)
    monkeypatch.setattr(store, "meta", down)
    monkeypatch.setattr(app.extensions["rummy"].streams.live.presence, "with_events", down)
    answer = client.get(f"/v1/matches/{match['id']}", headers={"X-Request-Id": "down-1"})
    assert answer.status_code == 503 and rid(answer) == "down-1"
    (line,) = [line for line in lines(json_lines) if "redis unavailable" in line["message"]]
    assert line["request_id"] == "down-1"
    assert line["level"] == "ERROR" and line["logger"] == "rummy" and "time" in line


def test_a_line_written_outside_any_request_has_none(json_lines):
    """A thread no request runs on (a worker's reconciler, the embedded timer)."""
    other = threading.Thread(
        target=lambda: logging.getLogger("rummy.test").warning("nothing asked for this"))
    other.start()
    other.join()
    (line,) = lines(json_lines)
    assert line["request_id"] is None and "job_id" not in line


def log_for_the_test(message: str) -> str:
    """An RQ job function that writes one log line."""
    logging.getLogger("rummy.test.job").warning(message)
    return message


@pytest.fixture
def real_mode(redis_client, jobs_redis, key_prefix, serving):
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix)
    return serving(settings, redis_client, jobs_inline=False, job_client=jobs_redis)


def test_a_job_the_request_queued_carries_its_id_into_the_workers_log(real_mode, jobs_redis,
                                                                        json_lines):
    client = real_mode.test_client()
    match = create(client, DECK)
    asked = client.post(f"/v1/matches/{match['id']}/verifications",
                        headers={"X-Request-Id": "verify-1"})
    assert asked.status_code == 202, asked.json
    asked.close()
    assert correlation.current() is None  # an answer's end lets its request's id go
    (job,) = Queue("replays", connection=jobs_redis).jobs
    assert job.meta == {"request_id": "verify-1"}
    # a job of the same request's, to see what a worker's log line of it carries
    queue = Queue("webhooks", connection=jobs_redis)
    logged = queue.enqueue(log_for_the_test, "from the job", meta=job.meta)
    rq_worker(jobs_redis).work(burst=True, logging_level="WARNING")
    (line,) = [line for line in lines(json_lines) if line["message"] == "from the job"]
    assert (line["request_id"], line["job_id"]) == ("verify-1", logged.id)
    assert correlation.current() is None  # the worker let it go after the job
