"""Tournaments the server runs: created by an organiser, paired and recorded by the
server as owed work (``service.usecases.tournament_progress``), read by anybody.

A tournament is the second aggregate on the same event store, repository and runner as
matches (``domain.tournaments.tournament``); its stream and meta live in its own hash
slot (``{prefix}:{<tournament_id>}:...``), and its creation joins
``{prefix}:tournaments``.

Every person entrant gets a player token once, at creation (or as they join a tournament
open for entry); its hash is kept in the tournament's meta (``entrant:<n>``, or
``token:entry:<entry>`` for one who joined) and becomes the seat token of each of the entrant's
tables, so ``me`` can show an entrant their table and they act there with the same token.
The token index knows it from the creation on (as the tournament's, then as each new
table's), so it names somebody before the first table exists.
"""

from __future__ import annotations

import csv
import io
import itertools
import secrets
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from domain.chain import canonical_json
from domain.tournaments import events as E
from domain.tournaments.events import FORMATS
from domain.tournaments.formats import ELIMINATIONS, ranked
from domain.tournaments.model import Pairing, Table
from domain.tournaments.standings import DEFAULT_TIE_BREAKS, TIE_BREAKS
from domain.tournaments.tournament import (
    REGISTERING,
    PairedTable,
    Round,
    Tournament,
    TournamentState,
    default_rounds,
    started,
    table_of,
)
from domain.variants import VARIANTS
from service.codec import to_store
from service.credentials import new_token, same_secret, token_hash
from service.ports import ADMIN, EventStore, OpenEntries, Ratings, StoredEvent
from service.usecases.access import Access
from service.usecases.bot_players import bot_seats
from service.usecases.creation import MatchCreation, clock_events
from service.usecases.errors import NotFound, invalid, not_allowed
from service.usecases.names import require_name, require_names
from service.usecases.queries import MatchQueries
from service.usecases.repository import Repository
from service.usecases.runner import CommandRunner
from service.usecases.subscribers import Appended
from service.usecases.tournament_progress import (
    AbortTournament,
    Join,
    MatchTables,
    Repair,
    StartTournament,
    Withdraw,
    shown,
    token_hash_of,
)

MAX_ENTRANTS = 1000
MAX_ENTRY_DAYS = 30
"""How far ahead a tournament open for entry may set its start."""
MAX_ROUND_BREAK_S = 3600
LEFT_REASON = "left the tournament"


def tournament_not_found(tournament_id: str) -> NotFound:
    return NotFound("tournament_not_found", f"no tournament {tournament_id!r}")


