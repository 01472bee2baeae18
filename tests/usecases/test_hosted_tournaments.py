"""Tournaments the server hosts, through the use cases: created by an organiser, their
rounds paired, their tables opened as matches, results recorded as matches end and the
next round paired, all as owed work on the same runner as matches."""

from __future__ import annotations

import json
from typing import Any

import pytest

from domain.tournaments.tournament import Entrant, table_match_id
from service.bootstrap import Wiring
from service.credentials import token_hash
from service.ports import ADMIN as ADMIN_OWNER
from service.ports import RatingRecord
from service.usecases.errors import Forbidden, Invalid, NotFound, Unauthenticated
from service.usecases.tournament_progress import player_of
from tests.usecases.conftest import ADMIN
from workers.reconciler import Reconciler


def bots(count: int, level: str = "basic") -> list[dict[str, Any]]:
    return [{"bot": level} for _ in range(count)]


def create(wiring: Wiring, **body: Any) -> dict[str, Any]:
    return wiring.hosted.create({"variant": "gin", "options": {"target": 10},
                                 **body}, ADMIN)


def test_a_bot_round_robin_is_played_to_its_end(inline):
    made = create(inline, format="round_robin", players=bots(4))
    tournament = inline.hosted.get(made["id"])
    assert tournament["status"] == "complete" and tournament["round"] == 3
    for number in (1, 2, 3):
        played = inline.hosted.round(made["id"], number)
        assert played["completed"] and all(table["finished"] for table in played["tables"])
        for table in played["tables"]:
            assert table["match_id"] == table_match_id(made["id"], number, table["table"])
            assert inline.queries.is_over(table["match_id"])
    standings = tournament["standings"]
    assert sum(row["points"] for row in standings) == 6  # six matches, a point each
    assert [row["played"] for row in standings] == [3] * 4


def test_every_pair_meets_once_in_a_round_robin(inline):
    made = create(inline, format="round_robin", players=bots(5))
    met = set()
    for number in range(1, inline.hosted.get(made["id"])["round"] + 1):
        for table in inline.hosted.round(made["id"], number)["tables"]:
            pair = frozenset(seat["entrant"] for seat in table["seats"])
            assert pair not in met
            met.add(pair)
    assert len(met) == 10


def test_a_swiss_plays_its_rounds(inline):
    made = create(inline, format="swiss", rounds=3, players=bots(6))
    tournament = inline.hosted.get(made["id"])
    assert tournament["status"] == "complete" and tournament["round"] == 3


def test_a_person_finds_their_table_with_their_player_token(queued):
    made = queued.hosted.create({"variant": "gin", "format": "round_robin",
                                 "players": [{"name": "Ann"}, {"name": "Bob"}]}, ADMIN)
    ann = made["entrants"][0]["token"]
    assert queued.hosted.me(made["id"], ann)["table"] is None  # paired, not opened yet
    assert queued.obligations.pay(made["id"], "tournaments").appended  # the tables open
    me = queued.hosted.me(made["id"], ann)
    assert me["name"] == "Ann" and me["table"]["seat"] == 0
    assert queued.access.holds_seat(me["table"]["match_id"], 0, token_hash(ann))


def test_only_an_organiser_creates_one(queued):
    with pytest.raises(Unauthenticated):
        queued.hosted.create({"variant": "gin", "players": bots(2)}, None)
    with pytest.raises(Forbidden):
        queued.hosted.create({"variant": "gin", "players": bots(2)}, "nobody's token")


@pytest.mark.parametrize(("body", "field"), [
    ({"format": "knockout"}, "format"),
    ({"table_size": 3, "format": "single_elimination", "variant": "rummy", "options": {}},
     "table_size"),
    ({"rounds": 2, "format": "round_robin"}, "rounds"),
    ({"tie_breaks": ["buchholz", "buchholz"]}, "tie_breaks"),
    ({"variant": "canasta"}, "variant"),
    ({"table_size": 5}, "table_size"),
    ({"format": "arena"}, "minutes"),
    ({"minutes": 5}, "minutes"),
])
def test_a_bad_body_names_its_field(queued, body, field):
    with pytest.raises(Invalid) as refused:
        create(queued, players=bots(4), **body)
    assert field in refused.value.errors


def test_an_unknown_tournament_is_not_found_and_no_match_is_a_tournament(queued):
    with pytest.raises(NotFound):
        queued.hosted.get("t-nothing")
    made = create(queued, format="round_robin", players=bots(2))
    with pytest.raises(NotFound):
        queued.repository.get(made["id"])  # a tournament's id names no match


