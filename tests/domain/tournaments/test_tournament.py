"""A tournament as a fold of its log: what it owes, how it advances as its matches end,
and how an auditor replays it (``domain.tournaments.tournament`` and ``.audit``)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from domain.aggregate import Recorded
from domain.chain import GENESIS_HASH, event_hash
from domain.events import Event
from domain.tournaments import events as E
from domain.tournaments.audit import verify_tournament
from domain.tournaments.model import table_points
from domain.tournaments.results import TableOutcome
from domain.tournaments.tournament import (
    RatingsDue,
    Tournament,
    TournamentDue,
    advance,
    started,
    table_match_id,
)
from domain.variants import VARIANTS

T0 = 1_800_000_000.0


def settings(fmt: str, players: int, **more: Any) -> dict[str, Any]:
    return {"id": "t-1", "name": "Test", "variant": "gin", "options": {}, "format": fmt,
            "table_size": 2, "rounds": None, "tie_breaks": ["buchholz"], "clock": None,
            "entrants": [{"name": f"P{n}", "external_id": None, "bot": None}
                         for n in range(players)], "ends_at": None, **more}


class Log:
    """A tournament's log as the store keeps it: versions, times and the hash chain."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.tournament = Tournament()

    def append(self, events: Sequence[Event], ts: float) -> Tournament:
        recorded = []
        for event in events:
            prev = self.records[-1]["hash"] if self.records else GENESIS_HASH
            version = len(self.records) + 1
            digest = event_hash(version, event.type, event.schema, dict(event.data), None,
                                ts, prev)
            self.records.append({"version": version, "type": event.type,
                                 "schema": event.schema, "data": json.loads(json.dumps(
                                     dict(event.data))), "command_id": None, "ts": ts,
                                 "prev_hash": prev, "hash": digest})
            recorded.append(Recorded(event, version, ts, digest))
        self.tournament = self.tournament.apply(recorded)
        return self.tournament


def outcome(winner: int, seats: int = 2) -> TableOutcome:
    ranks = tuple(0 if seat == winner else 1 for seat in range(seats))
    return TableOutcome(ranks, table_points(ranks), tuple(float(10 - r) for r in ranks), False)


def play_out(log: Log, rng: random.Random, now: float = T0, limit: int = 200) -> Log:
    """Advance the tournament until it is over, each match won by a random seat."""
    for _ in range(limit):
        tournament = log.tournament
        if tournament.is_over:
            return log
        state = tournament.state
        assert state is not None
        outcomes = {table.match_id: outcome(rng.randrange(len(table.seats)), len(table.seats))
                    for table in state.playing}
        events = advance(tournament, outcomes, now)
        assert events, "a tournament that is not over always advances"
        log.append(events, now)
        now += 1
    raise AssertionError("the tournament did not end")


def new(fmt: str, players: int, **more: Any) -> Log:
    log = Log()
    log.append(started(settings(fmt, players, **more), T0), T0)
    return log


class TestOwed:
    def test_a_round_just_paired_owes_its_tables_opened_at_once(self):
        log = new("round_robin", 4)
        (owed,) = log.tournament.owed()
        assert owed == TournamentDue(1, True, tuple(
            table_match_id("t-1", 1, n) for n in (0, 1)))
        assert owed.due(T0) == T0

    def test_an_opened_round_waits_for_its_tables_still_playing(self):
        log = new("round_robin", 4)
        log.append(advance(log.tournament, {}, T0), T0)
        (owed,) = log.tournament.owed()
        assert not owed.open and len(owed.tables) == 2

    def test_a_tournament_that_is_over_owes_only_the_rating_of_its_results(self):
        log = play_out(new("round_robin", 3), random.Random(1))
        assert log.tournament.is_over
        assert log.tournament.owed() == (RatingsDue(0, 3),)
        log.append([E.RESULTS_RATED.event(upto=3)], T0)
        assert log.tournament.owed() == ()


