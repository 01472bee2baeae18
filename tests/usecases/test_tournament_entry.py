"""Tournaments open for entry (listed, joined, started by the organiser or at their start
time), the break between a round's pairing and its tables, a round paired again in that
break, and duplicate deals, through the use cases on real mode's wiring."""

from __future__ import annotations

import json
from typing import Any

import pytest

from domain.tournaments.audit import verify_tournament
from domain.tournaments.tournament import TOO_FEW_REASON, table_match_id
from domain.variants import VARIANTS
from service.bootstrap import Wiring
from service.credentials import token_hash
from service.usecases.errors import Forbidden, Invalid
from tests.usecases.conftest import ADMIN, Clock


def open_tournament(wiring: Wiring, **more: Any) -> dict[str, Any]:
    return wiring.hosted.create({"variant": "gin", "format": "swiss", "players": [],
                                 "registration": {"max_players": 8}, **more}, ADMIN)


def enter(wiring: Wiring, tournament_id: str, *names: str) -> list[str]:
    return [wiring.hosted.join(tournament_id, {"name": name})["token"] for name in names]


def listed(wiring: Wiring) -> list[str]:
    return [t["id"] for t in wiring.hosted.open_for_entry(None, 20, None)["tournaments"]]


def first_deck(wiring: Wiring, match_id: str) -> list[str]:
    dealt = next(e for e in wiring.repository.stored(match_id) if e.type == "HandDealt")
    return list(dealt.data["deck"])


class TestEntry:
    def test_players_find_it_in_the_lobby_join_and_play_with_their_token(self, queued):
        made = open_tournament(queued)
        assert made["status"] == "registering" and made["registration"]["open"]
        assert listed(queued) == [made["id"]]
        ann, bob = enter(queued, made["id"], "Ann", "Bob")
        assert queued.hosted.me(made["id"], bob)["entrant"] == 1
        started = queued.hosted.start(made["id"], ADMIN)
        assert started["status"] == "running" and started["rounds"] == 1
        assert listed(queued) == []
        queued.obligations.pay(made["id"], "tournaments")  # the tables open
        table = queued.hosted.me(made["id"], ann)["table"]
        assert queued.access.holds_seat(table["match_id"], table["seat"], token_hash(ann))

    def test_a_name_an_entrant_has_is_taken(self, queued):
        made = open_tournament(queued, players=[{"name": "Ann"}])
        with pytest.raises(Invalid) as refused:
            enter(queued, made["id"], "ann")
        assert refused.value.code == "name_taken"

    def test_a_full_or_started_tournament_takes_nobody(self, queued):
        made = open_tournament(queued, registration={"max_players": 2})
        enter(queued, made["id"], "Ann", "Bob")
        with pytest.raises(Exception) as full:
            enter(queued, made["id"], "Cid")
        assert getattr(full.value, "code", None) == "tournament_full"
        queued.hosted.start(made["id"], ADMIN)
        with pytest.raises(Exception) as closed:
            enter(queued, made["id"], "Cid")
        assert getattr(closed.value, "code", None) == "entry_closed"

    def test_only_its_owner_starts_it(self, queued):
        made = open_tournament(queued)
        with pytest.raises(Forbidden):
            queued.hosted.start(made["id"], "somebody's token")

    def test_it_starts_by_itself_at_its_start_time(self, queued, clock: Clock):
        made = open_tournament(queued, registration={"starts_at": clock.now + 300})
        enter(queued, made["id"], "Ann", "Bob", "Cid")
        queued.obligations.pay(made["id"], "tournaments")
        assert queued.hosted.get(made["id"])["status"] == "registering"  # not yet
        clock.now += 300
        queued.obligations.pay(made["id"], "tournaments")
        tournament = queued.hosted.get(made["id"])
        assert tournament["status"] == "running" and tournament["round"] == 1
        assert listed(queued) == []

    def test_with_one_entrant_at_its_start_time_it_is_called_off(self, queued, clock: Clock):
        made = open_tournament(queued, registration={"starts_at": clock.now + 60})
        enter(queued, made["id"], "Ann")
        clock.now += 60
        queued.obligations.pay(made["id"], "tournaments")
        assert queued.hosted.get(made["id"])["status"] == "aborted"
        export = "".join(queued.hosted.export(made["id"]))
        assert TOO_FEW_REASON in export and listed(queued) == []

    def test_an_entrant_who_leaves_before_the_start_is_not_paired(self, queued):
        made = open_tournament(queued)
        ann, _, _ = enter(queued, made["id"], "Ann", "Bob", "Cid")
        assert queued.hosted.leave(made["id"], ann)["withdrawn"]
        queued.hosted.start(made["id"], ADMIN)
        first = queued.hosted.round(made["id"], 1)
        assert sorted(s["name"] for t in first["tables"] for s in t["seats"]) == ["Bob", "Cid"]
        assert first["byes"] == []