def test_the_organisers_feed_tells_every_round_and_the_end(inline):
    made = create(inline, format="round_robin", players=bots(3))
    kinds = [json.loads(text)["kind"]
             for _, text in inline.streams.feed.after(ADMIN_OWNER, "0", 1000)]
    assert kinds.count("round_paired") == 3 and kinds.count("round_completed") == 3
    assert kinds.count("tournament_match_recorded") == 3
    assert kinds[-1] == "tournament_completed"
    paired = next(json.loads(text) for _, text in inline.streams.feed.after(
        ADMIN_OWNER, "0", 1000) if json.loads(text)["kind"] == "round_paired")
    assert paired["tournament_id"] == made["id"]
    assert {"entrant", "name", "external_id"} <= set(paired["data"]["tables"][0]["seats"][0])


def test_a_withdrawal_before_the_tables_open_forfeits_at_the_next_look(queued):
    made = queued.hosted.create({"variant": "gin", "format": "round_robin",
                                 "players": [{"name": "Ann"}, {"name": "Bob"}]}, ADMIN)
    queued.hosted.withdraw(made["id"], ADMIN, {"entrant": 1, "reason": "gone"})
    queued.obligations.pay(made["id"], "tournaments")  # opens the table...
    queued.obligations.pay(made["id"], "tournaments")  # ...and forfeits Bob's seat there
    first = queued.hosted.round(made["id"], 1)
    assert first["tables"][0]["finished"] and first["tables"][0]["seats"][0]["points"] == 1.0
    assert queued.hosted.get(made["id"])["status"] == "complete"


def test_every_result_rates_its_players_once(inline):
    made = create(inline, format="round_robin", players=[
        {"bot": "expert"}, {"bot": "basic"}, {"bot": "random"}])
    board = inline.hosted.ratings("gin", 0, 10)
    assert board["total"] == 3 and {p["player"] for p in board["players"]} == {
        "bot:expert", "bot:basic", "bot:random"}
    assert all(p["games"] == 2 for p in board["players"])  # everyone played two tables
    assert [p["rating"] for p in board["players"]] == sorted(
        (p["rating"] for p in board["players"]), reverse=True)
    tournament = inline.hosted.repository.get(made["id"])
    assert tournament.state.rated == 3 and tournament.owed() == ()


def test_a_rating_payment_repeated_after_a_crash_rates_nothing_twice(queued):
    made = create(queued, format="round_robin", players=[{"name": "Ann"}, {"bot": "basic"}])
    queued.obligations.pay(made["id"], "tournaments")  # the table opens
    match_id = queued.hosted.round(made["id"], 1)["tables"][0]["match_id"]
    queued.hosted.tables.forfeit(match_id, 0)  # Ann's seat forfeits: a result, not rated
    queued.obligations.pay(made["id"], "tournaments")
    assert queued.obligations.pay(made["id"], "ratings").appended
    assert queued.hosted.ratings("gin", 0, 10)["total"] == 0  # forfeits are not rated
    tournament = queued.hosted.repository.get(made["id"])
    state = tournament.state
    context = queued.hosted.repository.context(made["id"])
    players = [("name:ann", "Ann"), ("bot:basic", "Basic bot")]

    def first(before: list[RatingRecord | None]) -> list[RatingRecord]:
        return [RatingRecord(p, n, 30.0, 5.0, 1) for p, n in players]

    assert context.ratings.apply("gin", f"{state.settings.id}:9", players, first)
    assert not context.ratings.apply("gin", f"{state.settings.id}:9", players, first)
    assert queued.hosted.ratings("gin", 0, 10)["total"] == 2


def test_an_unknown_variant_has_no_ratings(queued):
    with pytest.raises(NotFound):
        queued.hosted.ratings("canasta", 0, 10)


def test_a_person_is_rated_by_external_id_else_by_name_and_a_bot_by_level():
    assert player_of(Entrant("Ann", "a-1")) == ("id:a-1", "Ann")
    assert player_of(Entrant("Ann")) == ("name:ann", "Ann")
    assert player_of(Entrant("Basic bot 3", bot="basic")) == ("bot:basic", "Basic bot")


def test_a_table_whose_opening_died_after_its_match_was_stored_is_played_all_the_same(
        queued, clock, monkeypatch):
    """A worker killed after a table's match was stored, before its first turn was noted
    as owed: the next payment finds the match and finishes its creation, so the bots play
    it and the round can end."""
    made = create(queued, format="round_robin", players=bots(2))
    creation = queued.hosted.tables.creation

    def killed(*args: Any) -> None:
        raise SystemExit("killed")

    with monkeypatch.context() as patched:
        patched.setattr(creation.runner, "created", killed)
        with pytest.raises(SystemExit):
            queued.obligations.pay(made["id"], "tournaments")
    match_id = table_match_id(made["id"], 1, 0)
    assert queued.repository.meta(match_id) is not None  # stored, its bots not yet due
    assert queued.index.pending("bots") == 0

    queued.obligations.pay(made["id"], "tournaments")  # the next worker's payment
    assert queued.index.pending("bots") == 1
    reconciler = Reconciler(queued.index, queued.obligations, now=clock)
    while reconciler.tick():
        pass
    assert queued.repository.get(match_id).is_over
    assert queued.hosted.get(made["id"])["status"] == "complete"
