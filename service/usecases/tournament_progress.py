"""A tournament's progress, paid as owed work (``domain.tournaments.tournament``).

``Advance`` is the command of the tournaments' row in the table of obligations: it opens
the tables of a round just paired (creating each table's match under the id the pairing
derived, so a payment that comes twice, from two workers or after one died half way,
finds the matches it created and creates no more), reads how the round's matches ended,
and appends what follows: ``TablesOpened``, a ``MatchRecorded`` per ended match, and once
the round is complete the next ``RoundPaired`` or ``TournamentCompleted``. What it
appends is decided by the pure ``advance``; the matches are created and read here.

A table's match belongs to the tournament's organiser, so the organiser's controls
(forfeit, abort) work on it; a person's seat takes the entrant's player token (the hash
kept in the tournament's meta), so the one token an entrant got at registration opens
each of their tables; a bot entrant's seat is a computer player's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from domain.controls import TERMINAL_EVENTS, ForfeitSeat
from domain.errors import RuleError
from domain.match import Match
from domain.tournaments.events import RESULTS_RATED
from domain.tournaments.ratings import DEFAULT_RATING, Rating, rate
from domain.tournaments.results import TableOutcome, outcome_of
from domain.tournaments.tournament import (
    WITHDRAWN_REASON,
    Entrant,
    PairedTable,
    Tournament,
    TournamentDue,
    abortion,
    advance,
    ranks_of,
    withdrawal,
)
from service.ports import MatchExists, RatingRecord, Ratings
from service.usecases.commands import Decision, EndMatch
from service.usecases.creation import MatchCreation
from service.usecases.errors import AppError, NotFound
from service.usecases.names import name_key
from service.usecases.repository import Repository
from service.usecases.subscribers import Appended


class Tables(Protocol):
    """What paying a tournament's progress needs of its matches."""

    def open(self, tournament: Tournament, meta: Mapping[str, str],
             table: PairedTable) -> None:
        """Create the table's match unless it exists already."""

    def outcome(self, match_id: str) -> TableOutcome | None:
        """How the match ended; None while it is played."""

    def forfeit(self, match_id: str, seat: int) -> None:
        """Forfeit a withdrawn entrant's seat, unless the match has ended already."""


@dataclass(frozen=True)
class Advance:
    """The tournament's owed progress at ``now`` (``TournamentDue``): nothing when none
    is owed or nothing has changed."""

    now: float
    retry_on_conflict: bool = True

    def decide(self, tournament: Tournament, context: TournamentContext) -> Decision | None:
        state = tournament.state
        if state is None or tournament.is_over:
            return None
        unopened = state.unopened
        if unopened is not None:
            for table in unopened.tables:
                context.tables.open(tournament, context.meta, table)
        for table in state.playing if unopened is None else ():
            for seat, entrant in enumerate(table.seats):
                if entrant in state.withdrawn:
                    context.tables.forfeit(table.match_id, seat)
        outcomes = {} if unopened is not None else {
            table.match_id: outcome for table in state.playing
            if (outcome := context.tables.outcome(table.match_id)) is not None}
        events = advance(tournament, outcomes, self.now)
        if not events:
            return None
        return Decision(events, f"tournament:{tournament.version}")


@dataclass(frozen=True)
class TournamentContext:
    """What a tournament's commands decide with besides the tournament: its meta (owner,
    entrants' token hashes), its matches and the players' ratings."""

    meta: Mapping[str, str]
    tables: Tables
    ratings: Ratings


class MatchTables:
    """A tournament's tables as matches: created through match creation, read through
    the matches' repository."""

    def __init__(self, creation: MatchCreation, matches: Repository[Match]) -> None:
        self.creation = creation
        self.matches = matches

    def open(self, tournament: Tournament, meta: Mapping[str, str],
             table: PairedTable) -> None:
        state = tournament.state
        assert state is not None
        settings = state.settings
        if self.matches.meta(table.match_id) is not None:
            return
        players: list[dict[str, Any]] = []
        for entrant in table.seats:
            person = state.entrants[entrant]
            player: dict[str, Any] = {"name": person.name}
            if person.external_id:
                player["external_id"] = person.external_id
            if person.bot:
                player["bot"] = person.bot
            players.append(player)
        body: dict[str, Any] = {"variant": settings.variant, "players": players,
                                "options": dict(settings.options),
                                "tags": [f"tournament:{settings.id}"]}
        if settings.clock:
            body["clock"] = dict(settings.clock)
        variant, options = self.creation.validated(body)
        new = self.creation.decide_new(variant, options, body, meta["owner"])
        hashes = ["" if state.entrants[entrant].bot else meta.get(f"entrant:{entrant}", "")
                  for entrant in table.seats]
        extra = {"tournament": settings.id, "tournament_table": str(table.number)}
        try:
            self.creation.store_with(new, table.match_id, hashes, "", extra)
        except MatchExists:
            return

    def forfeit(self, match_id: str, seat: int) -> None:
        try:
            if self.matches.get(match_id).is_over:
                return
            self.creation.runner.run(match_id, EndMatch(
                ForfeitSeat(seat, WITHDRAWN_REASON), f"organiser:forfeit:{seat}"))
        except (RuleError, AppError):  # it ended meanwhile: its result stands
            return

    def outcome(self, match_id: str) -> TableOutcome | None:
        try:
            match = self.matches.get(match_id)
        except NotFound:
            return None
        if not match.is_over:
            return None
        return outcome_of(match.state.completion, len(match.state.players),
                          match.variant.low_scores_win)


