"""Every request body has a deadline, applied before the app reads it
(``service.api.deadlines``): it must start and never pause for longer than the grace, keep
up the minimum rate after it, and end within the total; every answer is written within a
deadline of its own. Here with a clock and a socket of the test's own: each read waits
through the socket's timeout, as gunicorn's gevent socket makes it wait."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest
from werkzeug.test import EnvironBuilder

from service.api.deadlines import BodyDeadlines, has_body
from service.config import Deadlines, Settings
from service.gunicorn_bodies import BODY_EXPIRED
from service.usecases.errors import TimedOut
from tests.service.conftest import bearer, create

LIMITS = Deadlines(total_s=60.0, min_rate=1000, grace_s=5.0)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Socket:
    """A client socket: its timeout, and every timeout it was given."""

    def __init__(self) -> None:
        self.timeout: float | None = None
        self.given: list[float | None] = []

    def gettimeout(self) -> float | None:
        return self.timeout

    def settimeout(self, timeout: float | None) -> None:
        self.timeout = timeout
        self.given.append(timeout)


class Sender:
    """A body sent in ``steps``: (seconds after the previous read, bytes). A read waits as
    a socket read does: at most the socket's timeout, then ``TimeoutError``."""

    def __init__(self, clock: Clock, sock: Socket, steps: Iterable[tuple[float, bytes]]) -> None:
        self.clock, self.sock, self.steps = clock, sock, list(steps)

    def read(self, size: int | None = -1) -> bytes:
        if not self.steps:
            return b""
        delay, data = self.steps[0]
        if self.sock.timeout is not None and delay > self.sock.timeout:
            self.clock.now += self.sock.timeout
            self.steps[0] = (delay - self.sock.timeout, data)
            raise TimeoutError("timed out")
        self.clock.now += delay
        self.steps.pop(0)
        return data


def reading_app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """Reads the whole body, then answers how much it read; a ``TimedOut`` is answered
    as the API answers it."""
    stream = environ["wsgi.input"]
    try:
        size = sum(len(chunk) for chunk in iter(lambda: stream.read(4096), b""))
    except TimedOut as exc:
        start_response("408 Request Timeout", [("Content-Type", "application/json")])
        return [json.dumps({"code": exc.code, "message": exc.message}).encode()]
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps({"read": size}).encode()]


def post(steps: Iterable[tuple[float, bytes]], length: int | None = None,
         limits: Deadlines = LIMITS, app: Any = reading_app) -> tuple[str, Any, dict[str, Any],
                                                                    Socket, Clock]:
    clock, sock = Clock(), Socket()
    headers = {"Transfer-Encoding": "chunked"} if length is None else {}
    environ = EnvironBuilder(method="POST", path="/", headers=headers).get_environ()
    if length is not None:
        environ["CONTENT_LENGTH"] = str(length)
    environ["wsgi.input"] = Sender(clock, sock, steps)
    environ["gunicorn.socket"] = sock
    status: list[str] = []
    answer = BodyDeadlines(app, limits, clock)(environ, lambda s, h, *e: status.append(s))
    body = b"".join(answer)
    getattr(answer, "close", lambda: None)()
    return status[0], json.loads(body) if body[:1] in (b"{", b'"') else body, environ, sock, clock


def test_a_body_that_arrives_in_time_is_read_whole():
    status, answer, environ, sock, _ = post([(1.0, b"x" * 3000), (4.9, b"y" * 3000)], 6000)
    assert (status, answer) == ("200 OK", {"read": 6000})
    assert BODY_EXPIRED not in environ
    assert sock.timeout is None, "the socket's own timeout is back after the answer"


def test_a_body_that_never_starts_is_cut_at_the_grace():
    status, answer, environ, sock, clock = post([(3600.0, b"x")], 100)
    assert status.startswith("408") and answer["code"] == "body_timeout"
    assert clock.now == pytest.approx(100 + LIMITS.grace_s)
    assert environ[BODY_EXPIRED] is True  # gunicorn closes the connection after the answer
    assert "5 s" in answer["message"] and "60 s" in answer["message"]


def test_a_body_that_goes_silent_is_cut_after_a_grace_and_the_time_of_one_read():
    status, answer, _, _, clock = post([(0.1, b"x" * 50_000), (3600.0, b"rest")], 50_004)
    assert answer["code"] == "body_timeout"
    # the app reads 4096 bytes at a time: the grace, plus 4096 bytes at the minimum rate
    assert clock.now == pytest.approx(100 + 0.1 + LIMITS.grace_s + 4096 / LIMITS.min_rate)


