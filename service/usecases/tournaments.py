"""Tournaments: find matches by their metadata, create whole rounds, export results.

- **Listing** scans the narrowest index (service/adapters/catalog.py) newest first and filters the
  rest in memory; the cursor is the (creation time, id) of the last match scanned.
- **Batches** validate every match before creating any, so one bad match creates none.
  The record lives at ``{prefix}:batch:<id>`` (JSON: id, owner, created_at, duplicate,
  tags, matches) and each match is tagged ``batch:<id>``.
- **Duplicate deals** pair matches (0, 1), (2, 3), ...: the second table of a pair uses
  the first's ``MatchSecrets`` (seed and entropy, so every hand's deck and gem dice are
  the same), its prepared deck and dice, and the same players rotated one seat: table 2's
  seat ``i`` holds table 1's player ``(i + 1) % n``, so each player holds at table 2 the
  cards the previous seat held at table 1 (two players simply swap).
- **Results** are the completed matches carrying every given tag, oldest first.
"""

from __future__ import annotations

import csv
import io
import re
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from domain.controls import FINAL_PHASES
from service.ports import ADMIN, Batches, Catalog, MatchInfo
from service.usecases.access import Access
from service.usecases.bot_players import bot_view, with_bot_names
from service.usecases.creation import MatchCreation, NewMatch
from service.usecases.errors import AppError, Invalid, NotFound, not_allowed
from service.usecases.queries import MatchQueries

STATUSES = ("live", "complete", "aborted")
"""A match's status: its phase once it is over (``FINAL_PHASES``), else live."""
SCAN_LIMIT = 1000
"""Matches one listing request looks at; a page can be short, so follow next_cursor."""
COMPLETION_FIELDS = ("winner", "winners", "final_scores", "bonuses")
CSV_COLUMNS = ("match_id", "match_external_id", "variant", "tags", "batch",
               "duplicate_group", "duplicate_table", "seat", "name", "player_external_id",
               "winner", "final_score", "bonus")


def status_of(phase: str) -> str:
    return phase if phase in FINAL_PHASES else "live"


CURSOR = r"^[0-9]{1,16}-[0-9a-f]{32}$"
"""A listing cursor: the last scanned match's creation time (epoch milliseconds) and id.
Opaque to clients, but its form is in openapi.yaml, and every string of that form is a
position the listing can resume from (none is a 400 the spec allows)."""


def encode_cursor(score: float, match_id: str) -> str:
    """The cursor after (score, match_id). Creation times are kept to the millisecond
    (``created_at``) and match ids are uuid4 hex, so the cursor is exact."""
    return f"{round(score * 1000)}-{match_id}"


def decode_cursor(cursor: str) -> tuple[float, str]:
    """The (score, match id) a cursor names; anything not of ``CURSOR``'s form is a 400."""
    if re.fullmatch(CURSOR, cursor) is None:
        raise Invalid("invalid_cursor", "cursor: not a cursor this API gave",
                       {"cursor": ["not a cursor this API gave"]})
    millis, match_id = cursor.split("-", 1)
    return int(millis) / 1000, match_id


