"""Computer players over HTTP: seating bots at creation, in the lobby and in batches;
playing against them to the end of a match in every variant; all-bot matches; bot seats
that no token can act for; and bot moves that verify like anybody's.

The app pays what a write makes due at once before answering (``jobs_inline``), so a
bot's reply is in the log when the person's move answers, and an all-bot match has been
played out when its creation answers. How bots play is ``domain.bots``' business; the
people here play ``keen_move``, which knocks and lays down whenever it may.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain import bots
from domain.audit import verify
from domain.bots.expert.budget import DEFAULT_MS, MAX_MS
from domain.bots.policies import discarding, keen, of_type
from domain.variants import VARIANTS
from tests.domain.test_audit import rehash_from
from tests.service.conftest import ADMIN_AUTH, bearer
from tests.service.test_audit_api import export, verification

SEATS = {"gin": (2, 3, 4), "gem": (2, 3), "rummy": (2, 3, 4, 5, 6), "rami": (2, 3, 4, 5, 6)}
SHORT = {"gin": {"target": 1}, "gem": {"target": 1}, "rummy": {"rounds": 1},
         "rami": {"rounds": 1}}
"""Options that end a match after its first decided hand (gin, gem) or round."""
PLACING = ("big_gin", "knock", "lay_down", "lay_off")


def keen_move(legal: list[dict[str, Any]], best: list[str], rng: random.Random
              ) -> dict[str, Any]:
    """A person keen to end the hand: it knocks and lays down whenever it may, discards a
    card of its least deadwood, and otherwise plays at random."""
    return keen(rng, legal, (of_type(*PLACING), 1.0), (discarding(best), 1.0))


def seated(variant: str, seats: int) -> list[dict[str, Any]]:
    """Bots of every level at a table that ends in reasonable time: random bots seldom
    knock, so a knock game's table has none of them (rummy's random bots still go out)."""
    levels = bots.LEVELS if variant in ("rummy", "rami") else ("basic", "expert")
    return [{"bot": levels[n % len(levels)]} for n in range(seats)]


def create(client: FlaskClient, variant: str, players: list[dict[str, Any]],
           auth: dict[str, str] | None = None, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/matches", headers=auth or {}, json={
        "variant": variant, "players": players, "options": SHORT[variant], **body})
    assert response.status_code == 201, response.json
    return response.json


def view(client: FlaskClient, match: dict[str, Any], token: str | None = None
         ) -> dict[str, Any]:
    answer = client.get(f"/v1/matches/{match['id']}", headers=bearer(token) if token else {})
    assert answer.status_code == 200, answer.json
    return answer.json


def log(client: FlaskClient, match: dict[str, Any]) -> list[dict[str, Any]]:
    return client.get(f"/v1/matches/{match['id']}/events", headers=ADMIN_AUTH).json["events"]


def bot_commands(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if (e["command"] or {}).get("bot")]


def play_people(client: FlaskClient, match: dict[str, Any], seed: int = 1,
                moves: int = 2000) -> Iterator[dict[str, Any]]:
    """Play every person's seat keenly until the match is over; yields each answer. The
    bots' replies come within each answer (``jobs_inline``), so a person is always the
    one on turn while the match goes on."""
    tokens = {s["seat"]: s["token"] for s in match["seats"] if s["token"]}
    rng = random.Random(seed)
    for _ in range(moves):
        public = view(client, match)
        if public["phase"] in ("complete", "aborted"):
            return
        seat = public["turn"]
        assert seat in tokens, f"a bot's turn was left unplayed: {public['seats']}"
        mine = view(client, match, tokens[seat])
        action = keen_move(mine["legal_actions"],
                           (mine.get("best_discard") or {}).get("cards", []), rng)
        answer = client.post(f"/v1/matches/{match['id']}/actions", json=action,
                             headers=bearer(tokens[seat]))
        assert answer.status_code == 200, (action, answer.json)
        yield answer.json
    raise AssertionError("the match did not end")


# --- seating bots ---------------------------------------------------------------------


@pytest.mark.parametrize("variant, seats", [(v, n) for v, counts in SEATS.items()
                                            for n in counts])
def test_bots_take_any_seats_of_every_variant(client, variant, seats):
    players = [{"name": "Ann"}, *({"bot": bots.LEVELS[n % 3]} for n in range(seats - 1))]
    match = create(client, variant, players)
    assert [s["token"] is None for s in match["seats"]] == [False] + [True] * (seats - 1)
    assert [s["bot"] for s in match["seats"]] == [None] + [
        shown(bots.LEVELS[n % 3]) for n in range(seats - 1)]
    assert len({s["name"] for s in match["seats"]}) == seats
    public = view(client, match)
    assert [s["bot"] for s in public["seats"]] == [s["bot"] for s in match["seats"]]
    assert public["turn"] in (0, None)  # the bots have played up to the person's turn
    seated = next(e for e in log(client, match) if e["type"] == "BotsSeated")
    assert seated["data"] == {"seats": [{"seat": n, **shown(bots.LEVELS[(n - 1) % 3])}
                                        for n in range(1, seats)]}


def shown(level: str, think_ms: int = 0) -> dict[str, Any]:
    """A bot seat as views and the log show it: an expert's with its (default) budget."""
    budget = {"budget_ms": DEFAULT_MS} if level == "expert" else {}
    return {"level": level, "think_ms": think_ms, **budget}