class TestAdvance:
    def test_the_last_result_of_a_round_pairs_the_next_in_the_same_step(self):
        log = new("round_robin", 4)
        log.append(advance(log.tournament, {}, T0), T0)
        state = log.tournament.state
        assert state is not None
        first, second = state.playing
        events = advance(log.tournament, {first.match_id: outcome(0)}, T0)
        assert [e.type for e in events] == [E.MATCH_RECORDED.name]
        log.append(events, T0)
        events = advance(log.tournament, {second.match_id: outcome(1)}, T0)
        assert [e.type for e in events] == [E.MATCH_RECORDED.name, E.ROUND_COMPLETED.name,
                                            E.ROUND_PAIRED.name]
        assert events[-1].data["round"] == 2

    def test_advancing_twice_on_one_version_decides_the_same_events(self):
        log = new("swiss", 8, rounds=3)
        log.append(advance(log.tournament, {}, T0), T0)
        state = log.tournament.state
        assert state is not None
        outcomes = {t.match_id: outcome(0) for t in state.playing}
        assert advance(log.tournament, outcomes, T0) == advance(log.tournament, outcomes, T0)

    def test_match_ids_follow_from_tournament_round_and_table(self):
        ids = {table_match_id("t-1", r, t) for r in range(1, 6) for t in range(20)}
        assert len(ids) == 100 and table_match_id("t-1", 1, 0) != table_match_id("t-2", 1, 0)
        assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)

    def test_nothing_ended_is_nothing_to_append(self):
        log = new("round_robin", 4)
        log.append(advance(log.tournament, {}, T0), T0)
        assert advance(log.tournament, {}, T0) == []

    @pytest.mark.parametrize(("fmt", "players", "rounds"), [
        ("round_robin", 5, 5), ("double_round_robin", 4, 6), ("swiss", 9, 4),
        ("single_elimination", 6, 3), ("double_elimination", 5, None)])
    def test_every_format_plays_to_its_end(self, fmt, players, rounds):
        more = {"rounds": 4} if fmt == "swiss" else {}
        log = play_out(new(fmt, players, **more), random.Random(7))
        state = log.tournament.state
        assert state is not None and state.phase == "complete"
        if rounds is not None:
            assert len(state.rounds) == rounds
        completed = log.records[-1]
        assert completed["type"] == E.TOURNAMENT_COMPLETED.name
        assert sorted(row["entrant"] for row in completed["data"]["standings"]) == list(
            range(players))

    def test_a_withdrawn_entrant_is_paired_no_more(self):
        log = new("round_robin", 4)
        log.append(advance(log.tournament, {}, T0), T0)
        log.append([E.PLAYER_WITHDRAWN.event(entrant=3, reason="ill")], T0)
        state = log.tournament.state
        assert state is not None
        log.append(advance(log.tournament, {t.match_id: outcome(0) for t in state.playing},
                           T0), T0)
        state = log.tournament.state
        assert state is not None and len(state.rounds) == 2
        paired = state.rounds[1]
        assert all(3 not in table.seats for table in paired.tables) and 3 not in paired.byes


class TestArena:
    def test_whoever_finishes_is_paired_again_but_not_with_the_same_opponent(self):
        log = new("arena", 4, ends_at=T0 + 60)
        log.append(advance(log.tournament, {}, T0), T0)
        state = log.tournament.state
        assert state is not None
        first, second = state.playing
        events = advance(log.tournament, {first.match_id: outcome(0)}, T0 + 10)
        assert [e.type for e in events] == [E.MATCH_RECORDED.name]  # they would rematch
        log.append(events, T0 + 10)
        events = advance(log.tournament, {second.match_id: outcome(1)}, T0 + 20)
        assert [e.type for e in events] == [E.MATCH_RECORDED.name, E.ROUND_COMPLETED.name,
                                            E.ROUND_PAIRED.name]
        again = {frozenset(table["seats"]) for table in events[-1].data["tables"]}
        assert not again & {frozenset(first.seats), frozenset(second.seats)}

    def test_after_its_end_the_last_tables_finish_and_it_completes(self):
        log = new("arena", 4, ends_at=T0 + 60)
        log.append(advance(log.tournament, {}, T0), T0)
        state = log.tournament.state
        assert state is not None
        first, second = state.playing
        log.append(advance(log.tournament, {first.match_id: outcome(0)}, T0 + 61), T0 + 61)
        assert not log.tournament.is_over  # the second table plays on
        log.append(advance(log.tournament, {second.match_id: outcome(1)}, T0 + 62), T0 + 62)
        assert log.tournament.is_over


class TestAudit:
    def test_a_played_log_verifies_its_chain_and_pairings(self):
        log = play_out(new("swiss", 7, rounds=3), random.Random(3))
        report = verify_tournament(log.records, VARIANTS).to_dict()
        checks = {check["name"]: check for check in report["checks"]}
        assert checks["hash_chain"]["ok"] and checks["pairings"]["ok"]
        assert not checks["results"]["ok"]  # no match logs in this export

    def test_a_changed_pairing_is_caught_even_when_rehashed(self):
        log = play_out(new("swiss", 6, rounds=3), random.Random(4))
        paired = [r for r in log.records if r["type"] == E.ROUND_PAIRED.name][1]
        seats = paired["data"]["tables"][0]["seats"]
        paired["data"]["tables"][0]["seats"] = list(reversed(seats))
        records = _rehash(log.records)
        report = verify_tournament(records, VARIANTS)
        assert report.checks["hash_chain"].failure is None
        assert report.checks["pairings"].failure["version"] == paired["version"]
        assert report.checks["results"].skipped == [  # results past it have no state to meet
            f"not checked from version {paired['version']}: the pairings' replay stopped there"]

    def test_a_changed_event_breaks_the_chain(self):
        log = play_out(new("round_robin", 4), random.Random(5))
        log.records[3]["data"] = {**log.records[3]["data"], "round": 9}
        report = verify_tournament(log.records, VARIANTS)
        assert report.checks["hash_chain"].failure["version"] == 4


def _rehash(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with their chain recomputed, as a forger who rewrote an event would."""
    out, prev = [], GENESIS_HASH
    for record in records:
        digest = event_hash(record["version"], record["type"], record["schema"],
                            record["data"], None, record["ts"], prev)
        out.append({**record, "prev_hash": prev, "hash": digest})
        prev = digest
    return out