class Tournaments:
    """Use cases over many matches of one organiser (or, for the admin, of everyone)."""

    def __init__(self, creation: MatchCreation, queries: MatchQueries, access: Access,
                 index: Catalog, batches: Batches) -> None:
        self.creation = creation
        self.queries = queries
        self.access = access
        self.index = index
        self.batches = batches

    def organiser(self, token: str | None) -> str:
        organiser = self.access.organiser(token)
        if organiser is None:
            raise not_allowed(token is not None, "organiser_only",
                           "this needs an organiser key (or the admin token)")
        return organiser

    # --- listing -----------------------------------------------------------------------

    def find(self, token: str | None, tags: Sequence[str], status: str | None,
             external_id: str | None, limit: int, cursor: str | None) -> dict[str, Any]:
        """One page of the caller's matches, newest first, with every filter applied."""
        organiser = self.organiser(token)
        scope = None if organiser == ADMIN else organiser
        after = decode_cursor(cursor) if cursor else None
        key = self.index.narrowest(scope, tags, external_id)
        found: list[dict[str, Any]] = []
        scan = self.index.scan(key, after)
        next_cursor = None
        for scanned, (match_id, score) in enumerate(scan, start=1):
            item = self._listed(match_id, scope, tags, external_id, status)
            if item is not None:
                found.append(item)
            if len(found) == limit or scanned == SCAN_LIMIT:
                if next(scan, None) is not None:
                    next_cursor = encode_cursor(score, match_id)
                break
        return {"matches": found, "next_cursor": next_cursor}

    def _listed(self, match_id: str, scope: str | None, tags: Sequence[str],
                external_id: str | None, status: str | None) -> dict[str, Any] | None:
        info = self.queries.info(match_id)
        if info is None or (scope is not None and info.owner != scope):
            return None
        if not set(tags) <= set(info.tags):
            return None
        if external_id is not None and info.external_id != external_id:
            return None
        try:
            item = self.summary(info)
        except NotFound:  # deleted by embedded retention since it was indexed
            return None
        return item if status is None or item["status"] == status else None

    def summary(self, info: MatchInfo) -> dict[str, Any]:
        """A match as listings show it: metadata, players, status, and the result if over."""
        loaded = self.queries.load(info.id)
        state, version = loaded.state, loaded.version
        names = info.names or state.players
        item: dict[str, Any] = {
            "id": info.id, "variant": info.variant, "status": status_of(state.phase),
            "phase": state.phase, "version": version, "created_at": info.created_at,
            **info.fields(),
            "players": [{"seat": seat, "name": name, "external_id": info.player_id(seat),
                         "bot": bot_view(loaded.bots.get(seat))}
                        for seat, name in enumerate(names)]}
        completion = state.completion or {}
        item.update({key: completion[key] for key in COMPLETION_FIELDS if key in completion})
        return item

    # --- batches -----------------------------------------------------------------------

    def create_batch(self, body: Mapping[str, Any], token: str | None) -> dict[str, Any]:
        """Validate every match, then create them all (none when any is invalid)."""
        owner = self.organiser(token)
        bodies, duplicate = list(body["matches"]), bool(body.get("duplicate"))
        if duplicate and len(bodies) % 2:
            raise Invalid("invalid_duplicate", "matches: duplicate deals pair the matches "
                           "(0, 1), (2, 3), ...: send an even number",
                           {"matches": ["duplicate needs an even number of matches"]})
        prepared: list[NewMatch] = []
        for index, match in enumerate(bodies):
            first = (bodies[index - 1], prepared[index - 1]) if duplicate and index % 2 else None
            prepared.append(self._prepare(index, match, first, token))
        batch_id = uuid.uuid4().hex
        ids = [uuid.uuid4().hex for _ in bodies]
        created = [self.creation.store_new(
            replace(new, tags=tuple(dict.fromkeys([*new.tags, *body.get("tags", ()),
                                                   f"batch:{batch_id}"]))),
            ids[index], self._batch_meta(batch_id, ids, index, duplicate))
            for index, new in enumerate(prepared)]
        record = {"id": batch_id, "owner": owner, "created_at": round(time.time(), 3),
                  "duplicate": duplicate, "tags": list(body.get("tags", ())), "matches": ids}
        self.batches.save(record)
        return {**self._public(record), "matches": created}

    def _prepare(self, index: int, body: Mapping[str, Any],
                 first: tuple[Mapping[str, Any], NewMatch] | None,
                 token: str | None) -> NewMatch:
        try:
            if first is None:
                return self.creation.prepare(body, token)
            first_body, first_match = first
            new = self.creation.prepare(second_table(with_bot_names(body),
                                                     with_bot_names(first_body)), token,
                                        first_match.secrets)
            if new.variant.name != first_match.variant.name:
                raise _pair_error("variant", "must be the first table's variant")
            if new.options != first_match.options:
                raise _pair_error("options", "must be the first table's options")
            return new
        except AppError as exc:
            raise _prefixed(index, exc) from exc

    @staticmethod
    def _batch_meta(batch_id: str, ids: list[str], index: int,
                    duplicate: bool) -> dict[str, str]:
        meta = {"batch": batch_id}
        if duplicate:
            meta.update(duplicate_group=f"{batch_id}:{index // 2}",
                        duplicate_table=str(index % 2 + 1), duplicate_partner=ids[index ^ 1])
        return meta

    def batch(self, batch_id: str, token: str | None) -> dict[str, Any]:
        """A batch and its matches (as listed), in the order they were sent."""
        organiser = self.organiser(token)
        record = self.batches.get(batch_id)
        if record is None or (organiser != ADMIN and record["owner"] != organiser):
            raise NotFound("batch_not_found", f"no batch {batch_id!r}")
        infos = [self.queries.info(match_id) for match_id in record["matches"]]
        return {**self._public(record),
                "matches": [self.summary(info) for info in infos if info is not None]}

    @staticmethod
    def _public(record: Mapping[str, Any]) -> dict[str, Any]:
        return {key: record[key] for key in ("id", "created_at", "duplicate", "tags")}

    # --- results -----------------------------------------------------------------------

    def results(self, token: str | None, tags: Sequence[str]) -> list[dict[str, Any]]:
        """The caller's completed matches carrying every tag, oldest first."""
        organiser = self.organiser(token)
        scope = None if organiser == ADMIN else organiser
        key = self.index.narrowest(scope, tags, None)
        out = []
        for match_id, _ in self.index.scan(key, newest_first=False):
            item = self._listed(match_id, scope, tags, None, "complete")
            if item is not None:
                out.append(result_of(item))
        return out