def test_the_log_seats_bots_right_after_the_clock_and_the_seed_commitment(client):
    match = create(client, "gin", [{"name": "Ann"}, {"bot": "expert", "think_ms": 250}],
                   clock={"turn_seconds": 30})
    types = [e["type"] for e in log(client, match)]
    assert types[:5] == ["MatchCreated", "SeedCommitted", "ClockSet", "BotsSeated",
                         "HandDealt"]
    assert match["seats"][1]["bot"] == shown("expert", think_ms=250)


def test_bots_are_named_by_their_level_and_numbered_to_keep_names_distinct(client):
    match = create(client, "rummy", [{"name": "Basic bot"}, {"bot": "basic"},
                                     {"bot": "basic"}, {"bot": "random", "name": "Robo"},
                                     {"bot": "expert"}])
    assert [s["name"] for s in match["seats"]] == ["Basic bot", "Basic bot 2", "Basic bot 3",
                                                   "Robo", "Expert bot"]


class TestRefusedBots:
    def refused(self, client, *players: dict[str, Any]) -> tuple[int, str, Any]:
        answer = client.post("/v1/matches", json={"variant": "gin", "players": [
            {"name": "Ann"}, *players]})
        return answer.status_code, answer.json["code"], answer.json.get("errors")

    def test_an_unknown_level_is_refused_naming_the_levels(self, client):
        status, code, errors = self.refused(client, {"bot": "grandmaster"})
        assert (status, code) == (400, "invalid_bot")
        assert "random" in errors["players.1.bot"][0] and "expert" in errors["players.1.bot"][0]

    @pytest.mark.parametrize("think_ms", [-1, 5001, 10**9])
    def test_a_think_time_out_of_bounds_is_refused(self, client, think_ms):
        status, code, errors = self.refused(client, {"bot": "basic", "think_ms": think_ms})
        assert (status, code, list(errors)) == (400, "invalid_bot", ["players.1.think_ms"])

    @pytest.mark.parametrize("player", [{"bot": "basic", "think_ms": 1.5},
                                        {"bot": "basic", "think_ms": True},
                                        {"bot": "basic", "think_ms": "fast"},
                                        {"bot": 3}, {"bot": "basic", "entropy": "x"},
                                        {"bot": "basic", "open": True}])
    def test_a_malformed_bot_seat_is_refused_by_the_schema(self, client, player):
        status, code, errors = self.refused(client, player)
        assert (status, code) == (400, "invalid_request") and errors

    @pytest.mark.parametrize("budget_ms", [0, -5, MAX_MS + 1])
    def test_an_experts_budget_out_of_bounds_is_refused(self, client, budget_ms):
        status, code, errors = self.refused(client, {"bot": "expert", "budget_ms": budget_ms})
        assert (status, code, list(errors)) == (400, "invalid_bot", ["players.1.budget_ms"])

    @pytest.mark.parametrize("level", ["random", "basic"])
    def test_a_budget_on_a_level_that_does_not_search_is_refused(self, client, level):
        status, code, errors = self.refused(client, {"bot": level, "budget_ms": 100})
        assert (status, code) == (400, "invalid_bot")
        assert "expert" in errors["players.1.budget_ms"][0]

    @pytest.mark.parametrize("budget_ms", [1.5, True, "slow"])
    def test_a_malformed_budget_is_refused_by_the_schema(self, client, budget_ms):
        status, code, errors = self.refused(client, {"bot": "expert", "budget_ms": budget_ms})
        assert (status, code) == (400, "invalid_request") and errors

    def test_a_bot_named_like_another_seat_is_refused(self, client):
        status, code, errors = self.refused(client, {"bot": "basic", "name": "ANN "})
        assert (status, code, list(errors)) == (400, "name_taken", ["players.1.name"])