def test_a_trickle_below_the_minimum_rate_is_cut_when_it_falls_behind():
    # 100 bytes every 4 s (25 bytes a second), each within the grace
    status, answer, _, _, clock = post([(4.0, b"x" * 100)] * 100, 10_000)
    assert answer["code"] == "body_timeout"
    # allowed: grace + received / rate; it falls behind after the first read
    assert clock.now - 100 <= LIMITS.grace_s + 4 * 100 / LIMITS.min_rate + 4.0


def test_no_body_takes_longer_than_the_total_however_fast_it_comes():
    limits = Deadlines(total_s=20.0, min_rate=1000, grace_s=5.0)
    status, answer, _, _, clock = post([(1.0, b"x" * 10_000)] * 100, None, limits)
    assert answer["code"] == "body_timeout"
    assert clock.now - 100 <= limits.total_s + 1.0


def test_each_read_waits_at_most_what_its_size_allows_or_what_is_left_of_the_deadline():
    limits = Deadlines(total_s=7.0, min_rate=1000, grace_s=5.0)
    _, answer, _, sock, _ = post([(4.0, b"x" * 10_000), (4.0, b"x")], None, limits)
    assert answer["code"] == "body_timeout"
    # before any byte: the grace; then the total's 7 s less the 4 s gone
    assert sock.given[:2] == [5.0, pytest.approx(3.0)]
    _, _, _, sock, _ = post([(0.0, b"x" * 100_000), (0.0, b"")], 100_000)
    assert sock.given[1] == pytest.approx(LIMITS.grace_s + 4096 / LIMITS.min_rate)


def test_a_request_without_a_body_is_not_wrapped():
    assert not has_body({"CONTENT_LENGTH": "0"}) and not has_body({})
    assert has_body({"CONTENT_LENGTH": "12"})
    assert has_body({"HTTP_TRANSFER_ENCODING": "chunked"})


def big_answer(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
    start_response("200 OK", [("Content-Type", "application/json")])
    return [b"\"", b"x" * 50_000, b"\""]


def test_each_part_of_an_answer_gets_its_own_write_deadline():
    status, _, _, sock, _ = post([], 0, app=big_answer)
    writes = sock.given[:-1]
    assert writes == [LIMITS.grace_s, LIMITS.grace_s + 1 / 1000,
                      LIMITS.grace_s + 50_000 / 1000, LIMITS.grace_s + 1 / 1000]
    assert sock.given[-1] is None


def test_event_streams_keep_the_sockets_own_timeout():
    def stream(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        start_response("200 OK", [("Content-Type", "text/event-stream")])
        return [b": hello\n\n"]

    _, _, _, sock, _ = post([], 0, app=stream)
    assert sock.given == [None]


class Stalled:
    """A body whose next read times out, as a stalled client's does."""

    def read(self, size: int | None = -1) -> bytes:
        raise TimeoutError("timed out")


@pytest.mark.parametrize("path, content_type", [
    ("/v1/matches", "application/json"), ("/v1/audits", "application/x-ndjson"),
    ("/v1/matches/{id}/actions", "application/json"),
])
def test_the_api_answers_a_stalled_body_with_a_408_body_timeout(client, path, content_type):
    match = create(client)
    answer = client.post(path.format(id=match["id"]), content_type=content_type,
                         headers=bearer(match["seats"][1]["token"]) if "{id}" in path else {},
                         environ_overrides={"wsgi.input": Stalled(), "CONTENT_LENGTH": "500"})
    assert (answer.status_code, answer.json["code"]) == (408, "body_timeout"), answer.json


def test_the_deadlines_come_from_the_environment_and_a_bad_one_stops_the_start(monkeypatch):
    for name in ("RUMMY_BODY_TIMEOUT_S", "RUMMY_BODY_MIN_RATE", "RUMMY_BODY_GRACE_S"):
        monkeypatch.delenv(name, raising=False)
    assert Settings.from_env().deadlines == Deadlines(120.0, 8192, 10.0)
    monkeypatch.setenv("RUMMY_BODY_TIMEOUT_S", "300")
    monkeypatch.setenv("RUMMY_BODY_MIN_RATE", "4096")
    monkeypatch.setenv("RUMMY_BODY_GRACE_S", "2.5")
    assert Settings.from_env().deadlines == Deadlines(300.0, 4096, 2.5)
    for bad in ("0", "-1", "soon", "nan", "inf"):
        monkeypatch.setenv("RUMMY_BODY_GRACE_S", bad)
        with pytest.raises(ValueError, match="RUMMY_BODY_GRACE_S"):
            Settings.from_env()