def second_table(body: Mapping[str, Any], first: Mapping[str, Any]) -> dict[str, Any]:
    """The body a duplicate pair's second table is created from: the first table's players,
    rotated one seat, and its prepared deck and dice; refuses anything contradicting them."""
    if [_player(p) for p in body["players"]] != [_player(p) for p in first["players"]]:
        raise _pair_error("players", "must list the first table's players in the same order "
                          "(the server rotates the seats)")
    for field in ("seed", "deck", "dice"):
        if body.get(field) is not None and body.get(field) != first.get(field):
            raise _pair_error(field, "must be absent or the first table's (the second table "
                              "deals exactly as the first)")
    players = list(first["players"])
    return {**body, "players": players[1:] + players[:1], "seed": first.get("seed"),
            "deck": first.get("deck"), "dice": first.get("dice")}


def _player(player: Mapping[str, Any]) -> tuple[Any, ...]:
    """What a pair's two tables must agree on about a seat (an open seat has no name; a
    bot seat has its level and think time)."""
    return (player.get("name"), bool(player.get("open")), player.get("entropy") or "",
            player.get("external_id"), player.get("bot"), player.get("think_ms") or 0)


def _pair_error(field: str, message: str) -> AppError:
    return Invalid("invalid_duplicate", f"{field}: {message}", {field: [message]})


def _prefixed(index: int, exc: AppError) -> AppError:
    """An error of one match of a batch, its fields named ``matches.<index>.<field>``."""
    errors = {f"matches.{index}.{field}": problems
              for field, problems in (exc.errors or {}).items()}
    return type(exc)(exc.code, f"matches.{index}.{exc.message}",
                    errors or {f"matches.{index}": [exc.message]})


def result_of(item: Mapping[str, Any]) -> dict[str, Any]:
    """A completed match's result: its listing entry with each player's score and bonus."""
    finals = item.get("final_scores") or []
    winners = set(item.get("winners") or ([item["winner"]] if item.get("winner") is not None
                                          else []))
    bonuses = {b.get("seat"): b.get("total") for b in item.get("bonuses") or ()}
    players = [{**player, "final_score": finals[player["seat"]]
                if player["seat"] < len(finals) else None,
                "winner": player["seat"] in winners, "bonus": bonuses.get(player["seat"])}
               for player in item["players"]]
    keep = ("id", "external_id", "variant", "tags", "batch", "duplicate", "created_at",
            *COMPLETION_FIELDS)
    return {**{key: item[key] for key in keep if key in item}, "players": players}


def results_csv(results: Sequence[Mapping[str, Any]]) -> str:
    """One row per player per match, ``CSV_COLUMNS`` as the header; tags joined by ';'."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in _csv_rows(results):
        writer.writerow([_inert(cell) for cell in row])
    return out.getvalue()


def _inert(cell: Any) -> Any:
    """Client text a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``, tab,
    CR) gets a leading apostrophe (OWASP's CSV injection advice); numbers stay numbers."""
    if isinstance(cell, str) and cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + cell
    return cell


def _csv_rows(results: Sequence[Mapping[str, Any]]) -> Iterator[list[Any]]:
    for match in results:
        duplicate = match.get("duplicate") or {}
        for player in match["players"]:
            yield [match["id"], match.get("external_id") or "", match["variant"],
                   ";".join(match.get("tags", ())), match.get("batch") or "",
                   duplicate.get("group", ""), duplicate.get("table", ""), player["seat"],
                   player["name"], player.get("external_id") or "",
                   "true" if player["winner"] else "false",
                   "" if player["final_score"] is None else player["final_score"],
                   "" if player["bonus"] is None else player["bonus"]]