class HostedTournaments:
    """Create tournaments and read them; the server does the rest."""

    def __init__(self, runner: CommandRunner[Tournament], store: EventStore,
                 creation: MatchCreation, access: Access, matches: MatchQueries,
                 tables: MatchTables, ratings: Ratings, entries: OpenEntries,
                 clock: Callable[[], float] = time.time) -> None:
        self.runner = runner
        self.entries = entries
        self.rated = ratings
        self.tables = tables
        self.matches = matches
        self._clock = clock
        self.repository: Repository[Tournament] = runner.repository
        self.store = store
        self.creation = creation
        self.access = access

    # --- creating ------------------------------------------------------------------------

    def create(self, body: Mapping[str, Any], token: str | None) -> dict[str, Any]:
        """Check the body, store the tournament with its first round paired, and return
        it with each person entrant's player token (shown this once)."""
        owner = self.access.organiser(token)
        if owner is None:
            raise not_allowed(token is not None, "organiser_only",
                              "creating a tournament needs an organiser key (or the admin "
                              "token)")
        now = self._clock()
        data = self.checked(body, now)
        tournament_id = f"t-{uuid.uuid4().hex}"
        data["id"] = tournament_id
        tokens = {number: new_token() for number, entrant in enumerate(data["entrants"])
                  if not entrant["bot"]}
        meta = {"aggregate": "tournament", "owner": owner, "name": data["name"],
                "variant": data["variant"], "created_at": f"{time.time():.3f}",
                **{f"entrant:{number}": token_hash(secret)
                   for number, secret in tokens.items()}}
        if data["duplicate_deals"]:
            meta["deal_secret"] = secrets.token_hex(32)
        result = self.store.create(tournament_id, to_store(started(data, now)), meta,
                                   command_id=f"create:{tournament_id}")
        self.access.register(tournament_id, {token_hash(secret): number
                                             for number, secret in tokens.items()})
        tournament = self.runner.created(tournament_id, result.events)
        if data["registration"] is not None:
            self.entries.add(tournament_id, data["variant"], now)
        view = self.view(tournament_id, tournament)
        for entrant in view["entrants"]:
            entrant["token"] = tokens.get(entrant["entrant"])
        return view

    def checked(self, body: Mapping[str, Any], now: float) -> dict[str, Any]:
        """``TournamentCreated``'s payload from a creation body, or ``Invalid``."""
        fmt = body.get("format", "swiss")
        if fmt not in FORMATS:
            raise invalid("format", f"one of {list(FORMATS)}", "invalid_format")
        entrants = [self._entrant(number, entrant)
                    for number, entrant in enumerate(body.get("players") or [])]
        registration = self._registration(body.get("registration"), len(entrants), now)
        least = 0 if registration is not None else 2
        if not least <= len(entrants) <= MAX_ENTRANTS:
            raise invalid("players", f"a tournament takes 2-{MAX_ENTRANTS} players (with "
                                     f"registration, 0 or more to begin with)",
                          "invalid_players")
        require_names(entrants)
        table_size = body.get("table_size", 2)
        family = VARIANTS.get(body.get("variant") or "")
        if family is not None and not family.min_players <= table_size <= family.max_players:
            raise invalid("table_size", f"{family.name} seats {family.min_players}-"
                                        f"{family.max_players} players at a table",
                          "invalid_table_size")
        variant, options = self.creation.validated(
            {"variant": body.get("variant"), "options": body.get("options"),
             "players": [{"name": f"Seat {seat + 1}"} for seat in range(table_size)]})
        if fmt in ELIMINATIONS and table_size != 2:
            raise invalid("table_size", "eliminations play two-seat tables",
                          "invalid_table_size")
        rounds = body.get("rounds")
        if fmt == "swiss" and rounds is None and registration is None:
            rounds = default_rounds(len(entrants))
        if fmt != "swiss" and rounds is not None:
            raise invalid("rounds", "rounds are set for a Swiss only", "invalid_rounds")
        tie_breaks = list(body.get("tie_breaks") or DEFAULT_TIE_BREAKS)
        unknown = [name for name in tie_breaks if name not in TIE_BREAKS]
        if unknown or len(set(tie_breaks)) != len(tie_breaks):
            raise invalid("tie_breaks", f"distinct names from {list(TIE_BREAKS)}",
                          "invalid_tie_breaks")
        clock_events(body.get("clock"))
        minutes = body.get("minutes")
        if (fmt == "arena") != (minutes is not None):
            raise invalid("minutes", "an arena lasts minutes; only an arena",
                          "invalid_minutes")
        round_break_s = body.get("round_break_s") or 0
        if round_break_s and fmt == "arena":
            raise invalid("round_break_s", "an arena pairs players as they finish; it has "
                                           "no rounds to pause between", "invalid_round_break")
        starts_now = minutes is not None and registration is None
        return {"name": body.get("name") or f"{variant.name} {fmt.replace('_', ' ')}",
                "variant": variant.name, "options": dict(body.get("options") or {}),
                "format": fmt, "table_size": table_size, "rounds": rounds,
                "tie_breaks": tie_breaks, "entrants": entrants,
                "clock": dict(body["clock"]) if body.get("clock") else None,
                "ends_at": round(now + 60 * minutes, 3) if starts_now and minutes else None,
                "minutes": minutes, "registration": registration,
                "round_break_s": round_break_s,
                "duplicate_deals": bool(body.get("duplicate_deals"))}

    @staticmethod
    def _registration(entry: Mapping[str, Any] | None, named: int,
                      now: float) -> dict[str, Any] | None:
        """``TournamentCreated``'s registration from the body's, or None (it starts at
        once); ``Invalid`` for a start in the past or too far ahead, or a limit below
        the entrants named already."""
        if entry is None:
            return None
        most = entry.get("max_players") or MAX_ENTRANTS
        if not max(2, named) <= most <= MAX_ENTRANTS:
            raise invalid("registration.max_players", f"between the players named (and "
                                                      f"2) and {MAX_ENTRANTS}",
                          "invalid_registration")
        starts_at = entry.get("starts_at")
        if starts_at is not None and not now < starts_at <= now + MAX_ENTRY_DAYS * 86400:
            raise invalid("registration.starts_at", f"a time (epoch seconds) after now and "
                                                    f"within {MAX_ENTRY_DAYS} days",
                          "invalid_registration")
        return {"max_players": most,
                "starts_at": None if starts_at is None else round(float(starts_at), 3)}

    @staticmethod
    def _entrant(number: int, player: Mapping[str, Any]) -> dict[str, Any]:
        bot = player.get("bot")
        name = player.get("name") or (f"{bot.capitalize()} bot {number + 1}" if bot else "")
        if bot is not None:
            bot_seats([{"name": name, "bot": bot}])
        return {"name": name, "external_id": player.get("external_id"), "bot": bot}

    # --- reading -------------------------------------------------------------------------

    def get(self, tournament_id: str) -> dict[str, Any]:
        return self.view(tournament_id, self.repository.get(tournament_id))

    def view(self, tournament_id: str, tournament: Tournament) -> dict[str, Any]:
        """What anybody may see of a tournament: everything but its tokens."""
        state = _state(tournament)
        settings = state.settings
        return {"id": tournament_id, "version": tournament.version, "name": settings.name,
                "variant": settings.variant, "options": dict(settings.options),
                "format": settings.format, "table_size": settings.table_size,
                "rounds": settings.rounds, "tie_breaks": list(settings.tie_breaks),
                "ends_at": settings.ends_at,
                "clock": dict(settings.clock) if settings.clock else None,
                "registration": None if settings.registration is None else {
                    "max_players": settings.registration.max_players,
                    "starts_at": settings.registration.starts_at,
                    "open": state.phase == REGISTERING},
                "round_break_s": settings.round_break_s,
                "duplicate_deals": settings.duplicate_deals,
                "status": state.phase, "round": len(state.rounds),
                "entrants": [{"entrant": number, "name": entrant.name,
                              "external_id": entrant.external_id, "bot": entrant.bot,
                              "withdrawn": number in state.withdrawn}
                             for number, entrant in enumerate(state.entrants)],
                "standings": self.standings_of(state)}

    def standings(self, tournament_id: str) -> list[dict[str, Any]]:
        return self.standings_of(_state(self.repository.get(tournament_id)))

    @staticmethod
    def standings_of(state: TournamentState) -> list[dict[str, Any]]:
        rows = ranked(state)
        return [{"rank": row.rank, "entrant": row.entrant,
                 "name": state.entrants[row.entrant].name, "points": row.points,
                 "played": row.played, "wins": row.wins, "byes": row.byes,
                 "tie_breaks": dict(row.tie_breaks), "withdrawn": row.withdrawn}
                for row in rows]

    def round(self, tournament_id: str, number: int) -> dict[str, Any]:
        """A round's tables (each a match), byes and results."""
        state = _state(self.repository.get(tournament_id))
        if not 1 <= number <= len(state.rounds):
            raise NotFound("round_not_found", f"the tournament has {len(state.rounds)} "
                                              f"round(s) paired, not {number}")
        round_ = state.rounds[number - 1]
        return {"round": number, "opened": round_.opened, "completed": round_.completed,
                "opens_at": None if round_.opened else round_.opens_at,
                "pairings": round_.pairings,
                "byes": [_entrant_ref(state, entrant) for entrant in round_.byes],
                "tables": [_table_view(state, round_, table) for table in round_.tables]}

    def export(self, tournament_id: str) -> Iterator[str]:
        """The tournament's log, then each recorded table's match log (its records
        carrying ``match_id``), as NDJSON: what ``rummy verify`` checks offline.

        Reads before returning, so a 404 comes before the response starts."""
        tournament = self.repository.get(tournament_id)
        own = [_record(stored) for stored in self.repository.stored(
            tournament_id, until=tournament.version)]
        state = _state(tournament)
        recorded = [table.match_id for round_ in state.rounds for table in round_.tables
                    if table.number in round_.results]
        return itertools.chain(
            (canonical_json(record) + "\n" for record in own),
            (canonical_json({**record, "match_id": match_id}) + "\n"
             for match_id in recorded for record in self.matches.events(match_id, None)))

    def ratings(self, variant: str, offset: int, limit: int) -> dict[str, Any]:
        """A page of the variant's rated players, best first (``RateResults``)."""
        if variant not in VARIANTS:
            raise NotFound("variant_not_found", f"no variant {variant!r}")
        total, records = self.rated.top(variant, offset, limit)
        return {"variant": variant, "total": total, "players": [
            {"rank": offset + number, "player": record.player, "name": record.name,
             "rating": shown(record), "mu": record.mu, "sigma": record.sigma,
             "games": record.games}
            for number, record in enumerate(records, 1)]}

    def open_for_entry(self, variant: str | None, limit: int,
                       cursor: str | None) -> dict[str, Any]:
        """Tournaments players may join now, newest first (the lobby's): each as its
        public view. One the listing finds closed (its removal lost) is dropped."""
        ids, following = self.entries.page(variant, int(cursor or 0), limit)
        found = []
        for tournament_id in ids:
            try:
                tournament = self.repository.get(tournament_id)
            except NotFound:  # deleted: it can only be dropped from the listing asked
                self.entries.unlist(tournament_id, variant or "")
                continue
            state = _state(tournament)
            if state.phase != REGISTERING:
                self.entries.unlist(tournament_id, state.settings.variant)
                continue
            found.append(self.view(tournament_id, tournament))
        return {"tournaments": found,
                "next_cursor": None if following is None else str(following)}

    # --- entering ------------------------------------------------------------------------

    def join(self, tournament_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """A person enters a tournament open for entry: their player token, once. The
        token's hash is kept before the event that names it, so a join that fails leaves
        only an unused hash behind, never an entrant without a token."""
        require_name("name", body["name"])
        self.repository.get(tournament_id)
        token, entry = new_token(), uuid.uuid4().hex[:16]
        self.store.add_meta(tournament_id, {f"token:entry:{entry}": token_hash(token)})
        outcome = self.runner.run(tournament_id, Join(
            body["name"], body.get("external_id"), entry, f"join:{entry}"))
        state = _state(outcome.aggregate)
        entrant = len(state.entrants) - 1
        self.access.register(tournament_id, {token_hash(token): entrant})
        return {"tournament_id": tournament_id, "entrant": entrant,
                "name": state.entrants[entrant].name, "token": token}

    def leave(self, tournament_id: str, token: str | None) -> dict[str, Any]:
        """An entrant withdraws themselves, as the organiser would withdraw them."""
        tournament = self.repository.get(tournament_id)
        entrant = self._entrant_of(tournament_id, token, _state(tournament))
        self._withdraw(tournament_id, entrant, LEFT_REASON, f"leave:{entrant}")
        return self.me(tournament_id, token)

    # --- the organiser's controls ---------------------------------------------------------

    def start(self, tournament_id: str, token: str | None) -> dict[str, Any]:
        """The owner starts a tournament open for entry now: entry closes and the first
        round is paired with the entrants so far."""
        self._require_owner(tournament_id, token)
        outcome = self.runner.run(tournament_id, StartTournament(self._clock(),
                                                                 "organiser:start"))
        return self.view(tournament_id, outcome.aggregate)

    def repair(self, tournament_id: str, number: int, token: str | None,
               body: Mapping[str, Any]) -> dict[str, Any]:
        """The owner pairs a round not yet started again: by the format, or (a Swiss) as
        they place the entrants. Matches of the old pairing that a worker created
        already are called off; the new tables get new match ids."""
        self._require_owner(tournament_id, token)
        state = _state(self.repository.get(tournament_id))
        if not 1 <= number <= len(state.rounds):
            raise NotFound("round_not_found", f"the tournament has {len(state.rounds)} "
                                              f"round(s) paired, not {number}")
        old = state.rounds[number - 1]
        placed = None
        if body.get("tables") is not None:
            placed = Pairing(tuple(Table(n, tuple(seats))
                                   for n, seats in enumerate(body["tables"])),
                             tuple(body.get("byes") or ()))
        self.runner.run(tournament_id, Repair(
            number, placed, f"organiser:repair:{number}:{old.pairings}"))
        for table in old.tables:
            self.tables.call_off(table.match_id, "the round was paired again")
        return self.round(tournament_id, number)


    def withdraw(self, tournament_id: str, token: str | None,
                 body: Mapping[str, Any]) -> dict[str, Any]:
        """The owner withdraws an entrant: no later round pairs them, and the match they
        are playing, if any, is forfeited for them (so their table's result comes in
        and the round goes on)."""
        self._require_owner(tournament_id, token)
        tournament = self.repository.get(tournament_id)
        state = _state(tournament)
        entrant, reason = body["entrant"], body["reason"]
        if not 0 <= entrant < len(state.entrants):
            raise invalid("entrant", f"the tournament has entrants 0-"
                                     f"{len(state.entrants) - 1}", "unknown_entrant")
        self._withdraw(tournament_id, entrant, reason, f"organiser:withdraw:{entrant}")
        return self.view(tournament_id, self.repository.get(tournament_id))

    def _withdraw(self, tournament_id: str, entrant: int, reason: str,
                  command_id: str) -> None:
        """No later round pairs the entrant; the match they are playing is forfeited."""
        outcome = self.runner.run(tournament_id, Withdraw(entrant, reason, command_id))
        seated = table_of(_state(outcome.aggregate), entrant)
        if seated is not None:
            self.tables.forfeit(seated[0].match_id, seated[1])

    def abort(self, tournament_id: str, token: str | None,
              body: Mapping[str, Any]) -> dict[str, Any]:
        """The owner calls the tournament off: no more rounds; matches already running
        play on but no longer count."""
        self._require_owner(tournament_id, token)
        outcome = self.runner.run(tournament_id, AbortTournament(
            body["reason"], "organiser:abort"))
        return self.view(tournament_id, outcome.aggregate)

    def _require_owner(self, tournament_id: str, token: str | None) -> str:
        """The calling organiser, who must own the tournament (another's is a 404)."""
        organiser = self.access.organiser(token)
        if organiser is None:
            raise not_allowed(token is not None, "organiser_only",
                              "this needs an organiser key (or the admin token)")
        meta = self.repository.meta(tournament_id)
        if meta is None or (organiser != ADMIN and meta.get("owner") != organiser):
            raise tournament_not_found(tournament_id)
        return organiser

    def me(self, tournament_id: str, token: str | None) -> dict[str, Any]:
        """The entrant whose player token this is, and their table in the current round
        (their seat there takes the same token), or None between rounds and on a bye."""
        tournament = self.repository.get(tournament_id)
        state = _state(tournament)
        entrant = self._entrant_of(tournament_id, token, state)
        current = state.current
        paired = None if current is None else next(
            (t for t in current.tables if entrant in t.seats), None)
        table = paired if current is not None and current.opened else None
        upcoming = paired if current is not None and not current.opened else None
        return {"entrant": entrant, "name": state.entrants[entrant].name,
                "withdrawn": entrant in state.withdrawn, "round": len(state.rounds),
                "status": state.phase,
                "bye": current is not None and entrant in current.byes,
                "table": None if table is None else {
                    "table": table.number, "match_id": table.match_id,
                    "seat": table.seats.index(entrant),
                    "result_recorded": current is not None
                    and table.number in current.results},
                "upcoming": None if upcoming is None or current is None else {
                    "table": upcoming.number, "seat": upcoming.seats.index(entrant),
                    "opens_at": current.opens_at,
                    "opponents": [_entrant_ref(state, other) for other in upcoming.seats
                                  if other != entrant]}}

    def _entrant_of(self, tournament_id: str, token: str | None,
                    state: TournamentState) -> int:
        if not token:
            raise not_allowed(False, "player_token_required", "send the player token "
                                                              "you got at registration")
        meta = self.store.meta(tournament_id) or {}
        digest = token_hash(token)
        for number in range(len(state.entrants)):
            kept = token_hash_of(state, meta, number)
            if kept and same_secret(kept, digest):
                return number
        raise not_allowed(True, "not_an_entrant", "this token is no entrant's of the "
                                                  "tournament")


class EntryClosed:
    """A subscriber: a tournament that starts (or is called off) leaves the lobby's
    listing of tournaments open for entry. Should this be lost, the listing drops it
    when it next meets it."""

    CLOSING = frozenset({E.TOURNAMENT_STARTED.name, E.TOURNAMENT_ABORTED.name})

    def __init__(self, entries: OpenEntries) -> None:
        self.entries = entries

    def __call__(self, appended: Appended[Tournament]) -> None:
        state = appended.aggregate.state
        if state is not None and state.settings.registration is not None and any(
                event.type in self.CLOSING for event in appended.events):
            self.entries.unlist(appended.aggregate_id, state.settings.variant)


def _state(tournament: Tournament) -> TournamentState:
    assert tournament.state is not None
    return tournament.state


def _record(stored: StoredEvent) -> dict[str, Any]:
    """A stored tournament event as an export holds it (nothing in it is secret)."""
    return {"version": stored.version, "type": stored.type, "schema": stored.schema,
            "ts": stored.ts, "command_id": stored.command_id, "prev_hash": stored.prev_hash,
            "hash": stored.hash, "data": stored.data, "command": stored.command,
            "redacted": False}


def _entrant_ref(state: TournamentState, entrant: int) -> dict[str, Any]:
    return {"entrant": entrant, "name": state.entrants[entrant].name}


def _table_view(state: TournamentState, round_: Round, table: PairedTable) -> dict[str, Any]:
    result = round_.results.get(table.number)
    seats = [{**_entrant_ref(state, entrant), "seat": seat,
              "points": None if result is None else result.points[seat],
              "game_points": None if result is None else result.game_points[seat]}
             for seat, entrant in enumerate(table.seats)]
    return {"table": table.number, "match_id": table.match_id, "seats": seats,
            "finished": result is not None, "forfeit": bool(result and result.forfeit)}


STANDING_COLUMNS = ("rank", "entrant", "name", "points", "played", "wins", "byes",
                    "withdrawn")


def standings_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """The standings as CSV: the fixed columns, then one per tie-break in order."""
    tie_breaks = list(rows[0]["tie_breaks"]) if rows else []
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*STANDING_COLUMNS, *tie_breaks])
    for row in rows:
        writer.writerow([*(str(row[column]).lower() if isinstance(row[column], bool)
                           else row[column] for column in STANDING_COLUMNS),
                         *(row["tie_breaks"][name] for name in tie_breaks)])
    return out.getvalue()