class TableEnded:
    """A subscriber: when a tournament's match ends, the tournament is looked at now
    rather than at its next look (``Work.remind``). Only sooner: should this be lost in
    a crash, the tournament is still due and its next look records the result."""

    def __init__(self, meta: Callable[[str], Mapping[str, str] | None],
                 remind: Callable[[str, str], None]) -> None:
        self.meta = meta
        self.remind = remind

    def __call__(self, appended: Appended[Match]) -> None:
        if not appended.aggregate.is_over or not any(
                event.type in TERMINAL_EVENTS for event in appended.events):
            return
        tournament_id = (self.meta(appended.aggregate_id) or {}).get("tournament")
        if tournament_id:
            self.remind(TournamentDue.kind, tournament_id)


@dataclass(frozen=True)
class Withdraw:
    """The organiser withdraws an entrant (``domain.tournaments.tournament.withdrawal``)."""

    entrant: int
    reason: str
    command_id: str
    retry_on_conflict: bool = True

    def decide(self, tournament: Tournament, context: TournamentContext) -> Decision:
        assert tournament.state is not None
        return Decision(withdrawal(tournament.state, self.entrant, self.reason),
                        self.command_id, {"withdraw": self.entrant, "reason": self.reason})


@dataclass(frozen=True)
class AbortTournament:
    """The organiser calls the tournament off."""

    reason: str
    command_id: str
    retry_on_conflict: bool = True

    def decide(self, tournament: Tournament, context: TournamentContext) -> Decision:
        assert tournament.state is not None
        return Decision(abortion(tournament.state, self.reason), self.command_id,
                        {"abort": self.reason})


@dataclass(frozen=True)
class RateResults:
    """The recorded results not yet rated update the players' ratings of the variant,
    in the order recorded, each once (``Ratings.apply`` keeps a marker per result, so a
    payment repeated after a crash rates nothing twice); then ``ResultsRated``.

    A person is rated by their external id when the organiser gave one, else by name; a
    computer player by its level. A forfeited table or one called off is not rated, nor
    a table where one player would sit twice (two bots of one level)."""

    retry_on_conflict: bool = True

    def decide(self, tournament: Tournament, context: TournamentContext) -> Decision | None:
        state = tournament.state
        if state is None or state.rated >= len(state.results):
            return None
        for index in range(state.rated, len(state.results)):
            result = state.results[index]
            players = [player_of(state.entrants[entrant]) for entrant in result.seats]
            if result.forfeit or len({p for p, _ in players}) < len(players):
                continue
            context.ratings.apply(state.settings.variant, f"{state.settings.id}:{index}",
                                  players, partial(rated, players, ranks_of(result)))
        upto = len(state.results)
        return Decision([RESULTS_RATED.event(upto=upto)], f"tournament:ratings:{upto}")


def player_of(entrant: Entrant) -> tuple[str, str]:
    """A rated player's id and name (``RateResults``)."""
    if entrant.bot:
        return f"bot:{entrant.bot}", f"{entrant.bot.capitalize()} bot"
    if entrant.external_id:
        return f"id:{entrant.external_id}", entrant.name
    return f"name:{name_key(entrant.name)}", entrant.name


def rated(players: Sequence[tuple[str, str]], ranks: Sequence[int],
          before: list[RatingRecord | None]) -> list[RatingRecord]:
    """What ``Ratings.apply`` writes: the table's players rated from their finishing
    ranks (``domain.tournaments.ratings.rate``); a player new to the variant starts at
    the default rating."""
    now = rate([DEFAULT_RATING if record is None else
                Rating(record.mu, record.sigma, record.games) for record in before], ranks)
    return [RatingRecord(player, name, rating.mu, rating.sigma, rating.games)
            for (player, name), rating in zip(players, now, strict=True)]


def shown(record: RatingRecord) -> float:
    """A rating as players see it (``domain.tournaments.ratings.Rating.display``)."""
    return Rating(record.mu, record.sigma, record.games).display