# --- playing against bots --------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(SEATS))
@pytest.mark.parametrize("level", bots.LEVELS)
def test_a_person_plays_a_bot_to_the_end_of_a_match(client, variant, level):
    """Ann deals in the knock games, so the bot acts first and a hand Ann knocks at once
    still shows the bot's moves."""
    options = dict(SHORT[variant], **({"first_dealer": 0} if variant in ("gin", "gem") else {}))
    match = create(client, variant, [{"name": "Ann"}, {"bot": level}], options=options)
    for answer in play_people(client, match):
        assert answer["seat"] == 0
    final = view(client, match)
    assert final["phase"] == "complete"
    moved = bot_commands(log(client, match))
    assert moved and {e["command"]["seat"] for e in moved} == {1}
    assert {e["command_id"].split(":")[:3] == ["seat1", "bot", level] for e in moved} == {True}


@pytest.mark.parametrize("variant", sorted(SEATS))
def test_an_all_bot_match_plays_itself_out(client, variant):
    match = create(client, variant, seated(variant, SEATS[variant][-1]))
    assert view(client, match)["phase"] == "complete"  # before its creation answered
    events = log(client, match)
    moves = [e for e in events if e["command"] and "action" in e["command"]]
    assert moves and moves == bot_commands(events)


def test_a_random_all_bot_rummy_match_plays_itself_out(client):
    match = create(client, "rummy", [{"bot": "random"}, {"bot": "random"}])
    assert view(client, match)["phase"] == "complete"


def test_bot_moves_verify_online_and_offline_and_a_forged_bot_fails(client):
    match = create(client, "gin", [{"name": "Ann"}, {"bot": "basic"}])
    for _ in play_people(client, match):
        pass
    report = verification(client, match["id"])
    assert report["ok"], report
    records = export(client, match["id"])
    assert verify(records, VARIANTS).ok
    bot_move = next(r for r in records if (r["command"] or {}).get("bot"))
    person = next(r for r in records if r["command"] and "action" in r["command"]
                  and not r["command"].get("bot"))
    for forged, change in ((bot_move, lambda c: c.pop("bot")),
                           (bot_move, lambda c: c.update(bot="expert")),
                           (person, lambda c: c.update(bot="basic"))):
        tampered = copy.deepcopy(records)
        change(tampered[forged["version"] - 1]["command"])
        rehash_from(tampered, forged["version"])
        report_dict = verify(tampered, VARIANTS).to_dict()
        assert report_dict["first_failing_version"] == forged["version"], report_dict
        assert [c["name"] for c in report_dict["checks"] if not c["ok"]] == ["rules"]


