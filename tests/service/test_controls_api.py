"""Organiser controls and match clocks over HTTP (issue 6).

Forfeit and abort by the match's owner, refused for anyone else or a finished match;
clocks whose deadlines come from event timestamps; a stalled seat forfeited or
auto-played by the in-process runner, by the timeout check with an injected time, and by
an RQ job scheduled with ``enqueue_at`` and run by RQ's own worker and scheduler. Every
log that results verifies (``domain.audit.verify``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from domain.aggregate import Recorded
from domain.audit import parse_ndjson, verify
from domain.clocks import Clock, ClockSettings
from domain.events import Event
from domain.match import DeadlineDue, Match
from domain.upcasting import upcast
from domain.variants import VARIANTS
from service.api.app import create_app
from service.config import Settings
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer
from workers.reconciler import Reconciler

NAMES = ["Ann", "Bob", "Cy", "Di"]


@pytest.fixture
def app(redis_client: redis.Redis, key_prefix: str, serving: Callable[..., Flask]) -> Flask:
    """The test app (jobs inline, so the in-process work timer is registered); its
    timer is stopped afterwards."""
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix,
                        sse_keepalive_ms=200)
    return serving(settings, redis_client, jobs_inline=True)


def stop_clock_timer(app: Flask) -> None:
    """Stop the app's in-process work timer (the test times turns out itself)."""
    app.extensions["rummy"].work.timer.stop()


def clocked_app(redis_client: Any, key_prefix: str, clock: Any) -> Any:
    """The test app with its wall clock in the test's hands (``create_app(clock=)``)."""
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix,
                        sse_keepalive_ms=200)
    return create_app(settings, client=redis_client, jobs_inline=True, clock=clock)


def new_match(client: FlaskClient, variant: str = "gin", players: int = 2,
              clock: dict[str, Any] | None = None, auth: dict[str, str] | None = None,
              **options: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"variant": variant,
                            "players": [{"name": n} for n in NAMES[:players]],
                            "options": {"first_dealer": 0, **options}, "seed": "controls"}
    if clock is not None:
        body["clock"] = clock
    response = client.post("/v1/matches", json=body, headers=auth or ADMIN_AUTH)
    assert response.status_code == 201, response.json
    return response.json


def export(client: FlaskClient, match_id: str,
           headers: dict[str, str] | None = None) -> list[dict[str, Any]]:
    response = client.get(f"/v1/matches/{match_id}/export", headers=headers or {})
    assert response.status_code == 200
    return parse_ndjson(response.get_data(as_text=True).splitlines())


def verified(client: FlaskClient, match_id: str) -> dict[str, Any]:
    """The public export verifies in full (every hand is revealed once the match ended)."""
    records = export(client, match_id)
    assert not any(r["redacted"] for r in records)
    report = verify(records, VARIANTS).to_dict()
    assert report["ok"], report
    return report


def types(client: FlaskClient, match_id: str, after: int = 0) -> list[str]:
    events = client.get(f"/v1/matches/{match_id}/events?after={after}",
                        headers=ADMIN_AUTH).json["events"]
    return [e["type"] for e in events]


def stream_events(client: FlaskClient, match_id: str, after: int) -> list[str]:
    body = client.get(f"/v1/matches/{match_id}/stream",
                      headers={"Last-Event-ID": str(after)}).get_data(as_text=True)
    names = [line.split(": ", 1)[1] for line in body.split("\n") if line.startswith("event:")]
    if not names:  # caught up with a finished match: 204, no body
        return []
    assert names[-1] == "end" and 'data: {"reason": "match_over"}' in body, names
    return names[:-1]  # the stored events; the stream's own end comes last


