"""Embedded retention (issue 11): only the newest finished matches stay in memory.

With ``keep_finished`` 2, five matches are aborted: the two that ended last remain, the
other three answer 404 ``match_not_found`` everywhere and leave no key, index entry or
token behind; live matches are untouched. Real mode keeps everything. A bulk run shows
the number of keys stays flat however many matches finish.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.adapters.retention import PER_MATCH_SUFFIXES
from service.api.app import create_app
from service.bootstrap import bootstrap
from service.config import Settings
from service.usecases.obligations import KINDS
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer

FIRST_MOVE = {"type": "pass"}
"""Seat 1's first legal move in gin with ``first_dealer`` 0 (the upcard offer)."""


def embedded(prefix: str, keep: int) -> Settings:
    """Embedded-mode settings (no ``REDIS_URL``); the test hands the app its Redis."""
    return Settings(redis_url=None, admin_token=ADMIN, key_prefix=prefix,
                    sse_keepalive_ms=200, keep_finished=keep)


@pytest.fixture
def app(redis_client: redis.Redis, key_prefix: str, serving: Callable[..., Flask]) -> Flask:
    return serving(embedded(key_prefix, keep=2), redis_client, jobs_inline=True)


def new_match(client: FlaskClient, number: int) -> dict[str, Any]:
    body = {"variant": "gin", "options": {"first_dealer": 0}, "external_id": f"ext-{number}",
            "tags": ["spring", f"table:{number}"],
            "players": [{"name": "Ann", "external_id": f"ann-{number}"}, {"name": "Bob"}]}
    response = client.post("/v1/matches", json=body, headers=ADMIN_AUTH)
    assert response.status_code == 201, response.json
    return response.json


def leave_traces(client: FlaskClient, match: dict[str, Any]) -> None:
    """Write every per-match key: an idempotency record, a verification (which expires)."""
    url = f"/v1/matches/{match['id']}"
    bob = bearer(match["seats"][1]["token"])
    acted = client.post(url + "/actions", json=FIRST_MOVE,
                        headers={**bob, "Idempotency-Key": "k1"})
    assert acted.status_code == 200, acted.json
    assert client.post(url + "/verifications").status_code in (200, 201, 202)


def abort(client: FlaskClient, match_id: str) -> None:
    """Abort the match, then analyse it (a finished match's last kind of trace)."""
    response = client.post(f"/v1/matches/{match_id}/abort", json={"reason": "closing"},
                           headers=ADMIN_AUTH)
    assert response.status_code == 200, response.json
    analysed = client.post(f"/v1/matches/{match_id}/analyses",
                           json={"budget_ms": 1, "samples": 1})
    assert analysed.status_code == 202, analysed.json
    time.sleep(0.005)  # distinct finish times (milliseconds), so "newest" is well defined


def traces_of(client: redis.Redis, prefix: str, match_id: str) -> list[str]:
    """Every place under ``prefix`` that still names the match: key names, sorted-set and
    hash members or values. The organiser's feed stream is left out (capped by length)."""
    found = []
    for raw in client.scan_iter(match=f"{prefix}*", count=1000):
        key = raw.decode()
        kind = client.type(raw).decode()
        if match_id in key:
            found.append(key)
        elif kind == "zset" and client.zscore(raw, match_id) is not None:
            found.append(f"{key} member")
        elif kind == "hash" and any(match_id in v.decode() for v in client.hvals(raw)):
            found.append(f"{key} value")
    return found


def test_only_the_newest_finished_matches_stay(app: Flask, client: FlaskClient,
                                               redis_client: redis.Redis,
                                               key_prefix: str) -> None:
    live = [new_match(client, number) for number in range(3)]
    finished = [new_match(client, number) for number in range(3, 8)]
    for match in finished:
        leave_traces(client, match)
        abort(client, match["id"])
    evicted, kept = finished[:3], finished[3:]

    for match in evicted:
        assert traces_of(redis_client, key_prefix, match["id"]) == []
        for path in ("", "/events", "/stream", "/export", "/state?at=1"):
            for headers in ({}, ADMIN_AUTH):
                response = client.get(f"/v1/matches/{match['id']}{path}", headers=headers)
                assert response.status_code == 404, (path, response.status_code)
                assert response.json["code"] == "match_not_found"
            # its seat tokens went with it: they name nobody any more
            response = client.get(f"/v1/matches/{match['id']}{path}",
                                  headers=bearer(match["seats"][0]["token"]))
            assert (response.status_code, response.json["code"]) == (401, "invalid_token")
        acted = client.post(f"/v1/matches/{match['id']}/actions", json=FIRST_MOVE,
                            headers=bearer(match["seats"][0]["token"]))
        assert acted.status_code == 401 and acted.json["code"] == "invalid_token"
    for match in kept:
        assert client.get(f"/v1/matches/{match['id']}").json["phase"] == "aborted"
    for match in live:
        view = client.get(f"/v1/matches/{match['id']}", headers=bearer(match["seats"][1]["token"]))
        assert view.status_code == 200 and view.json["phase"] not in ("aborted", "complete")

    listed = client.get("/v1/matches?tag=spring", headers=ADMIN_AUTH).json["matches"]
    assert {m["id"] for m in listed} == {m["id"] for m in live + kept}