def test_a_log_that_seats_a_bot_after_the_creation_fails(client):
    match = create(client, "gin", [{"name": "Ann"}, {"bot": "basic"}])
    for _ in play_people(client, match):
        pass
    records = copy.deepcopy(export(client, match["id"]))
    at = next(n for n, r in enumerate(records) if (r["command_id"] or "").startswith("seat0:"))
    seating = {**records[at], "type": "BotsSeated", "schema": 1, "command": None,
               "data": {"seats": [{"seat": 0, "level": "basic", "think_ms": 0}]}}
    records.insert(at + 1, seating)
    for version, record in enumerate(records, 1):
        record["version"] = version
    rehash_from(records, at + 2)
    report = verify(records, VARIANTS).to_dict()
    assert report["first_failing_version"] == at + 2
    rules = next(c for c in report["checks"] if c["name"] == "rules")
    assert "BotsSeated after the match's creation" in rules["first_failure"]["reason"]


# --- nobody acts for a bot -------------------------------------------------------------


@pytest.fixture
def thinking(client) -> dict[str, Any]:
    """Gin, Ann against a bot that thinks 5 s and is on turn (offered the upcard)."""
    match = create(client, "gin", [{"name": "Ann"}, {"bot": "basic", "think_ms": 5000}],
                   auth=ADMIN_AUTH, options={"first_dealer": 0})
    assert view(client, match)["turn"] == 1
    return match


def test_a_bot_seat_has_no_token_and_no_token_acts_for_it(client, thinking):
    url = f"/v1/matches/{thinking['id']}"
    ann, creator = bearer(thinking["seats"][0]["token"]), bearer(thinking["creator_token"])
    assert thinking["seats"][1]["token"] is None
    refusals = {
        "ann": client.post(f"{url}/actions", json={"type": "pass"}, headers=ann),
        "creator": client.post(f"{url}/actions", json={"type": "pass"}, headers=creator),
        "admin": client.post(f"{url}/actions", json={"type": "pass"}, headers=ADMIN_AUTH),
        "nobody": client.post(f"{url}/actions", json={"type": "pass"}),
        "made up": client.post(f"{url}/actions", json={"type": "pass"},
                               headers=bearer("not-a-token")),
        "creator resigns": client.post(f"{url}/resign", json={}, headers=creator),
        "admin resigns": client.post(f"{url}/resign", json={}, headers=ADMIN_AUTH),
    }
    assert {who: (r.status_code, r.json["code"]) for who, r in refusals.items()} == {
        "ann": (422, "not_your_turn"), "creator": (403, "forbidden"),
        "admin": (403, "forbidden"), "nobody": (401, "missing_token"),
        "made up": (401, "invalid_token"), "creator resigns": (403, "forbidden"),
        "admin resigns": (403, "seat_only")}
    assert view(client, thinking)["version"] == thinking["version"]  # nothing appended


def test_a_bot_seat_is_never_given_a_token(client, thinking):
    url = f"/v1/matches/{thinking['id']}/seats/1/token"
    for auth in (bearer(thinking["creator_token"]), ADMIN_AUTH):
        answer = client.post(url, headers=auth)
        assert (answer.status_code, answer.json["code"]) == (409, "bot_seat")
    assert client.post(f"/v1/matches/{thinking['id']}/seats/0/token",
                       headers=ADMIN_AUTH).status_code == 200


def test_the_organiser_forfeits_or_aborts_a_match_with_bots(client, thinking):
    forfeited = client.post(f"/v1/matches/{thinking['id']}/forfeit", headers=ADMIN_AUTH,
                            json={"seat": 1, "reason": "bot withdrawn"})
    assert forfeited.status_code == 200, forfeited.json
    assert forfeited.json["ended"]["seat"] == 1 and forfeited.json["phase"] == "complete"
    other = create(client, "rummy", [{"name": "Ann"}, {"bot": "basic", "think_ms": 5000},
                                     {"name": "Bob"}], auth=ADMIN_AUTH)
    aborted = client.post(f"/v1/matches/{other['id']}/abort", headers=ADMIN_AUTH,
                          json={"reason": "closing"})
    assert aborted.status_code == 200 and aborted.json["phase"] == "aborted"


