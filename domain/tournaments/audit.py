"""Verify a tournament's export without trusting the server: its chain, every pairing,
every result.

The export (``GET /v1/tournaments/{id}/export``) is NDJSON: the tournament's own log, one
record per event as a match's export has them, then each table's match log, each record
carrying its ``match_id``. The checks:

- ``hash_chain``: the tournament's log links and rehashes as a match's does
  (``domain.audit``).
- ``pairings``: every ``RoundPaired`` is what the format pairs from the results recorded
  before it (``domain.tournaments.formats``; an arena's wave from who was waiting, at the
  event's time), with the match ids the pairing derives; tables open, rounds complete and
  the tournament ends when and as the log says, and the final standings are the ones the
  recorded results give.
- ``results``: every table's match log is in the export and verifies on its own
  (``domain.audit.verify``), seats the table's entrants in order, and ended as the
  tournament's ``MatchRecorded`` says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.audit import (
    Check,
    Record,
    Report,
    check_chain,
    duplicate_deals,
    event_of,
    verify,
)
from domain.errors import RuleError
from domain.events import MATCH_ABORTED, MATCH_COMPLETED, SEAT_FORFEITED, Event, names
from domain.tournaments import events as E
from domain.tournaments.model import Pairing, Table
from domain.tournaments.results import outcome_of
from domain.tournaments.tournament import (
    REGISTERING,
    TournamentState,
    evolve,
    joining,
    opening,
    pairing_events,
    recorded,
    repairing,
)
from domain.variant import Variant

CHECKS = ("hash_chain", "pairings", "results")
CLOCK_SLACK_S = 60.0
"""How far a time the server decided (a round's opening, an arena's end) may stray from
the one the log's own times give: the decision is taken a moment before its append is
stamped."""
ENDED = names(MATCH_COMPLETED, SEAT_FORFEITED)


def is_tournament_export(records: Sequence[Record]) -> bool:
    return bool(records) and records[0].get("type") == E.TOURNAMENT_CREATED.name


def verify_tournament(records: Sequence[Record], variants: Mapping[str, Variant]) -> Report:
    """Check a tournament export; ``variants`` maps variant names to families."""
    own = [record for record in records if "match_id" not in record]
    matches: dict[str, list[Record]] = {}
    for record in records:
        if "match_id" in record:
            matches.setdefault(str(record["match_id"]), []).append(
                {key: value for key, value in record.items() if key != "match_id"})
    report = Report(None, len(own), {name: Check(name) for name in CHECKS})
    check_chain(own, report.checks["hash_chain"])
    if not is_tournament_export(own):
        report.checks["pairings"].fail(1, f"the log does not start with "
                                          f"{E.TOURNAMENT_CREATED.name}")
        return report
    report.variant = own[0]["data"].get("variant")
    state, folded = _replay(own, report.checks["pairings"])
    report.final_phase = state.phase if state is not None else None
    if state is not None:
        results = report.checks["results"]
        _check_results(state, own[:folded], matches, variants, results)
        if folded < len(own):
            results.skipped.append(f"not checked from version {own[folded]['version']}: "
                                   "the pairings' replay stopped there")
        if state.settings.duplicate_deals:
            report.checks["duplicate_deals"] = _same_deals(state, matches)
    return report


def _same_deals(state: TournamentState, matches: Mapping[str, Sequence[Record]]) -> Check:
    """With duplicate deals, every table of a round whose log is in the export was dealt
    as the round's first such table, hand by hand (``domain.audit.duplicate_deals``)."""
    check = Check("duplicate_deals")
    for round_ in state.rounds:
        logged = [table.match_id for table in round_.tables if table.match_id in matches]
        for match_id in logged[1:]:
            compared = duplicate_deals(matches[match_id], matches[logged[0]], logged[0])
            check.checked += compared.checked
            if compared.failure is not None:
                check.fail(compared.failure["version"], f"match {match_id}: "
                                                        f"{compared.failure['reason']}")
                return check
    check.skipped.append(f"{check.checked} hand(s) compared across the rounds' tables")
    return check


def _replay(records: Sequence[Record],
            check: Check) -> tuple[TournamentState | None, int]:
    """Fold the log, comparing each event the server decided with what the rules decide
    from the state before it; the state at the end (None if the first event is bad) and
    how many records it folded (all of them unless one failed)."""
    state: TournamentState | None = None
    for folded, record in enumerate(records):
        event = event_of(record)
        version = record["version"]
        check.checked += 1
        try:
            problem = None if state is None else _problem(state, event, float(record["ts"]))
            if problem is not None:
                check.fail(version, problem)
                return state, folded
            state = evolve(state, event)
        except (KeyError, TypeError, ValueError, IndexError, StopIteration,
                AssertionError) as exc:
            check.fail(version, f"cannot replay: {type(exc).__name__}: {exc}")
            return state, folded
    return state, len(records)