def test_a_finished_match_is_kept_until_the_cap_is_passed(app: Flask, client: FlaskClient) -> None:
    first, second = new_match(client, 0), new_match(client, 1)
    abort(client, first["id"])
    abort(client, second["id"])
    assert client.get(f"/v1/matches/{first['id']}").status_code == 200
    abort(client, new_match(client, 2)["id"])
    assert client.get(f"/v1/matches/{first['id']}").status_code == 404
    assert client.get(f"/v1/matches/{second['id']}").status_code == 200


def test_every_lasting_per_match_key_is_one_retention_deletes(
        app: Flask, client: FlaskClient, redis_client: redis.Redis, key_prefix: str) -> None:
    """Guards ``PER_MATCH_SUFFIXES``: a new kind of per-match key must join it, or expire."""
    match = new_match(client, 0)
    leave_traces(client, match)
    ticket = client.post(f"/v1/matches/{match['id']}/stream-tickets", headers=ADMIN_AUTH)
    assert ticket.status_code in (200, 201)
    abort(client, match["id"])
    for raw in redis_client.scan_iter(match=f"{key_prefix}:{{{match['id']}}}:*"):
        suffix = raw.decode().split("}:", 1)[1]
        assert suffix in PER_MATCH_SUFFIXES or redis_client.ttl(raw) > 0, suffix


def test_real_mode_keeps_every_match(redis_client: redis.Redis, key_prefix: str) -> None:
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix,
                        keep_finished=1)
    built = create_app(settings, client=redis_client, jobs_inline=True)
    client = built.test_client()
    matches = [new_match(client, number) for number in range(3)]
    for match in matches:
        abort(client, match["id"])
    assert all(client.get(f"/v1/matches/{m['id']}").status_code == 200 for m in matches)
    assert redis_client.exists(f"{key_prefix}:retention:finished") == 0
    built.extensions["rummy"].close()


def test_keys_stay_bounded_however_many_matches_finish(redis_client: redis.Redis,
                                                       key_prefix: str) -> None:
    """Embedded mode through the use cases: the key count stops growing at the cap."""
    wiring = bootstrap(embedded(key_prefix, keep=10), redis_client)
    counts = []
    try:
        for round_ in range(3):
            for number in range(20):
                match = wiring.creation.create(
                    {"variant": "gin", "players": [{"name": "A"}, {"name": "B"}],
                     "tags": [f"round:{round_}"]}, ADMIN)
                wiring.play.abort(match["id"], ADMIN, {"reason": f"{number}"})
            counts.append(sum(1 for _ in redis_client.scan_iter(match=f"{key_prefix}*")))
    finally:
        wiring.close()
    assert counts[0] == counts[1] == counts[2], counts
    assert redis_client.zcard(f"{key_prefix}:matches") == 10


def test_a_clock_check_of_a_deleted_match_is_dropped(redis_client: redis.Redis,
                                                     key_prefix: str) -> None:
    """A turn timer still pending when its match ends and is deleted finds nothing to do."""
    wiring = bootstrap(embedded(key_prefix, keep=1), redis_client)
    try:
        clocked = wiring.creation.create({"variant": "gin", "clock": {"turn_seconds": 600},
                                         "players": [{"name": "A"}, {"name": "B"}]}, ADMIN)
        (owed,) = wiring.repository.get(clocked["id"]).owed()
        wiring.play.abort(clocked["id"], ADMIN, {"reason": "closing"})
        time.sleep(0.005)
        other = wiring.creation.create({"variant": "gin", "players": [{"name": "A"},
                                                                     {"name": "B"}]}, ADMIN)
        wiring.play.abort(other["id"], ADMIN, {"reason": "closing"})
        assert wiring.store.meta(clocked["id"]) is None
        wiring.work.pay(owed.kind, clocked["id"])  # the timer's call at the deadline
    finally:
        wiring.close()


def test_a_deleted_match_leaves_no_mark_under_any_kind_of_work(redis_client: redis.Redis,
                                                               key_prefix: str) -> None:
    """Whatever kinds of owed work the table lists, a deleted match is unmarked in each."""
    wiring = bootstrap(embedded(key_prefix, keep=1), redis_client)
    try:
        first, second = (wiring.creation.create(
            {"variant": "gin", "players": [{"name": "A"}, {"name": "B"}]}, ADMIN)
            for _ in range(2))
        for kind in KINDS:  # as a scan (``rummy reconcile --scan``) could have left them
            wiring.index.mark(kind, first["id"], time.time() + 60)
        wiring.play.abort(first["id"], ADMIN, {"reason": "closing"})
        time.sleep(0.005)
        wiring.play.abort(second["id"], ADMIN, {"reason": "closing"})
        assert wiring.store.meta(first["id"]) is None
        assert [redis_client.zscore(wiring.index.key(kind), first["id"]) for kind in KINDS] \
            == [None] * len(KINDS)
    finally:
        wiring.close()


def test_the_setting_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RUMMY_EMBEDDED_KEEP_FINISHED", raising=False)
    assert Settings.from_env().keep_finished == 1000
    monkeypatch.setenv("RUMMY_EMBEDDED_KEEP_FINISHED", "25")
    assert Settings.from_env().keep_finished == 25
    for bad in ("0", "-3", "lots"):
        monkeypatch.setenv("RUMMY_EMBEDDED_KEEP_FINISHED", bad)
        with pytest.raises(ValueError, match="RUMMY_EMBEDDED_KEEP_FINISHED"):
            Settings.from_env()