class TestRoundBreak:
    def test_players_see_their_next_table_before_it_opens(self, queued, clock: Clock):
        made = queued.hosted.create({
            "variant": "gin", "format": "swiss", "rounds": 2, "round_break_s": 60,
            "players": [{"name": "Ann"}, {"name": "Bob"}]}, ADMIN)
        ann = made["entrants"][0]["token"]
        me = queued.hosted.me(made["id"], ann)
        assert me["table"] is None and me["upcoming"]["opens_at"] == clock.now + 60
        assert me["upcoming"]["opponents"] == [{"entrant": 1, "name": "Bob"}]
        assert not queued.obligations.pay(made["id"], "tournaments").appended
        clock.now += 60
        assert queued.obligations.pay(made["id"], "tournaments").appended
        assert queued.hosted.me(made["id"], ann)["table"]["seat"] == 0


class TestRepairing:
    def swiss(self, queued: Wiring, players: int = 4) -> dict[str, Any]:
        return queued.hosted.create({
            "variant": "gin", "format": "swiss", "rounds": 2, "round_break_s": 60,
            "players": [{"name": name} for name in ("Ann", "Bob", "Cid", "Dan")[:players]]},
            ADMIN)

    def test_a_round_is_paired_again_without_who_withdrew(self, queued, clock: Clock):
        made = self.swiss(queued)
        queued.hosted.withdraw(made["id"], ADMIN, {"entrant": 3, "reason": "ill"})
        again = queued.hosted.repair(made["id"], 1, ADMIN, {})
        assert again["pairings"] == 2 and len(again["tables"]) == 1
        assert [bye["name"] for bye in again["byes"]] == ["Cid"]
        clock.now += 60
        queued.obligations.pay(made["id"], "tournaments")
        match_id = again["tables"][0]["match_id"]
        assert match_id == table_match_id(made["id"], 1, 0, 2)
        assert queued.repository.meta(match_id) is not None

    def test_a_match_of_the_old_pairing_is_called_off(self, queued):
        made = self.swiss(queued)
        tournament = queued.hosted.repository.get(made["id"])
        old = tournament.state.rounds[0].tables[0]
        queued.hosted.tables.open(tournament, queued.hosted.repository.meta(made["id"]), old)
        placed = {"tables": [[0, 3], [1, 2]]}
        assert queued.hosted.repair(made["id"], 1, ADMIN, placed)["tables"][0]["seats"][1][
            "name"] == "Dan"
        assert queued.repository.get(old.match_id).is_over

    def test_an_opened_round_is_not_paired_again(self, queued, clock: Clock):
        made = self.swiss(queued)
        clock.now += 60
        queued.obligations.pay(made["id"], "tournaments")
        with pytest.raises(Exception) as refused:
            queued.hosted.repair(made["id"], 1, ADMIN, {})
        assert getattr(refused.value, "code", None) == "round_started"


class TestDuplicateDeals:
    def four(self, queued: Wiring, duplicate: bool) -> list[str]:
        made = queued.hosted.create({
            "variant": "gin", "format": "round_robin", "duplicate_deals": duplicate,
            "players": [{"name": name} for name in ("Ann", "Bob", "Cid", "Dan")]}, ADMIN)
        queued.obligations.pay(made["id"], "tournaments")
        return [table["match_id"] for table in queued.hosted.round(made["id"], 1)["tables"]]

    def test_every_table_of_a_round_is_dealt_the_same_cards(self, queued):
        first, second = self.four(queued, duplicate=True)
        assert first_deck(queued, first) == first_deck(queued, second)

    def test_without_them_each_table_is_shuffled_on_its_own(self, queued):
        first, second = self.four(queued, duplicate=False)
        assert first_deck(queued, first) != first_deck(queued, second)

    def test_the_verifier_checks_every_table_was_dealt_alike(self, queued):
        made = queued.hosted.create({
            "variant": "gin", "format": "round_robin", "duplicate_deals": True,
            "players": [{"name": name} for name in ("Ann", "Bob", "Cid", "Dan")]}, ADMIN)
        queued.obligations.pay(made["id"], "tournaments")
        first, second = [t["match_id"] for t in queued.hosted.round(made["id"], 1)["tables"]]
        for match_id in (first, second):
            queued.hosted.tables.forfeit(match_id, 1)
        queued.obligations.pay(made["id"], "tournaments")
        records = [json.loads(line) for line in queued.hosted.export(made["id"])]
        report = verify_tournament(records, VARIANTS)
        assert report.ok and report.checks["duplicate_deals"].checked >= 1
        other = self.four(queued, duplicate=False)[0]  # dealt on its own
        queued.hosted.tables.forfeit(other, 1)
        swapped = [r for r in records if r.get("match_id") != second] + [
            {**r, "match_id": second} for r in queued.hosted.matches.events(other, None)]
        assert verify_tournament(swapped, VARIANTS).checks["duplicate_deals"].failure