def _problem(state: TournamentState, event: Event, ts: float) -> str | None:
    """Why ``event`` is not what the rules make of ``state`` at ``ts``; None when it is."""
    kind = event.type
    if kind == E.ROUND_PAIRED.name:
        expected = [e for e in pairing_events(state, ts) if e.type == E.ROUND_PAIRED.name]
        if state.phase == REGISTERING:
            return "a round was paired before the tournament started"
        if state.unopened is not None or (state.playing and not state.settings.is_arena):
            return "a round was paired while the last one was still open"
        if not expected or not _same_pairing(expected[0].data, event.data):
            return "the pairing is not the one the format makes of the results before it"
    elif kind == E.ROUND_REPAIRED.name:
        return _repair_problem(state, event)
    elif kind == E.ENTRANT_JOINED.name:
        try:
            joining(state, event.data["name"], event.data.get("external_id"),
                    event.data["entry"])
        except RuleError as refused:
            return f"an entrant joined when entry was closed ({refused.code})"
    elif kind == E.TOURNAMENT_STARTED.name:
        return _start_problem(state, event, ts)
    elif kind == E.TABLES_OPENED.name:
        unopened = state.unopened
        if unopened is None or unopened.number != event.data["round"]:
            return "opens tables of a round that is not waiting for them"
        if not unopened.opens_by(ts):
            return "opens tables before the round's break is over"
    elif kind == E.MATCH_RECORDED.name:
        round_ = state.rounds[event.data["round"] - 1]
        table = next(t for t in round_.tables if t.number == event.data["table"])
        if table not in round_.waiting or table.match_id != event.data["match_id"]:
            return "records a table that is not playing"
    elif kind == E.ROUND_COMPLETED.name:
        round_ = state.rounds[event.data["round"] - 1]
        if round_.waiting or round_.completed:
            return "completes a round that has tables playing, or completed already"
    elif kind == E.TOURNAMENT_COMPLETED.name:
        expected = pairing_events(state, ts)
        if [e.type for e in expected] != [kind] or dict(expected[0].data) != dict(event.data):
            return "ends the tournament early, or with standings the results do not give"
    elif kind == E.RESULTS_RATED.name:
        if not state.rated < event.data["upto"] <= len(state.results):
            return "rates results that are not recorded, or rated already"
    elif kind not in (E.PLAYER_WITHDRAWN.name, E.TOURNAMENT_ABORTED.name):
        return f"a tournament's log holds no {kind!r}"
    return None


def _same_pairing(expected: Mapping[str, Any], logged: Mapping[str, Any]) -> bool:
    """The same tables and byes, and an opening time within the clock's slack of the
    one the pairing's own time gives."""
    if not _near(expected.get("opens_at"), logged.get("opens_at")):
        return False
    return {**expected, "opens_at": None} == {**logged, "opens_at": None}


def _near(want: float | None, got: float | None) -> bool:
    """Both absent, or within the clock's slack of each other."""
    if want is None or got is None:
        return want is got
    return abs(float(want) - float(got)) <= CLOCK_SLACK_S


def _start_problem(state: TournamentState, event: Event, ts: float) -> str | None:
    """A start must close an open entry, with what ``opening`` fixes at its time."""
    if state.phase != REGISTERING:
        return "starts a tournament that was not open for entry"
    expected = opening(state, ts)[0]
    if expected.type != E.TOURNAMENT_STARTED.name:
        return "starts with fewer than two entrants"
    if expected.data["rounds"] != event.data.get("rounds"):
        return "starts with rounds the entrants do not give"
    if not _near(expected.data["ends_at"], event.data.get("ends_at")):
        return "starts an arena with an end that is not its minutes after the start"
    return None


def _repair_problem(state: TournamentState, event: Event) -> str | None:
    """A re-pairing must come before the round's tables open, and pair as the format
    does (or place every entrant still in once, by hand, in a Swiss)."""
    data = event.data
    placed = None
    if data["manual"]:
        placed = Pairing(tuple(Table(t["table"], tuple(t["seats"])) for t in data["tables"]),
                         tuple(data["byes"]))
    try:
        expected = repairing(state, data["round"], placed)[0]
    except RuleError as refused:
        return f"pairs a round again when it may not be ({refused.code})"
    if dict(expected.data) != dict(data):
        return "the new pairing is not the one the format makes of the results before it"
    return None


def _check_results(state: TournamentState, records: Sequence[Record],
                   matches: Mapping[str, Sequence[Record]],
                   variants: Mapping[str, Variant], check: Check) -> None:
    """Each recorded result among ``records`` (the ones the replay folded into ``state``)
    against its match's own verified log."""
    variant = variants.get(state.settings.variant)
    for record in records:
        if record["type"] != E.MATCH_RECORDED.name:
            continue
        check.checked += 1
        data = record["data"]
        log = matches.get(data["match_id"])
        if log is None or variant is None:
            check.fail(record["version"], f"the export lacks match {data['match_id']}'s log")
            return
        problem = _result_problem(state, data, log, variant, variants)
        if problem is not None:
            check.fail(record["version"], problem)
            return


def _result_problem(state: TournamentState, data: Mapping[str, Any], log: Sequence[Record],
                    variant: Variant, variants: Mapping[str, Variant]) -> str | None:
    report = verify(log, variants)
    if not report.ok:
        return f"match {data['match_id']} does not verify " \
               f"(first failure at its version {report.first_failing_version})"
    round_ = state.rounds[data["round"] - 1]
    table = next(t for t in round_.tables if t.number == data["table"])
    players = log[0]["data"].get("players", [])
    if players != [state.entrants[entrant].name for entrant in table.seats]:
        return f"match {data['match_id']} does not seat the table's entrants"
    completion = _completion(log)
    outcome = outcome_of(completion, len(table.seats), variant.low_scores_win)
    if dict(recorded(data["round"], table, outcome).data) != dict(data):
        return f"match {data['match_id']} did not end as recorded"
    return None


def _completion(log: Sequence[Record]) -> Mapping[str, Any] | None:
    """The payload of the event that ended the match (None when it was called off)."""
    for record in reversed(log):
        if record["type"] in ENDED:
            return dict(record["data"])
        if record["type"] == MATCH_ABORTED.name:
            return None
    return None