def wait_for(predicate: Any, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


class TestForfeitAndAbort:
    def test_the_owner_forfeits_a_seat(self, client):
        match = new_match(client)
        url = f"/v1/matches/{match['id']}"
        response = client.post(url + "/forfeit", json={"seat": 1, "reason": "no-show"},
                               headers=ADMIN_AUTH)
        assert response.status_code == 200, response.json
        view = response.json
        assert view["phase"] == "complete" and view["awaiting"] is None
        assert view["winner"] == 0 and view["winners"] == [0]
        assert view["ended"] == {"by": "forfeit", "seat": 1, "reason": "no-show",
                                 "initiator": "organiser"}
        assert types(client, match["id"], after=match["version"]) == [
            "SeedRevealed", "MatchSeedRevealed", "SeatForfeited"]
        seat_view = client.get(url, headers=bearer(match["seats"][1]["token"])).json
        assert seat_view["legal_actions"] == [] and seat_view["ended"]["seat"] == 1
        report = verified(client, match["id"])
        assert report["final_phase"] == "complete"
        assert stream_events(client, match["id"], match["version"]) == [
            "SeedRevealed", "MatchSeedRevealed", "SeatForfeited"]
        assert stream_events(client, match["id"], view["version"]) == []

    def test_an_organiser_key_aborts_its_own_match(self, client):
        key = client.post("/v1/organisers", json={"name": "club"}, headers=ADMIN_AUTH).json["key"]
        match = new_match(client, auth=bearer(key))
        url = f"/v1/matches/{match['id']}"
        client.post(url + "/actions", json={"type": "pass"},
                    headers=bearer(match["seats"][1]["token"]))
        response = client.post(url + "/abort", json={"reason": "venue closed"},
                               headers=bearer(key))
        assert response.status_code == 200, response.json
        public = client.get(url).json
        assert public["phase"] == "aborted" and public["awaiting"] is None
        assert public["ended"] == {"by": "abort", "seat": None, "reason": "venue closed",
                                   "initiator": "organiser"}
        assert "winner" not in public
        events = client.get(url + "/events", headers=bearer(key)).json["events"]
        assert events[-1]["type"] == "MatchAborted"
        assert events[-1]["command_id"].startswith("organiser:abort:")
        group = [e for e in events if e["command_id"] == events[-1]["command_id"]]
        assert [e["type"] for e in group] == ["SeedRevealed", "MatchSeedRevealed",
                                              "MatchAborted"]
        assert group[0]["command"] == {"control": "abort", "reason": "venue closed",
                                       "by": "organiser"}
        assert verified(client, match["id"])["final_phase"] == "aborted"
        assert stream_events(client, match["id"], public["version"] - 1) == ["MatchAborted"]

    def test_forfeit_with_three_players_ranks_the_forfeiter_last(self, client):
        match = new_match(client, "rummy", players=3)
        response = client.post(f"/v1/matches/{match['id']}/forfeit",
                               json={"seat": 0, "reason": "left"}, headers=ADMIN_AUTH)
        assert response.status_code == 200, response.json
        forfeited = client.get(f"/v1/matches/{match['id']}/events",
                               headers=ADMIN_AUTH).json["events"][-1]["data"]
        assert forfeited["ranking"] == [1, 2, 0]
        assert forfeited["winner"] is None and forfeited["winners"] == [1, 2]
        verified(client, match["id"])

    def test_only_the_owner_may_and_only_while_the_match_runs(self, client):
        match = new_match(client)
        url = f"/v1/matches/{match['id']}"
        other = client.post("/v1/organisers", json={"name": "rival"},
                            headers=ADMIN_AUTH).json["key"]
        body = {"seat": 0, "reason": "x"}
        seat = client.post(url + "/forfeit", json=body, headers=bearer(match["seats"][0]["token"]))
        assert seat.status_code == 403 and seat.json["code"] == "owner_only"
        assert client.post(url + "/forfeit", json=body).status_code == 401
        assert client.post(url + "/forfeit", json=body, headers=bearer(other)).status_code == 404
        assert client.post("/v1/matches/nope/abort", json={"reason": "x"},
                           headers=ADMIN_AUTH).status_code == 404
        unknown = client.post(url + "/forfeit", json={"seat": 2, "reason": "x"},
                              headers=ADMIN_AUTH)
        assert unknown.status_code == 400 and unknown.json["code"] == "unknown_seat"
        for bad in ({"seat": 0}, {"seat": "0", "reason": "x"}, {"seat": 0, "reason": ""}):
            assert client.post(url + "/forfeit", json=bad, headers=ADMIN_AUTH).status_code == 400
        assert client.post(url + "/abort", json={"reason": "done"},
                           headers=ADMIN_AUTH).status_code == 200
        for path, again in (("/abort", {"reason": "again"}), ("/forfeit", body)):
            over = client.post(url + path, json=again, headers=ADMIN_AUTH)
            assert over.status_code == 422 and over.json["code"] == "match_over"
        moved = client.post(url + "/actions", json={"type": "pass"},
                            headers=bearer(match["seats"][1]["token"]))
        assert moved.status_code == 422

    @pytest.mark.parametrize("body", [None, {}, {"seat": "nobody"}, [1, 2]],
                             ids=["no body", "empty", "malformed", "not an object"])
    def test_a_seat_token_is_refused_before_the_body_is_read(self, client, body):
        match = new_match(client)
        url = f"/v1/matches/{match['id']}"
        seat = bearer(match["seats"][0]["token"])
        creator = bearer(match["creator_token"])
        forfeit = client.post(url + "/forfeit", json=body, headers=seat)
        assert (forfeit.status_code, forfeit.json["code"]) == (403, "owner_only")
        by_creator = client.post(url + "/forfeit", json=body, headers=creator)
        assert (by_creator.status_code, by_creator.json["code"]) == (403, "owner_only")
        abort = client.post(url + "/abort", json=body, headers=seat)
        assert (abort.status_code, abort.json["code"]) == (403, "owner_only")

    def test_another_organisers_match_is_not_found_whatever_the_body(self, client):
        match = new_match(client)
        other = client.post("/v1/organisers", json={"name": "rival"},
                            headers=ADMIN_AUTH).json["key"]
        for path in ("/forfeit", "/abort"):
            answer = client.post(f"/v1/matches/{match['id']}{path}", headers=bearer(other))
            assert (answer.status_code, answer.json["code"]) == (404, "match_not_found")

    def test_the_owner_with_no_body_is_told_what_the_body_lacks(self, client):
        match = new_match(client)
        answer = client.post(f"/v1/matches/{match['id']}/forfeit", headers=ADMIN_AUTH)
        assert answer.status_code == 400


class TestResign:
    """A player gives up with their own token (issue 19: players could not resign)."""

    def test_a_seat_resigns_and_the_other_wins(self, client):
        match = new_match(client)
        url = f"/v1/matches/{match['id']}"
        bob = bearer(match["seats"][1]["token"])
        response = client.post(url + "/resign", json={"reason": "had to go"}, headers=bob)
        assert response.status_code == 200, response.json
        view = response.json
        assert "hand" in view  # the seat's own view
        assert view["phase"] == "complete" and view["winner"] == 0
        assert view["ended"] == {"by": "forfeit", "seat": 1, "reason": "had to go",
                                 "initiator": "seat"}
        events = client.get(url + "/events", headers=ADMIN_AUTH).json["events"]
        assert [e["type"] for e in events[-3:]] == ["SeedRevealed", "MatchSeedRevealed",
                                                    "SeatForfeited"]
        assert events[-1]["command_id"].startswith("resign:1:")
        assert events[-3]["command"] == {"control": "forfeit", "seat": 1,
                                         "reason": "had to go", "by": "seat"}
        assert events[-1]["data"]["by"] == "seat"
        assert verified(client, match["id"])["final_phase"] == "complete"

    def test_the_reason_is_optional(self, client):
        match = new_match(client, "rummy", players=3)
        response = client.post(f"/v1/matches/{match['id']}/resign",
                               headers=bearer(match["seats"][0]["token"]))
        assert response.status_code == 200, response.json
        assert response.json["ended"]["reason"] == "resigned"
        forfeited = client.get(f"/v1/matches/{match['id']}/events",
                               headers=ADMIN_AUTH).json["events"][-1]["data"]
        assert forfeited["ranking"] == [1, 2, 0]
        verified(client, match["id"])

    def test_only_a_seat_token_resigns_and_only_while_the_match_runs(self, client):
        match = new_match(client)
        url = f"/v1/matches/{match['id']}/resign"
        organiser = client.post(url, json={}, headers=ADMIN_AUTH)
        assert (organiser.status_code, organiser.json["code"]) == (403, "seat_only")
        assert client.post(url, json={}).status_code == 401
        bad = client.post(url, json={"reason": "x\u202e"},
                          headers=bearer(match["seats"][0]["token"]))
        assert (bad.status_code, bad.json["code"]) == (400, "invalid_text")
        assert client.post(url, json={}, headers=bearer(match["seats"][0]["token"])
                           ).status_code == 200
        again = client.post(url, json={}, headers=bearer(match["seats"][1]["token"]))
        assert (again.status_code, again.json["code"]) == (422, "match_over")

    def test_a_token_that_holds_no_seat_of_the_match_is_a_403_as_for_actions(self, client):
        """A creator token, or another match's seat token, names somebody: it was a 401
        (counted as a failed authentication) where actions answer 403."""
        match, other = new_match(client), new_match(client)
        url = f"/v1/matches/{match['id']}"
        for token in (match["creator_token"], other["seats"][0]["token"]):
            for path, body in (("/resign", {}), ("/actions", {"type": "pass"})):
                answer = client.post(url + path, json=body, headers=bearer(token))
                assert (answer.status_code, answer.json["code"]) == (403, "forbidden"), path
        assert client.get(url).json["phase"] != "complete"

    def test_a_match_waiting_for_players_is_not_resigned(self, client):
        created = client.post("/v1/matches", json={
            "variant": "gin", "players": [{"name": "Ann"}, {"open": True}]}).json
        answer = client.post(f"/v1/matches/{created['id']}/resign", json={},
                             headers=bearer(created["seats"][0]["token"]))
        assert (answer.status_code, answer.json["code"]) == (409, "match_not_started")


class TestClockSettings:
    @pytest.mark.parametrize("clock", [{}, {"turn_seconds": None, "bank_seconds": None},
                                       {"turn_seconds": 0}, {"turn_seconds": -1},
                                       {"turn_seconds": "soon"}, {"bank_seconds": 10 ** 9},
                                       {"turn_seconds": 5, "on_timeout": "pray"},
                                       {"turn_seconds": 5, "extra": 1}])
    def test_a_bad_clock_is_a_400(self, client, clock):
        response = client.post("/v1/matches", json={
            "variant": "gin", "players": [{"name": "A"}, {"name": "B"}], "clock": clock})
        assert response.status_code == 400, response.json

    def test_a_match_without_a_clock_has_none(self, client):
        match = new_match(client)
        assert client.get(f"/v1/matches/{match['id']}").json.get("clock") is None

    def test_the_clock_comes_from_event_timestamps(self, redis_client, key_prefix):
        now = [1000.0]
        app = clocked_app(redis_client, key_prefix, lambda: now[0])
        stop_clock_timer(app)  # its deadlines are in 1970
        client = app.test_client()
        match = new_match(client, clock={"turn_seconds": 10, "bank_seconds": 30})
        url = f"/v1/matches/{match['id']}"
        clock = client.get(url).json["clock"]
        assert clock == {"turn_seconds": 10.0, "bank_seconds": 30.0, "on_timeout": "forfeit",
                         "turn_seat": 1, "turn_started_at": 1000.0, "turn_started_version": 4,
                         "deadline": 1040.0, "banks": [30.0, 30.0]}
        assert types(client, match["id"])[:4] == [
            "MatchCreated", "SeedCommitted", "ClockSet", "HandDealt"]
        now[0] = 1015.0  # Bob takes 15 s: 5 s over the turn limit come from his bank
        client.post(url + "/actions", json={"type": "pass"},
                    headers=bearer(match["seats"][1]["token"]))
        clock = client.get(url).json["clock"]
        assert clock["turn_seat"] == 0 and clock["turn_started_at"] == 1015.0
        assert clock["banks"] == [30.0, 25.0] and clock["deadline"] == 1055.0
        # the same clock from the log alone, and at an earlier version
        records = export(client, match["id"], ADMIN_AUTH)
        assert replayed_clock(records) == clock
        assert client.get(url + "/state?at=4").json["clock"]["deadline"] == 1040.0
        assert verify(records, VARIANTS).ok


def replayed_clock(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The clock recomputed from an export with the domain alone (``Match.apply``)."""
    match = Match.new(VARIANTS[records[0]["data"]["variant"]]).apply([
        Recorded(upcast(Event(r["type"], r["data"], r["schema"])), r["version"], r["ts"],
                 r["hash"]) for r in records])
    return None if match.clock is None else match.clock.to_view()


class TestTimeouts:
    def test_the_check_forfeits_only_after_the_deadline_and_only_once(self, redis_client,
                                                                     key_prefix):
        now = [time.time()]
        app = clocked_app(redis_client, key_prefix, lambda: now[0])
        client = app.test_client()
        stop_clock_timer(app)  # the test times out the turn itself
        wiring = app.extensions["rummy"]
        match = new_match(client, clock={"turn_seconds": 30})
        clock = client.get(f"/v1/matches/{match['id']}").json["clock"]
        turn, deadline = clock["turn_started_version"], clock["deadline"]
        now[0] = deadline + 0.5

        def time_out(at: float) -> tuple[Any, ...]:
            return wiring.obligations.pay(match["id"], DeadlineDue.kind, now=at).appended

        assert time_out(deadline - 1) == ()
        assert wiring.repository.get(match["id"]).owed() == (DeadlineDue(1, deadline, turn),)
        done = time_out(deadline + 0.5)
        assert [e.type for e in done] == ["SeedRevealed", "MatchSeedRevealed", "SeatForfeited"]
        assert done[0].command_id == f"clock:1:{turn}:forfeit"
        assert time_out(deadline + 60) == ()
        assert wiring.repository.get(match["id"]).owed() == ()
        view = client.get(f"/v1/matches/{match['id']}").json
        assert view["winner"] == 0 and view["ended"]["initiator"] == "clock"
        assert view["clock"]["turn_seat"] is None and view["clock"]["deadline"] is None
        verified(client, match["id"])

    def test_a_clock_move_before_the_deadline_does_not_verify(self, app, client):
        stop_clock_timer(app)
        match = new_match(client, clock={"turn_seconds": 30})
        clock = client.get(f"/v1/matches/{match['id']}").json["clock"]
        # a dishonest server times the seat out early (its own timestamp says so)
        app.extensions["rummy"].obligations.pay(match["id"], DeadlineDue.kind,
                                                now=clock["deadline"] + 1)
        report = verify(export(client, match["id"]), VARIANTS).to_dict()
        assert not report["ok"]
        rules = next(c for c in report["checks"] if c["name"] == "rules")
        assert "before its deadline" in rules["first_failure"]["reason"]

    def test_the_runner_forfeits_a_stalled_seat_within_the_limit(self, client):
        match = new_match(client, clock={"turn_seconds": 0.3})
        url = f"/v1/matches/{match['id']}"
        started = time.monotonic()
        view = wait_for(lambda: (v := client.get(url).json)["phase"] == "complete" and v)
        assert time.monotonic() - started < 3
        assert view["ended"] == {"by": "forfeit", "seat": 1, "reason": "time ran out",
                                 "initiator": "clock"}
        assert view["winner"] == 0
        verified(client, match["id"])

    def test_a_match_dealt_by_its_last_claim_times_its_first_turn(self, client):
        """Creation ends on the runner's follow-up path (``Match.owed``): a match that
        waited for its players has its first turn timed as soon as the last claim deals."""
        body = {"variant": "gin", "players": [{"name": "Ann"}, {"open": True}],
                "options": {"first_dealer": 0}, "clock": {"turn_seconds": 0.3}}
        match = client.post("/v1/matches", json=body).json
        url = f"/v1/matches/{match['id']}"
        claimed = client.post(f"{url}/seats/1/claim", json={"name": "Bob"})
        assert claimed.status_code == 201, claimed.json
        view = wait_for(lambda: (v := client.get(url).json)["phase"] == "complete" and v)
        assert view["ended"]["initiator"] == "clock" and view["ended"]["seat"] == 1

    def test_the_runner_auto_plays_for_a_stalled_seat(self, app, client):
        match = new_match(client, clock={"turn_seconds": 0.2, "on_timeout": "auto_play"})
        url = f"/v1/matches/{match['id']}"

        def auto_moves() -> list[dict[str, Any]]:
            events = client.get(url + "/events", headers=ADMIN_AUTH).json["events"]
            return [e for e in events if (e["command_id"] or "").startswith("clock:")]

        moves = wait_for(lambda: len(auto_moves()) >= 4 and auto_moves())
        stop_clock_timer(app)
        actions = [m["command"]["action"] for m in moves[:4]]
        assert actions[:3] == [{"type": "pass"}, {"type": "pass"},
                               {"type": "draw", "source": "stock"}]
        assert actions[3]["type"] == "discard"
        assert all(m["command"]["auto"] for m in moves)
        view = client.get(url).json
        assert view["phase"] in ("draw", "discard") and "ended" not in view
        records = export(client, match["id"], ADMIN_AUTH)
        assert verify(records, VARIANTS).ok


    @pytest.mark.parametrize("variant", ["gem", "rummy"])
    def test_auto_play_in_other_variants_draws_from_stock_then_discards(
            self, redis_client, key_prefix, variant):
        """The stalled seat's turn is timed out by the test, twice: the first timeout
        draws from the stock, the second discards (never a joker)."""
        now = [time.time()]
        app = clocked_app(redis_client, key_prefix, lambda: now[0])
        client = app.test_client()
        stop_clock_timer(app)
        obligations = app.extensions["rummy"].obligations
        match = new_match(client, variant, players=3,
                          clock={"turn_seconds": 30, "on_timeout": "auto_play"})
        url = f"/v1/matches/{match['id']}"
        seat = client.get(url).json["turn"]
        hand = client.get(url, headers=bearer(match["seats"][seat]["token"])).json["hand"]

        def auto_moves() -> list[dict[str, Any]]:
            events = client.get(url + "/events", headers=ADMIN_AUTH).json["events"]
            return [e["command"] for e in events
                    if (e["command_id"] or "").startswith("clock:") and e["command"]]

        while len(auto_moves()) < 2:
            now[0] = client.get(url).json["clock"]["deadline"] + 0.5
            assert obligations.pay(match["id"], DeadlineDue.kind, now=now[0]).appended
        moves = auto_moves()
        assert moves[0] == {"seat": seat, "action": {"type": "draw", "source": "stock"},
                            "auto": True}
        assert moves[1]["seat"] == seat
        discarded = moves[1]["action"]
        assert discarded["type"] == "discard" and discarded["card"] != "JK"
        if variant == "rummy":  # the highest-valued card it held (ace 11, faces 10)
            value = {"A": 11, "T": 10, "J": 10, "Q": 10, "K": 10}
            worth = [value.get(c[0], 0) or int(c[0]) for c in hand if c != "JK"]
            card = discarded["card"]
            assert (value.get(card[0], 0) or int(card[0])) >= max(worth)
        assert verify(export(client, match["id"], ADMIN_AUTH), VARIANTS).ok


class TestReconciledClocks:
    def test_the_reconciler_times_the_turn_out_at_its_indexed_deadline(self, redis_client,
                                                                       key_prefix):
        settings = Settings(redis_url="redis://unused", admin_token=ADMIN,
                            key_prefix=key_prefix)
        app = create_app(settings, client=redis_client, jobs_inline=False)
        wiring = app.extensions["rummy"]
        client = app.test_client()
        match = new_match(client, clock={"turn_seconds": 0.5})
        clock = client.get(f"/v1/matches/{match['id']}").json["clock"]
        index = wiring.index
        assert redis_client.zscore(index.key(DeadlineDue.kind), match["id"]) == clock["deadline"]
        reconciler = Reconciler(index, wiring.obligations)
        assert reconciler.tick() == 0  # not due yet: nothing claimed
        time.sleep(max(0.0, clock["deadline"] + 0.05 - time.time()))
        assert reconciler.tick() == 1
        view = client.get(f"/v1/matches/{match['id']}").json
        assert view["phase"] == "complete" and view["ended"]["initiator"] == "clock"
        assert index.pending(DeadlineDue.kind) == 0  # the match has no running turn any more
        verified(client, match["id"])


def test_clock_settings_round_trip() -> None:
    settings = ClockSettings.parse({"bank_seconds": 60, "on_timeout": "auto_play"})
    assert ClockSettings.parse(settings.to_dict()) == settings
    clock = Clock.start(settings, 2).step(0, 100.0, 4)
    assert clock.deadline == 160.0
    assert clock.step(1, 130.0, 5).banks == (30.0, 60.0)
