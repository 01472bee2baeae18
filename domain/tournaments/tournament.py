"""A tournament as everything outside the rules holds it: one value folded from its log.

``Tournament`` is the second aggregate (``domain.aggregate``) beside the match: the same
repository loads it and the same runner writes to it. Its progress is what it owes
(``Tournament.owed``, one kind of work, ``TournamentDue``): to open the tables of a round
just paired, then to record each table's result as its match ends, and once a round is
complete to pair the next (or to end). ``advance`` decides that progress from the
outcomes of the round's matches, purely; the use case reads the outcomes and creates the
matches.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from domain.aggregate import TIME_GRAIN_S, Recorded
from domain.chain import GENESIS_HASH
from domain.errors import RuleError
from domain.events import Event
from domain.tournaments import arena
from domain.tournaments import events as E
from domain.tournaments.formats import next_pairing, standings_of
from domain.tournaments.model import Bye, Pairing, Result, Table
from domain.tournaments.results import TableOutcome

REGISTERING, RUNNING, COMPLETE, ABORTED = "registering", "running", "complete", "aborted"
FINAL = frozenset({COMPLETE, ABORTED})
TOO_FEW_REASON = "fewer than two entrants when it was due to start"


@dataclass(frozen=True)
class Entrant:
    """One entrant: a person (a name and the organiser's id for them) or a bot level."""

    name: str
    external_id: str | None = None
    bot: str | None = None
    entry: str | None = None
    """Where the player token of a person who joined is kept (the meta's
    ``entry:<entry>``); entrants named at the creation have theirs at ``entrant:<n>``."""


@dataclass(frozen=True)
class Registration:
    """Entry before the start: at most ``max_players`` entrants; the start comes at
    ``starts_at`` (epoch seconds) or, when None, when the organiser starts it."""

    max_players: int
    starts_at: float | None = None


@dataclass(frozen=True)
class Settings:
    """What ``TournamentCreated`` fixed for the whole tournament."""

    id: str
    name: str
    variant: str
    options: Mapping[str, Any]
    format: str
    table_size: int
    rounds: int | None
    tie_breaks: tuple[str, ...]
    clock: Mapping[str, Any] | None = None
    ends_at: float | None = None
    """An arena's end (epoch seconds): no table is paired after it."""
    minutes: int | None = None
    registration: Registration | None = None
    round_break_s: float = 0.0
    """Seconds between a round's pairing and its tables opening (lichess's round
    interval): players see their next table, and the organiser may re-pair."""
    duplicate_deals: bool = False

    @property
    def is_arena(self) -> bool:
        return self.format == "arena"

    @property
    def starts_at(self) -> float | None:
        """When a tournament open for entry starts by itself (None: at the organiser's
        word, or it started at its creation)."""
        return None if self.registration is None else self.registration.starts_at


@dataclass(frozen=True)
class PairedTable:
    """A table of a round: its number, its match, its entrants by seat."""

    number: int
    match_id: str
    seats: tuple[int, ...]


@dataclass(frozen=True)
class Round:
    """One round: its tables and byes, whether its matches exist, its recorded results
    (by table number) and whether it is complete."""

    number: int
    tables: tuple[PairedTable, ...]
    byes: tuple[int, ...]
    opened: bool = False
    results: Mapping[int, Result] = field(default_factory=dict)
    completed: bool = False
    opens_at: float | None = None
    """When its tables open (the round break); None for at once."""
    pairings: int = 1
    """How many times it was paired (a re-pairing gives its tables new match ids)."""

    def opens_by(self, now: float) -> bool:
        """Whether its tables may open at ``now`` (its break is over)."""
        return self.opens_at is None or self.opens_at <= now + TIME_GRAIN_S

    @property
    def waiting(self) -> tuple[PairedTable, ...]:
        """Tables whose result is not recorded yet."""
        return tuple(table for table in self.tables if table.number not in self.results)


@dataclass(frozen=True)
class TournamentState:
    settings: Settings
    entrants: tuple[Entrant, ...]
    rounds: tuple[Round, ...] = ()
    withdrawn: frozenset[int] = frozenset()
    phase: str = RUNNING
    results: tuple[Result, ...] = ()
    """Every recorded result, in the order recorded (an arena's streaks count in it)."""
    rated: int = 0
    """How many of ``results`` have updated the players' ratings (``ResultsRated``)."""

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def playing(self) -> tuple[PairedTable, ...]:
        """Tables of every round whose result is not recorded yet (an arena's waves
        overlap; a round-based format has them in its last round only)."""
        return tuple(table for round_ in self.rounds for table in round_.waiting)

    @property
    def unopened(self) -> Round | None:
        """The round paired whose matches are not created yet, if any."""
        return next((round_ for round_ in self.rounds if not round_.opened), None)

    @property
    def waiting(self) -> tuple[int, ...]:
        """An arena's entrants free to be paired, longest-waiting first: those at no table
        still playing and not withdrawn, in the order their last result was recorded (who
        has not played yet first, in entry order)."""
        busy = {entrant for table in self.playing for entrant in table.seats}
        last: dict[int, int] = {}
        for order, result in enumerate(self.results):
            for entrant in result.seats:
                last[entrant] = order
        free = [entrant for entrant in range(len(self.entrants))
                if entrant not in busy and entrant not in self.withdrawn]
        return tuple(sorted(free, key=lambda entrant: (last.get(entrant, -1), entrant)))

    @property
    def byes(self) -> tuple[Bye, ...]:
        return tuple(Bye(round_.number, entrant) for round_ in self.rounds
                     for entrant in round_.byes)


def table_match_id(tournament_id: str, round_number: int, table: int,
                   pairing: int = 1) -> str:
    """The match id of a table: derived from the tournament, round and table (and, for a
    round paired again, which pairing), so a step that is paid twice (two workers, or one
    that died after creating some tables) finds the matches it created already instead
    of creating more, and a re-paired table never finds a match of the old pairing."""
    seed = f"{tournament_id}:{round_number}:{table}"
    if pairing > 1:
        seed += f":{pairing}"
    return hashlib.sha256(seed.encode()).hexdigest()[:32]


def default_rounds(entrants: int) -> int:
    """A Swiss's rounds when the organiser names none: enough to leave one leader
    (``ceil(log2(n))``), at most one fewer than the entrants."""
    return min(entrants - 1, max(1, (entrants - 1).bit_length()))


# --- folding -------------------------------------------------------------------------------

def created(data: Mapping[str, Any]) -> TournamentState:
    entry = data.get("registration")
    registration = None if entry is None else Registration(entry["max_players"],
                                                           entry.get("starts_at"))
    settings = Settings(data["id"], data["name"], data["variant"], dict(data["options"]),
                        data["format"], data["table_size"], data.get("rounds"),
                        tuple(data["tie_breaks"]), data.get("clock"), data.get("ends_at"),
                        data.get("minutes"), registration,
                        float(data.get("round_break_s") or 0),
                        bool(data.get("duplicate_deals")))
    entrants = tuple(Entrant(e["name"], e.get("external_id"), e.get("bot"))
                     for e in data["entrants"])
    return TournamentState(settings, entrants,
                           phase=RUNNING if registration is None else REGISTERING)


def evolve(state: TournamentState | None, event: Event) -> TournamentState:
    """The state after one event."""
    data = event.data
    if event.type == E.TOURNAMENT_CREATED.name:
        return created(data)
    assert state is not None, "a tournament's log starts with TournamentCreated"
    if event.type == E.ENTRANT_JOINED.name:
        joined = Entrant(data["name"], data.get("external_id"), None, data["entry"])
        return replace(state, entrants=(*state.entrants, joined))
    if event.type == E.TOURNAMENT_STARTED.name:
        settings = replace(state.settings, rounds=data.get("rounds"),
                           ends_at=data.get("ends_at"))
        return replace(state, settings=settings, phase=RUNNING)
    if event.type == E.ROUND_PAIRED.name:
        return replace(state, rounds=(*state.rounds, Round(
            data["round"], _tables(data), tuple(data["byes"]),
            opens_at=data.get("opens_at"))))
    if event.type == E.ROUND_REPAIRED.name:
        before = state.rounds[data["round"] - 1]
        return _with_round(state, data["round"], tables=_tables(data),
                           byes=tuple(data["byes"]), pairings=before.pairings + 1)
    if event.type == E.TABLES_OPENED.name:
        return _with_round(state, data["round"], opened=True)
    if event.type == E.MATCH_RECORDED.name:
        round_ = state.rounds[data["round"] - 1]
        table = next(t for t in round_.tables if t.number == data["table"])
        result = Result(data["round"], table.seats, tuple(data["points"]),
                        tuple(data["game_points"]), data["forfeit"])
        recorded = _with_round(state, data["round"],
                               results={**round_.results, table.number: result})
        return replace(recorded, results=(*state.results, result))
    if event.type == E.ROUND_COMPLETED.name:
        return _with_round(state, data["round"], completed=True)
    if event.type == E.PLAYER_WITHDRAWN.name:
        return replace(state, withdrawn=state.withdrawn | {data["entrant"]})
    if event.type == E.TOURNAMENT_COMPLETED.name:
        return replace(state, phase=COMPLETE)
    if event.type == E.TOURNAMENT_ABORTED.name:
        return replace(state, phase=ABORTED)
    if event.type == E.RESULTS_RATED.name:
        return replace(state, rated=data["upto"])
    raise ValueError(f"a tournament's log holds no {event.type!r}")


def _tables(data: Mapping[str, Any]) -> tuple[PairedTable, ...]:
    return tuple(PairedTable(t["table"], t["match_id"], tuple(t["seats"]))
                 for t in data["tables"])


def _with_round(state: TournamentState, number: int, **changes: Any) -> TournamentState:
    rounds = list(state.rounds)
    rounds[number - 1] = replace(rounds[number - 1], **changes)
    return replace(state, rounds=tuple(rounds))


# --- what it owes --------------------------------------------------------------------------

@dataclass(frozen=True)
class TournamentDue:
    """The tournament's progress is owed: its start at ``at`` (round 0: open for entry
    until a set time); ``open`` the tables of round ``round`` (at once, or at ``at`` when
    the round has a break); or wait for ``tables`` still playing (due at once too: each
    look records what has ended, the work index looks again after its lease, and a
    match's end marks it due sooner); or, an arena nobody can be paired in, its end at
    ``at``."""

    round: int
    open: bool
    tables: tuple[str, ...]
    at: float | None = None
    kind: ClassVar[str] = "tournaments"

    @classmethod
    def of(cls, tournament: Tournament) -> TournamentDue | None:
        state = tournament.state
        if state is None or state.phase in FINAL:
            return None
        if state.phase == REGISTERING:
            starts_at = state.settings.starts_at
            return None if starts_at is None else cls(0, False, (), starts_at)
        unopened = state.unopened
        if unopened is not None:
            return cls(unopened.number, True, tuple(t.match_id for t in unopened.tables),
                       unopened.opens_at)
        playing = state.playing
        settings = state.settings
        at = settings.ends_at if settings.is_arena and not playing else None
        return cls(len(state.rounds), False, tuple(t.match_id for t in playing), at)

    def due(self, now: float) -> float:
        return now if self.at is None else self.at


@dataclass(frozen=True)
class RatingsDue:
    """Recorded results not yet rated (``results[rated:]``): due at once, over or not."""

    rated: int
    upto: int
    kind: ClassVar[str] = "ratings"

    @classmethod
    def of(cls, tournament: Tournament) -> RatingsDue | None:
        state = tournament.state
        if state is None or state.rated >= len(state.results):
            return None
        return cls(state.rated, len(state.results))

    def due(self, now: float) -> float:
        return now


@dataclass(frozen=True)
class TournamentAhead:
    before: Tournament
    events: tuple[Event, ...]
    state: TournamentState

    def owed(self, at: float) -> tuple[TournamentDue | RatingsDue, ...]:
        records = [Recorded(event, self.before.version + number, at, "")
                   for number, event in enumerate(self.events, 1)]
        return self.before.stored(self, records).owed()


@dataclass(frozen=True)
class Tournament:
    """One tournament as of ``version``: the fold of its first ``version`` stored events
    (``state`` is None before the first)."""

    state: TournamentState | None = None
    version: int = 0
    head_hash: str = GENESIS_HASH
    at: float = 0.0

    def apply(self, records: Sequence[Recorded]) -> Tournament:
        if not records:
            return self
        state = self.state
        for record in records:
            state = evolve(state, record.event)
        last = records[-1]
        return Tournament(state, last.version, last.hash, last.ts)

    def ahead(self, events: Sequence[Event]) -> TournamentAhead:
        state = self.state
        for event in events:
            state = evolve(state, event)
        assert state is not None
        return TournamentAhead(self, tuple(events), state)

    def stored(self, ahead: TournamentAhead, records: Sequence[Recorded]) -> Tournament:
        last = records[-1]
        return Tournament(ahead.state, last.version, last.hash, last.ts)

    @property
    def is_over(self) -> bool:
        return self.state is not None and self.state.phase in FINAL

    def owed(self) -> tuple[TournamentDue | RatingsDue, ...]:
        """Its progress while it runs, and the rating of results recorded since the last
        rating, once each."""
        return tuple(owed for owed in (TournamentDue.of(self), RatingsDue.of(self))
                     if owed is not None)


# --- deciding its progress -----------------------------------------------------------------

def pairing_events(state: TournamentState, now: float) -> list[Event]:
    """What follows a complete round: the next round's pairing, or the tournament's end
    when the format has no more rounds to pair. An arena pairs whoever waits, until its
    end (``arena_events``)."""
    if state.settings.is_arena:
        return arena_events(state, now)
    pairing = next_pairing(state)
    if pairing is None:
        return [E.TOURNAMENT_COMPLETED.event(standings=standings_of(state))]
    return [paired(state, len(state.rounds) + 1, pairing, now)]


def arena_events(state: TournamentState, now: float) -> list[Event]:
    """An arena's next wave: the waiting entrants paired (``arena.pair_waiting``) while
    its time runs; once it has run out, nothing new, and its end when the last table has
    finished."""
    ends_at = state.settings.ends_at
    if ends_at is not None and now >= ends_at:
        return [] if state.playing else [
            E.TOURNAMENT_COMPLETED.event(standings=standings_of(state))]
    busy = sum(len(table.seats) for table in state.playing)
    tables = arena.pair_waiting(state.waiting, state.results, state.settings.table_size,
                                playing=busy)
    if not tables:
        return []
    pairing = Pairing(tuple(Table(number, seats) for number, seats in enumerate(tables)))
    return [paired(state, len(state.rounds) + 1, pairing)]


def paired(state: TournamentState, number: int, pairing: Pairing,
           now: float | None = None) -> Event:
    """A round's pairing; its tables open after the round break (an arena's waves and a
    round without a break: at once)."""
    pause = state.settings.round_break_s
    opens_at = round(now + pause, 3) if pause and now is not None else None
    return E.ROUND_PAIRED.event(round=number, tables=_table_data(state, number, pairing),
                                byes=list(pairing.byes), opens_at=opens_at)


def _table_data(state: TournamentState, number: int, pairing: Pairing,
                pairings: int = 1) -> list[dict[str, Any]]:
    return [{"table": table.number, "seats": list(table.seats),
             "match_id": table_match_id(state.settings.id, number, table.number, pairings)}
            for table in pairing.tables]


def started(data: Mapping[str, Any], now: float) -> list[Event]:
    """A new tournament's first events: its creation, and, unless it is open for entry
    first, its start."""
    creation = E.TOURNAMENT_CREATED.event(dict(data))
    state = created(creation.data)
    return [creation] if state.phase == REGISTERING else [
        creation, *pairing_events(state, now)]


def opening(state: TournamentState, now: float) -> list[Event]:
    """The start of a tournament that was open for entry: entry closes and the first
    round is paired with the entrants so far (a Swiss's rounds and an arena's end fixed
    now); with fewer than two it is called off instead."""
    settings = state.settings
    active = len(state.entrants) - len(state.withdrawn)
    if active < 2:
        return [E.TOURNAMENT_ABORTED.event(reason=TOO_FEW_REASON)]
    rounds = settings.rounds
    if settings.format == "swiss":
        rounds = min(active - 1, rounds or default_rounds(active))
    ends_at = round(now + 60 * settings.minutes, 3) if settings.minutes else None
    start = E.TOURNAMENT_STARTED.event(rounds=rounds, ends_at=ends_at)
    return [start, *pairing_events(evolve(state, start), now)]


def advance(tournament: Tournament, outcomes: Mapping[str, TableOutcome],
            now: float) -> list[Event]:
    """The progress owed at ``now``: the tables of a round just paired opened (the caller
    created their matches); else a ``MatchRecorded`` for each table still playing whose
    match has ended (``outcomes``, by match id), a ``RoundCompleted`` for each round that
    completes, and then the next pairing or the end (an arena: the next wave)."""
    state = tournament.state
    if state is None or state.phase in FINAL:
        return []
    if state.phase == REGISTERING:
        starts_at = state.settings.starts_at
        due = starts_at is not None and starts_at <= now + TIME_GRAIN_S
        return opening(state, now) if due else []
    unopened = state.unopened
    if unopened is not None:
        return [E.TABLES_OPENED.event(round=unopened.number)] if unopened.opens_by(now) else []
    events: list[Event] = []
    for round_ in state.rounds:
        for table in round_.waiting:
            outcome = outcomes.get(table.match_id)
            if outcome is not None:
                events.append(recorded(round_.number, table, outcome))
    after = tournament.ahead(events).state if events else state
    completing = [E.ROUND_COMPLETED.event(round=round_.number) for round_ in after.rounds
                  if not round_.completed and not round_.waiting]
    events += completing
    after = tournament.ahead(events).state if completing else after
    if after.settings.is_arena or not after.playing:
        events += pairing_events(after, now)
    return events


def recorded(number: int, table: PairedTable, outcome: TableOutcome) -> Event:
    return E.MATCH_RECORDED.event(
        round=number, table=table.number, match_id=table.match_id,
        ranks=list(outcome.ranks), points=list(outcome.points),
        game_points=list(outcome.game_points), forfeit=outcome.forfeit)


# --- the organiser's controls --------------------------------------------------------------

WITHDRAWN_REASON = "withdrew from the tournament"


def joining(state: TournamentState, name: str, external_id: str | None,
            entry: str) -> list[Event]:
    """A person enters before the start (``RuleError`` once entry has closed, or when the
    tournament is full: who has left before the start holds no place). Names are checked
    by the caller, as a match's are."""
    registration = state.settings.registration
    if state.phase != REGISTERING or registration is None:
        raise RuleError("entry_closed", "the tournament takes no more entrants: it has "
                                        "started, or was never open for entry")
    if len(state.entrants) - len(state.withdrawn) >= registration.max_players:
        raise RuleError("tournament_full", f"the tournament is full "
                                           f"({registration.max_players} entrants)")
    return [E.ENTRANT_JOINED.event(name=name, external_id=external_id, entry=entry)]


def start(state: TournamentState, now: float) -> list[Event]:
    """The organiser starts a tournament that is open for entry (``RuleError`` when it
    is not, or has fewer than two entrants)."""
    if state.phase != REGISTERING:
        raise RuleError("tournament_started", "the tournament is not waiting to start")
    if len(state.entrants) - len(state.withdrawn) < 2:
        raise RuleError("too_few_entrants", "a tournament starts with two entrants or more")
    return opening(state, now)


def repairing(state: TournamentState, number: int,
              placed: Pairing | None = None) -> list[Event]:
    """Round ``number``, paired but not started (its break not over), paired again: by
    the format from the same results, leaving out who has withdrawn since; or, in a
    Swiss, as the organiser ``placed`` the entrants (each entrant still in, once).
    ``RuleError`` otherwise."""
    if state.phase in FINAL:
        raise RuleError("tournament_over", "the tournament is over")
    if state.settings.is_arena:
        raise RuleError("not_repairable", "an arena pairs players as they finish; it has "
                                          "no round to pair again")
    round_ = state.current
    if round_ is None or round_.number != number or round_.opened:
        raise RuleError("round_started", f"round {number} is not waiting to start: only "
                                         f"the last round, before its tables open, can be "
                                         f"paired again")
    before = replace(state, rounds=state.rounds[:-1])
    if placed is None:
        pairing = next_pairing(before)
        if pairing is None or not pairing.tables:
            raise RuleError("too_few_entrants", "too few entrants are left to pair")
    else:
        pairing = _checked_placement(state, placed)
    return [E.ROUND_REPAIRED.event(
        round=number, tables=_table_data(state, number, pairing, round_.pairings + 1),
        byes=list(pairing.byes), manual=placed is not None)]


def _checked_placement(state: TournamentState, placed: Pairing) -> Pairing:
    """The organiser's own pairing of a Swiss round: every entrant still in placed once,
    at a table of two up to the table size, or on a bye."""
    settings = state.settings
    if settings.format != "swiss":
        raise RuleError("manual_pairing", "only a Swiss round can be paired by hand; "
                                          "the other formats pair by their schedule")
    active = sorted(e for e in range(len(state.entrants)) if e not in state.withdrawn)
    if sorted(placed.entrants) != active:
        raise RuleError("manual_pairing", "place every entrant still in exactly once "
                                          "(at a table or on a bye), and nobody else")
    if any(not 2 <= len(table.seats) <= settings.table_size for table in placed.tables):
        raise RuleError("manual_pairing", f"a table seats 2-{settings.table_size} entrants")
    return Pairing(tuple(Table(number, table.seats)
                         for number, table in enumerate(placed.tables)), placed.byes)


def withdrawal(state: TournamentState, entrant: int, reason: str) -> list[Event]:
    """An entrant leaves: no later round pairs them (``RuleError`` once the tournament is
    over or when they have left already)."""
    if state.phase in FINAL:
        raise RuleError("tournament_over", "the tournament is over")
    if entrant in state.withdrawn:
        raise RuleError("already_withdrawn", f"entrant {entrant} has withdrawn already")
    return [E.PLAYER_WITHDRAWN.event(entrant=entrant, reason=reason)]


def abortion(state: TournamentState, reason: str) -> list[Event]:
    """The tournament is called off (``RuleError`` once it is over)."""
    if state.phase in FINAL:
        raise RuleError("tournament_over", "the tournament is over")
    return [E.TOURNAMENT_ABORTED.event(reason=reason)]


def ranks_of(result: Result) -> tuple[int, ...]:
    """Each seat's finishing rank at a recorded table, from its match points (more
    points, a better rank; equal points share one)."""
    return tuple(sum(1 for other in result.points if other > mine) for mine in result.points)


def table_of(state: TournamentState, entrant: int) -> tuple[PairedTable, int] | None:
    """The table the entrant is playing now and their seat there, if any."""
    for table in state.playing:
        if entrant in table.seats:
            return table, table.seats.index(entrant)
    return None