def test_a_clocked_bot_moves_well_before_its_deadline(client):
    match = create(client, "gin", [{"name": "Ann"}, {"bot": "random"}],
                   options={"first_dealer": 0}, clock={"turn_seconds": 30,
                                                       "on_timeout": "auto_play"})
    public = view(client, match)
    assert public["turn"] == 0 and public["clock"]["turn_seat"] == 0
    commands = [e["command_id"] for e in log(client, match) if e["command"]]
    assert commands and all(c.startswith("seat1:bot:random:") for c in commands)


# --- the lobby and batches ---------------------------------------------------------------


def test_the_lobby_holds_bot_seats_beside_open_ones(client):
    match = create(client, "rummy", [{"open": True}, {"bot": "basic"}, {"name": "Ann"}])
    assert match["status"] == "waiting"
    assert [(s["open"], s["token"] is None, s["bot"]) for s in match["seats"]] == [
        (True, True, None), (False, True, {"level": "basic", "think_ms": 0}),
        (False, False, None)]
    listed = client.get("/v1/lobby?variant=rummy").json["matches"]
    assert [s["bot"] for s in listed[0]["seats"]] == [None, {"level": "basic",
                                                             "think_ms": 0}, None]
    assert listed[0]["open_seats"] == 1
    url = f"/v1/matches/{match['id']}/seats"
    taken = client.post(f"{url}/1/claim", json={"name": "Cy"})
    assert (taken.status_code, taken.json["code"]) == (409, "seat_taken")
    named = client.post(f"{url}/0/claim", json={"name": "basic BOT"})
    assert (named.status_code, named.json["code"]) == (409, "name_taken")
    claimed = client.post(f"{url}/0/claim", json={"name": "Cy"})
    assert claimed.status_code == 201 and claimed.json["started"] is True
    seated = next(e for e in log(client, match) if e["type"] == "BotsSeated")
    assert seated["data"]["seats"] == [{"seat": 1, "level": "basic", "think_ms": 0}]
    started = {"seats": [{"seat": 0, "token": claimed.json["token"]},
                         {"seat": 1, "token": None},
                         {"seat": 2, "token": match["seats"][2]["token"]}], "id": match["id"]}
    for _ in play_people(client, started):
        pass
    assert bot_commands(log(client, match))


def test_a_batch_seats_bots_and_a_duplicate_table_rotates_them(client):
    club = ADMIN_AUTH
    table = {"variant": "gin", "players": [{"name": "Ann"}, {"bot": "expert"}],
             "options": {"first_dealer": 0}}
    response = client.post("/v1/batches", headers=club,
                           json={"matches": [table, table], "duplicate": True})
    assert response.status_code == 201, response.json
    first, second = response.json["matches"]
    assert [(s["name"], s["token"] is None) for s in first["seats"]] == [
        ("Ann", False), ("Expert bot", True)]
    assert [(s["name"], s["token"] is None) for s in second["seats"]] == [
        ("Expert bot", True), ("Ann", False)]
    batch = client.get(f"/v1/batches/{response.json['id']}", headers=club).json
    assert [[p["bot"] for p in m["players"]] for m in batch["matches"]] == [
        [None, shown("expert")], [shown("expert"), None]]
    bad = client.post("/v1/batches", headers=club, json={"matches": [
        table, {**table, "players": [{"name": "Ann"}, {"bot": "master"}]}]})
    assert (bad.status_code, bad.json["code"]) == (400, "invalid_bot")
    assert list(bad.json["errors"]) == ["matches.1.players.1.bot"]
