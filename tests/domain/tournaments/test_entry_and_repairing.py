"""A tournament open for entry, its start, the break between a round's pairing and its
tables, and a round paired again in that break (``domain.tournaments.tournament``), each
replayed by the auditor (``domain.tournaments.audit``)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.errors import RuleError
from domain.tournaments import events as E
from domain.tournaments.audit import verify_tournament
from domain.tournaments.model import Pairing, Table
from domain.tournaments.tournament import (
    REGISTERING,
    RUNNING,
    TOO_FEW_REASON,
    TournamentDue,
    advance,
    joining,
    repairing,
    start,
    started,
    table_match_id,
    withdrawal,
)
from domain.variants import VARIANTS
from tests.domain.tournaments.test_tournament import (
    T0,
    Log,
    _rehash,
    outcome,
    play_out,
    settings,
)

STARTS = T0 + 600


def open_for_entry(fmt: str = "swiss", named: int = 0, starts_at: float | None = STARTS,
                   most: int = 8, **more: Any) -> Log:
    log = Log()
    data = settings(fmt, named, registration={"max_players": most, "starts_at": starts_at},
                    **more)
    log.append(started(data, T0), T0)
    return log


def join(log: Log, *names: str, at: float = T0 + 1) -> Log:
    for name in names:
        state = log.tournament.state
        assert state is not None
        log.append(joining(state, name, None, f"entry-{name}"), at)
    return log


def state_of(log: Log) -> Any:
    assert log.tournament.state is not None
    return log.tournament.state


def checks(log: Log) -> dict[str, Any]:
    report = verify_tournament(log.records, VARIANTS).to_dict()
    return {check["name"]: check for check in report["checks"]}


class TestEntry:
    def test_a_tournament_open_for_entry_pairs_nothing_until_it_starts(self):
        log = open_for_entry()
        assert state_of(log).phase == REGISTERING and state_of(log).rounds == ()
        assert [r["type"] for r in log.records] == [E.TOURNAMENT_CREATED.name]

    def test_people_join_in_order_and_are_the_next_seeds(self):
        log = join(open_for_entry(named=1), "Ann", "Bob")
        assert [e.name for e in state_of(log).entrants] == ["P0", "Ann", "Bob"]
        assert state_of(log).entrants[1].entry == "entry-Ann"

    def test_a_full_tournament_takes_nobody_more(self):
        log = join(open_for_entry(most=2), "Ann", "Bob")
        with pytest.raises(RuleError) as refused:
            joining(state_of(log), "Cid", None, "entry-Cid")
        assert refused.value.code == "tournament_full"

    def test_entry_closes_at_the_start(self):
        log = join(open_for_entry(starts_at=None), "Ann", "Bob")
        log.append(start(state_of(log), T0 + 5), T0 + 5)
        with pytest.raises(RuleError) as refused:
            joining(state_of(log), "Cid", None, "entry-Cid")
        assert refused.value.code == "entry_closed"

    def test_a_tournament_created_with_its_players_takes_no_entries(self):
        log = Log()
        log.append(started(settings("swiss", 4), T0), T0)
        with pytest.raises(RuleError) as refused:
            joining(state_of(log), "Cid", None, "entry-Cid")
        assert refused.value.code == "entry_closed"


class TestStart:
    def test_it_owes_its_start_at_the_start_time_and_nothing_without_one(self):
        assert open_for_entry().tournament.owed() == (TournamentDue(0, False, (), STARTS),)
        assert open_for_entry(starts_at=None).tournament.owed() == ()

    def test_before_its_start_time_there_is_nothing_to_do(self):
        log = join(open_for_entry(), "Ann", "Bob")
        assert advance(log.tournament, {}, STARTS - 10) == []

    def test_at_its_start_time_it_starts_and_pairs_the_first_round_in_one_step(self):
        log = join(open_for_entry(), "Ann", "Bob", "Cid", "Dan", "Eve")
        events = advance(log.tournament, {}, STARTS)
        assert [e.type for e in events] == [E.TOURNAMENT_STARTED.name, E.ROUND_PAIRED.name]
        assert events[0].data["rounds"] == 3  # ceil(log2(5)) for the five who entered
        log.append(events, STARTS)
        assert state_of(log).phase == RUNNING and state_of(log).settings.rounds == 3

    def test_a_swiss_asked_for_more_rounds_than_its_entrants_allow_plays_fewer(self):
        log = join(open_for_entry(rounds=6), "Ann", "Bob", "Cid")
        assert advance(log.tournament, {}, STARTS)[0].data["rounds"] == 2

    def test_with_fewer_than_two_entrants_at_its_start_time_it_is_called_off(self):
        log = join(open_for_entry(), "Ann")
        assert [(e.type, e.data) for e in advance(log.tournament, {}, STARTS)] == [
            (E.TOURNAMENT_ABORTED.name, {"reason": TOO_FEW_REASON})]

    def test_the_organiser_cannot_start_it_with_fewer_than_two(self):
        log = join(open_for_entry(starts_at=None), "Ann")
        with pytest.raises(RuleError) as refused:
            start(state_of(log), T0 + 5)
        assert refused.value.code == "too_few_entrants"

    def test_an_arena_open_for_entry_runs_its_minutes_from_the_start(self):
        log = join(open_for_entry("arena", starts_at=None, minutes=10), "Ann", "Bob")
        events = start(state_of(log), T0 + 100)
        assert events[0].data == {"rounds": None, "ends_at": T0 + 100 + 600}

    def test_a_started_tournament_cannot_start_again(self):
        log = join(open_for_entry(starts_at=None), "Ann", "Bob")
        log.append(start(state_of(log), T0 + 5), T0 + 5)
        with pytest.raises(RuleError) as refused:
            start(state_of(log), T0 + 6)
        assert refused.value.code == "tournament_started"

    def test_a_log_with_entries_and_a_start_verifies_and_plays_to_its_end(self):
        log = join(open_for_entry(), "Ann", "Bob", "Cid", "Dan")
        log.append(advance(log.tournament, {}, STARTS), STARTS)
        play_out(log, random.Random(1), now=STARTS + 1)
        found = checks(log)
        assert found["hash_chain"]["ok"] and found["pairings"]["ok"]
        assert log.tournament.is_over

    def test_a_start_with_a_forged_number_of_rounds_is_caught(self):
        log = join(open_for_entry(), "Ann", "Bob", "Cid", "Dan")
        log.append(advance(log.tournament, {}, STARTS), STARTS)
        started_record = log.records[-2]
        started_record["data"] = {**started_record["data"], "rounds": 3}
        log.records[:] = _rehash(log.records)
        assert checks(log)["pairings"]["first_failure"]["version"] == started_record["version"]

    def test_an_entry_after_the_start_is_caught(self):
        log = join(open_for_entry(), "Ann", "Bob")
        log.append(advance(log.tournament, {}, STARTS), STARTS)
        late = E.ENTRANT_JOINED.event(name="Cid", external_id=None, entry="x")
        log.records.append({**log.records[-1], "version": len(log.records) + 1,
                            "type": late.type, "data": dict(late.data)})
        log.records[:] = _rehash(log.records)
        assert checks(log)["pairings"]["first_failure"]["version"] == len(log.records)


def with_break(fmt: str = "swiss", players: int = 6, pause: float = 120.0,
               **more: Any) -> Log:
    log = Log()
    log.append(started(settings(fmt, players, round_break_s=pause, **more), T0), T0)
    return log


class TestRoundBreak:
    def test_a_paired_round_opens_its_tables_after_the_break(self):
        log = with_break(rounds=3)
        (owed,) = log.tournament.owed()
        assert owed.open and owed.due(T0) == T0 + 120
        assert advance(log.tournament, {}, T0 + 119) == []
        assert [e.type for e in advance(log.tournament, {}, T0 + 120)] == [
            E.TABLES_OPENED.name]

    def test_tables_opened_before_the_break_is_over_are_caught(self):
        log = with_break(rounds=3)
        log.append([E.TABLES_OPENED.event(round=1)], T0 + 5)
        assert checks(log)["pairings"]["first_failure"]["version"] == 3

    def test_a_tournament_with_breaks_plays_to_its_end_and_verifies(self):
        log, rng, now = with_break("round_robin", 4, pause=30), random.Random(2), T0
        while not log.tournament.is_over:
            now += 31  # past each round's break
            playing = state_of(log).playing
            outcomes = {t.match_id: outcome(rng.randrange(2)) for t in playing}
            log.append(advance(log.tournament, outcomes, now), now)
        assert len(state_of(log).rounds) == 3
        assert checks(log)["pairings"]["ok"]


class TestRepairing:
    def test_a_withdrawal_in_the_break_is_left_out_when_the_round_is_paired_again(self):
        log = with_break(players=6, rounds=3)
        log.append(withdrawal(state_of(log), 5, "ill"), T0 + 10)
        (event,) = repairing(state_of(log), 1)
        assert 5 not in [seat for table in event.data["tables"] for seat in table["seats"]]
        assert event.data["byes"] == [4] and event.data["manual"] is False
        log.append([event], T0 + 11)
        assert state_of(log).current.pairings == 2

    def test_the_new_tables_get_new_match_ids(self):
        log = with_break(players=4, rounds=2)
        (event,) = repairing(state_of(log), 1)
        ids = [table["match_id"] for table in event.data["tables"]]
        assert ids == [table_match_id("t-1", 1, n, 2) for n in (0, 1)]
        assert not set(ids) & {table_match_id("t-1", 1, n) for n in (0, 1)}

    def test_the_organiser_may_place_a_swiss_round_by_hand(self):
        log = with_break(players=4, rounds=2)
        placed = Pairing((Table(0, (0, 3)), Table(1, (1, 2))))
        (event,) = repairing(state_of(log), 1, placed)
        assert [t["seats"] for t in event.data["tables"]] == [[0, 3], [1, 2]]
        log.append([event], T0 + 5)
        assert checks(log)["pairings"]["ok"]

    @pytest.mark.parametrize("placed", [
        Pairing((Table(0, (0, 3)),)),                      # two entrants left out
        Pairing((Table(0, (0, 3)), Table(1, (1, 1)))),     # one placed twice
        Pairing((Table(0, (0, 3, 1, 2)),)),                # a table too large
    ])
    def test_a_placement_must_seat_everybody_still_in_once(self, placed):
        log = with_break(players=4, rounds=2)
        with pytest.raises(RuleError) as refused:
            repairing(state_of(log), 1, placed)
        assert refused.value.code == "manual_pairing"

    def test_only_a_swiss_is_placed_by_hand(self):
        log = with_break("round_robin", 4)
        with pytest.raises(RuleError) as refused:
            repairing(state_of(log), 1, Pairing((Table(0, (0, 1)), Table(1, (2, 3)))))
        assert refused.value.code == "manual_pairing"

    def test_a_round_whose_tables_opened_is_not_paired_again(self):
        log = with_break(players=4, rounds=2)
        log.append(advance(log.tournament, {}, T0 + 120), T0 + 120)
        with pytest.raises(RuleError) as refused:
            repairing(state_of(log), 1)
        assert refused.value.code == "round_started"

    def test_an_arena_has_no_round_to_pair_again(self):
        log = Log()
        log.append(started(settings("arena", 4, ends_at=T0 + 600, minutes=10), T0), T0)
        with pytest.raises(RuleError) as refused:
            repairing(state_of(log), 1)
        assert refused.value.code == "not_repairable"

    def test_a_forged_placement_in_a_round_robin_is_caught(self):
        log = with_break("round_robin", 4)
        forged = E.ROUND_REPAIRED.event(
            round=1, byes=[], manual=True,
            tables=[{"table": n, "seats": seats, "match_id": table_match_id("t-1", 1, n, 2)}
                    for n, seats in enumerate(([0, 1], [2, 3]))])
        log.append([forged], T0 + 5)
        assert checks(log)["pairings"]["first_failure"]["version"] == 3


def test_who_leaves_before_the_start_holds_no_place():
    log = join(open_for_entry(most=2), "Ann", "Bob")
    log.append(withdrawal(state_of(log), 0, "left"), T0 + 2)
    (event,) = joining(state_of(log), "Cid", None, "entry-Cid")
    assert event.data["name"] == "Cid"
