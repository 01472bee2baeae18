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

import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from domain.controls import TERMINAL_EVENTS, AbortMatch, ForfeitSeat
from domain.errors import RuleError
from domain.match import Match
from domain.tournaments.events import RESULTS_RATED
from domain.tournaments.model import Pairing
from domain.tournaments.ratings import DEFAULT_RATING, Rating, rate
from domain.tournaments.results import TableOutcome, outcome_of
from domain.tournaments.tournament import (
    WITHDRAWN_REASON,
    Entrant,
    PairedTable,
    Tournament,
    TournamentDue,
    TournamentState,
    abortion,
    advance,
    joining,
    ranks_of,
    repairing,
    start,
    withdrawal,
)
from service.ports import MatchExists, RatingRecord, Ratings
from service.usecases.commands import Decision, EndMatch
from service.usecases.creation import MatchCreation
from service.usecases.errors import AppError, Invalid, NotFound
from service.usecases.names import NAME_TAKEN, name_key
from service.usecases.repository import Repository
from service.usecases.subscribers import Appended


class Tables(Protocol):
    """What paying a tournament's progress needs of its matches."""

    def open(self, tournament: Tournament, meta: Mapping[str, str],
             table: PairedTable) -> None:
        """Create the table's match; if it exists already (an earlier payment died half
        way), finish its creation."""

    def outcome(self, match_id: str) -> TableOutcome | None:
        """How the match ended; None while it is played."""

    def forfeit(self, match_id: str, seat: int) -> None:
        """Forfeit a withdrawn entrant's seat, unless the match has ended already."""

    def call_off(self, match_id: str, reason: str) -> None:
        """Call off a match of a pairing that no longer stands, if it was created."""


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
        if unopened is not None and not unopened.opens_by(self.now):
            return None
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

    def __init__(self, creation: MatchCreation, matches: Repository[Match],
                 tokens: Callable[[str], Mapping[str, str] | None]) -> None:
        self.creation = creation
        self.matches = matches
        self.tokens = tokens
        """A tournament's meta as stored now, with the token hashes of who joined (the
        repository's cached meta has only what the creation wrote)."""

    def open(self, tournament: Tournament, meta: Mapping[str, str],
             table: PairedTable) -> None:
        state = tournament.state
        assert state is not None
        settings = state.settings
        if self.creation.resume(table.match_id):
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
        if settings.duplicate_deals:
            body["seed"] = round_seed(meta, tournament_round(state, table))
        variant, options = self.creation.validated(body)
        new = self.creation.decide_new(variant, options, body, meta["owner"])
        if any(state.entrants[entrant].entry for entrant in table.seats):
            meta = self.tokens(settings.id) or meta
        hashes = [token_hash_of(state, meta, entrant) for entrant in table.seats]
        extra = {"tournament": settings.id, "tournament_table": str(table.number)}
        try:
            self.creation.store_with(new, table.match_id, hashes, "", extra)
        except MatchExists:
            return

    def forfeit(self, match_id: str, seat: int) -> None:
        self._end(match_id, ForfeitSeat(seat, WITHDRAWN_REASON), f"organiser:forfeit:{seat}")

    def call_off(self, match_id: str, reason: str) -> None:
        self._end(match_id, AbortMatch(reason), "organiser:abort")

    def _end(self, match_id: str, control: ForfeitSeat | AbortMatch, command_id: str) -> None:
        try:
            if self.matches.get(match_id).is_over:
                return
            self.creation.runner.run(match_id, EndMatch(control, command_id))
        except (RuleError, AppError):  # none, or it ended meanwhile: its result stands
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


def token_hash_of(state: TournamentState, meta: Mapping[str, str], entrant: int) -> str:
    """The hash of a person entrant's player token, as the meta keeps it (named at the
    creation: ``entrant:<n>``; joined later: ``token:entry:<entry>``, a field the
    repository does not cache); "" for a bot."""
    person = state.entrants[entrant]
    if person.bot:
        return ""
    field = f"token:entry:{person.entry}" if person.entry else f"entrant:{entrant}"
    return meta.get(field, "")


def tournament_round(state: TournamentState, table: PairedTable) -> tuple[int, int]:
    """The round a table is in, and which pairing of it."""
    for round_ in state.rounds:
        if table in round_.tables:
            return round_.number, round_.pairings
    raise ValueError(f"table {table.match_id} is in no round")


def round_seed(meta: Mapping[str, str], paired: tuple[int, int]) -> str:
    """The match seed every table of a round with duplicate deals is dealt from: derived
    from the tournament's secret (kept in its meta, never shown) and the round, so every
    table gets it and nobody can work out another round's from a revealed one."""
    secret = meta["deal_secret"].encode()
    number, pairing = paired
    return hmac.new(secret, f"round:{number}:{pairing}".encode(), hashlib.sha256).hexdigest()


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
class Join:
    """A person enters a tournament open for entry (``domain.tournaments.tournament.
    joining``) under a name nobody else in it has."""

    name: str
    external_id: str | None
    entry: str
    command_id: str
    retry_on_conflict: bool = True

    def decide(self, tournament: Tournament, context: TournamentContext) -> Decision:
        state = tournament.state
        assert state is not None
        if any(name_key(entrant.name) == name_key(self.name) for entrant in state.entrants):
            taken = "an entrant of the tournament has this name"
            raise Invalid(NAME_TAKEN, f"name: {taken}", {"name": [taken]})
        return Decision(joining(state, self.name, self.external_id, self.entry),
                        self.command_id, {"join": self.name})


@dataclass(frozen=True)
class StartTournament:
    """The organiser starts a tournament open for entry now."""

    now: float
    command_id: str
    retry_on_conflict: bool = True

    def decide(self, tournament: Tournament, context: TournamentContext) -> Decision:
        assert tournament.state is not None
        return Decision(start(tournament.state, self.now), self.command_id, {"start": True})


@dataclass(frozen=True)
class Repair:
    """The organiser pairs a round not yet started again (``repairing``)."""

    round: int
    placed: Pairing | None
    command_id: str
    retry_on_conflict: bool = False

    def decide(self, tournament: Tournament, context: TournamentContext) -> Decision:
        assert tournament.state is not None
        return Decision(repairing(tournament.state, self.round, self.placed),
                        self.command_id, {"repair": self.round,
                                          "manual": self.placed is not None})


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
