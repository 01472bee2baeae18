"""Creating matches: validate a creation body, decide the first events, store them.

A match with every seat named is dealt at once; one with open seats (``{"open": true}``
among its players) waits in the lobby until the last claim deals it
(``service.usecases.seats``). Either way the first write ends on the runner's own path
(``CommandRunner.created``): the subscribers hear of it and the follow-up sees to what the
new match owes (its first turn's clock, a bot's first move).

A seat may be a computer player's (``{"bot": "basic"}``, ``service.usecases.bot_players``):
the log records it (``BotsSeated``, right after the clock's settings) and it gets no
token, so nobody can act for it; the server plays its turns. An expert above the default
budget is an organiser's to seat.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.bot_seats import BotSeat, seated
from domain.bots.expert.budget import DEFAULT_MS
from domain.cards import CardError, parse_cards
from domain.clocks import ClockSettings
from domain.errors import OptionError, RuleError
from domain.events import Event
from domain.fairness import Deal, MatchSecrets
from domain.shuffle import choose
from domain.variant import Variant
from domain.variants import VARIANTS
from service.codec import to_store
from service.credentials import new_token, token_hash
from service.ports import Catalog, EventStore, Lobby, MatchInfo, StoredEvent, meta_fields
from service.usecases.access import Access
from service.usecases.bot_players import (
    above_default_budget,
    bot_seats,
    bot_view,
    is_bot,
    with_bot_names,
)
from service.usecases.errors import invalid, not_allowed
from service.usecases.names import name_key, require_names
from service.usecases.runner import CommandRunner

ORGANISER_FIELDS = ("seed", "deck", "dice")
OPENED = "opened"
"""The meta field a match's creation writes last, once what follows its store is through
(``MatchCreation.created``): a match stored without it was left half made by a creator
that died in between, and ``resume`` finishes it."""
LOBBY_TTL_S = 24 * 3600


def clock_events(settings: Mapping[str, Any] | None) -> list[Event]:
    """The ``ClockSet`` event of a creation body's ``clock`` (none without one)."""
    if settings is None:
        return []
    try:
        return [ClockSettings.parse(settings).event()]
    except OptionError as exc:
        raise invalid(f"clock.{exc.field}", exc.message, "invalid_clock") from exc


@dataclass(frozen=True)
class NewMatch:
    """A validated match, ready to store: everything ``create`` decides before writing."""

    variant: Variant
    options: Any
    names: list[str]
    events: list[Event]
    secrets: MatchSecrets
    owner: str
    external_id: str | None = None
    tags: tuple[str, ...] = ()
    player_ids: tuple[str | None, ...] = ()
    public_metadata: bool = False
    bots: Mapping[int, BotSeat] = field(default_factory=dict)


def has_open_seats(body: Mapping[str, Any]) -> bool:
    return any(player.get("open") for player in body["players"])


def placeholders(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body with a stand-in name on every open seat, to validate it as a whole (a
    stand-in is no name: it takes none from a player, ``names.require_names``)."""
    players = [{"name": f"Seat {seat + 1}", "stand_in": True} if player.get("open") else player
               for seat, player in enumerate(body["players"])]
    return {**{k: v for k, v in body.items() if k != "invite_code"}, "players": players}


def tags_of(body: Mapping[str, Any]) -> list[str]:
    return list(dict.fromkeys(body.get("tags") or ()))



def seat_kind(player: Mapping[str, Any]) -> str:
    """A seat of a waiting match as its lobby record keeps it: ``open`` until claimed,
    ``bot`` for a computer player, ``named`` for a player the creator named."""
    return "open" if player.get("open") else "bot" if is_bot(player) else "named"


def seat_fields(seat: int, player: Mapping[str, Any]) -> dict[str, str]:
    """A seated player's lobby fields (its token hash is written beside them); ``namekey``
    is what the claim script compares to keep the seats' names distinct."""
    return {f"name:{seat}": player["name"], f"namekey:{seat}": name_key(player["name"]),
            f"entropy:{seat}": player.get("entropy") or "",
            f"external_id:{seat}": player.get("external_id") or ""}


class MatchCreation:
    """Creates matches, at once or waiting for their open seats."""

    def __init__(self, runner: CommandRunner, store: EventStore, lobby: Lobby,
                 access: Access, index: Catalog, lobby_ttl_s: int = LOBBY_TTL_S) -> None:
        self.runner = runner
        self.store = store
        self.lobby = lobby
        self.access = access
        self.index = index
        self._ttl_s = lobby_ttl_s

    def create(self, body: Mapping[str, Any], token: str | None) -> dict[str, Any]:
        """Create a match and deal its first hand; returns the seats' tokens once. With
        open seats, the match waits for its players instead."""
        body = with_bot_names(body)
        if has_open_seats(body):
            return self.create_open(body, token)
        if body.get("invite_code"):
            raise invalid("invite_code", "an invite code is for a match with open seats",
                          "invalid_invite_code")
        return self.store_new(self.prepare(body, token))

    def create_open(self, body: Mapping[str, Any], token: str | None) -> dict[str, Any]:
        """Create a match that waits for its open seats; returns the named seats' tokens
        and the creator token, once."""
        new = self.prepare(placeholders(body), token)
        match_id = uuid.uuid4().hex
        creator = new_token()
        tokens = {seat: new_token() for seat, player in enumerate(body["players"])
                  if not player.get("open") and not is_bot(player)}
        open_seats = sum(bool(player.get("open")) for player in body["players"])
        stored_body = {key: value for key, value in body.items() if key != "invite_code"}
        fields = {"variant": new.variant.name, "body": json.dumps(stored_body),
                  "owner": new.owner, "created_at": f"{time.time():.3f}",
                  "creator": token_hash(creator),
                  "invite": token_hash(body["invite_code"]) if body.get("invite_code") else "",
                  "seats": str(len(body["players"])), "open": str(open_seats)}
        for seat, player in enumerate(body["players"]):
            fields[f"seat:{seat}"] = seat_kind(player)
            if not player.get("open"):
                fields.update(seat_fields(seat, player))
                fields[f"token:{seat}"] = token_hash(tokens[seat]) if seat in tokens else ""
        self.lobby.open(match_id, fields, self._ttl_s)
        self.access.register(match_id, {token_hash(t): s for s, t in tokens.items()},
                                      token_hash(creator))
        return {"id": match_id, "version": 0, "status": "waiting",
                "external_id": body.get("external_id"), "tags": tags_of(body),
                "creator_token": creator,
                "seats": [{"seat": seat, "name": player.get("name"),
                           "open": bool(player.get("open")),
                           "external_id": player.get("external_id"), "token": tokens.get(seat),
                           "bot": bot_view(new.bots.get(seat))}
                          for seat, player in enumerate(body["players"])]}

    def prepare(self, body: Mapping[str, Any], token: str | None,
                match_secrets: MatchSecrets | None = None) -> NewMatch:
        """Validate a creation body and decide the match's first events, storing nothing.

        ``match_secrets`` (a duplicate table's, service/usecases/tournaments.py) replaces the
        secrets the body would give, so every hand deals exactly as at the other table.
        """
        if has_open_seats(body) or body.get("invite_code"):
            raise invalid("players", "open seats and invite codes are for a match created "
                          "on its own (POST /v1/matches)", "invalid_players")
        body = with_bot_names(body)
        variant, options = self.validated(body)
        owner = self.access.organiser(token)
        organiser_fields = [f for f in ORGANISER_FIELDS if body.get(f) is not None]
        if organiser_fields and owner is None:
            raise not_allowed(token is not None, "organiser_only",
                           f"{', '.join(organiser_fields)} need an organiser key "
                           "(or the admin token)")
        self._require_organiser_for_budgets(body, owner, token)
        return self.decide_new(variant, options, body, owner or "", match_secrets)

    @staticmethod
    def validated(body: Mapping[str, Any]) -> tuple[Variant, Any]:
        """The variant and parsed options of a body whose seats are all named, checked
        as a match's creation checks them (a tournament's tables too)."""
        variant = VARIANTS.get(body["variant"])
        if variant is None:
            raise invalid("variant", f"unknown variant; one of {sorted(VARIANTS)}",
                              "unknown_variant")
        names = [player["name"] for player in body["players"]]
        if not variant.min_players <= len(names) <= variant.max_players:
            raise invalid("players", f"{variant.name} takes {variant.min_players}-"
                              f"{variant.max_players} players", "invalid_players")
        require_names(body["players"])
        try:
            options = variant.parse_options(body.get("options"), len(names))
        except OptionError as exc:
            raise invalid(f"options.{exc.field}", exc.message, "invalid_option") from exc
        return variant, options

    @staticmethod
    def _require_organiser_for_budgets(body: Mapping[str, Any], owner: str | None,
                                       token: str | None) -> None:
        """An expert above the default budget costs a worker up to forty times the CPU
        of each move, for every move of a match that may seat nobody but bots: only an
        organiser (a key that can be revoked) or the admin may seat one."""
        costly = above_default_budget(bot_seats(body["players"]))
        if costly and owner is None:
            raise not_allowed(token is not None, "organiser_only",
                              f"players.{costly[0]}.budget_ms above {DEFAULT_MS} needs an "
                              "organiser key (or the admin token)")

    def decide_new(self, variant: Variant, options: Any, body: Mapping[str, Any], owner: str,
                   match_secrets: MatchSecrets | None = None) -> NewMatch:
        """The first events of a validated body, for ``owner`` (checked by the caller)."""
        names = [player["name"] for player in body["players"]]
        if match_secrets is None:
            seed = (body["seed"].encode() if body.get("seed") is not None
                    else secrets.token_bytes(32))
            match_secrets = MatchSecrets(seed, tuple(p.get("entropy") or ""
                                                     for p in body["players"]))
        first_dealer = options.first_dealer
        if first_dealer is None:
            first_dealer = choose(len(names), match_secrets.seed, "first_dealer")
        deal = self._first_deal(variant, options, match_secrets, body)
        try:
            events = variant.start_match(names, options, first_dealer, deal)
        except RuleError as exc:
            refused = "dice" if body.get("dice") is not None and "dice" in exc.code else "deck"
            raise invalid(refused, exc.message, exc.code) from exc
        bots = bot_seats(body["players"])
        events.insert(1, match_secrets.committed())
        events[2:2] = [*clock_events(body.get("clock")), *seated(bots)]
        return NewMatch(variant, options, names, events, match_secrets, owner,
                        body.get("external_id"), tuple(dict.fromkeys(body.get("tags") or ())),
                        tuple(p.get("external_id") for p in body["players"]),
                        bool(body.get("public_metadata")), bots)

    def _first_deal(self, variant: Variant, options: Any, match_secrets: MatchSecrets,
                    body: Mapping[str, Any]) -> Deal:
        """Hand 1's Deal: shuffled from its seed, or the organiser's prepared deck."""
        fixed = {"dice": list(body["dice"])} if body.get("dice") is not None else None
        deal = variant.deal_for(options, match_secrets, 1, fixed)
        if body.get("deck") is None:
            return deal
        try:
            deck = parse_cards(body["deck"])
        except CardError as exc:
            raise invalid("deck", str(exc), "invalid_card") from exc
        return Deal(deck, deal.seed, prepared=True, fixed=deal.fixed)

    def store_new(self, new: NewMatch, match_id: str | None = None,
                  extra_meta: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Store a prepared match (its meta, first events and indexes); returns the seat
        tokens and the creator token, once."""
        match_id = match_id or uuid.uuid4().hex
        tokens = [None if seat in new.bots else new_token() for seat in range(len(new.names))]
        creator = new_token()
        hashes = [token_hash(t) if t else "" for t in tokens]
        info, version = self.store_with(new, match_id, hashes, token_hash(creator), extra_meta)
        return {"id": match_id, "version": version, "status": "started",
                **info.fields(), "creator_token": creator,
                "seats": [{"seat": seat, "name": name, "external_id": info.player_id(seat),
                           "token": tokens[seat], "bot": bot_view(new.bots.get(seat))}
                          for seat, name in enumerate(new.names)]}

    def store_with(self, new: NewMatch, match_id: str, token_hashes: Sequence[str],
                   creator_hash: str, extra_meta: Mapping[str, str] | None = None
                   ) -> tuple[MatchInfo, int]:
        """Store a prepared match under ``match_id`` whose seats' tokens (and creator
        token) have these hashes ("" for none); ``MatchExists`` when the id is taken."""
        meta = {**self.meta_of(new, extra_meta), "creator": creator_hash}
        meta.update({f"token:{seat}": digest for seat, digest in enumerate(token_hashes)})
        result = self.store.create(match_id, to_store(new.events),
                                   meta, command_id=f"create:{match_id}")
        return self.created(match_id, meta, result.events), result.version

    @staticmethod
    def meta_of(new: NewMatch, extra_meta: Mapping[str, str] | None = None) -> dict[str, str]:
        """A new match's meta hash, but for the token hashes."""
        return {"variant": new.variant.name, "seed": new.secrets.seed.hex(),
                "entropy": json.dumps(list(new.secrets.entropy)),
                "created_at": f"{time.time():.3f}", "owner": new.owner,
                **meta_fields(new.external_id, new.tags, new.player_ids, new.names,
                              new.public_metadata),
                **(extra_meta or {})}

    def resume(self, match_id: str) -> bool:
        """Whether a match is stored under ``match_id``; if its creator died before
        ``created`` was through (a worker killed as it opened a tournament's table, a
        process as it created a rematch), its creation is finished now: without it the
        match would never be listed, nor its first turn owed. Each step is idempotent;
        the organiser's notice of the creation may come twice, as every delivery may
        (two resumes at once, or a match stored before its meta said it was opened)."""
        meta = self.store.meta(match_id)
        if meta is None:
            return False
        if not meta.get(OPENED):
            self.created(match_id, meta, tuple(self.store.read(match_id)))
        return True

    def created(self, match_id: str, meta: Mapping[str, str],
                events: tuple[StoredEvent, ...]) -> MatchInfo:
        """What follows a match's first write: its token index and its listings, then the
        runner's own path after a write (subscribers, and the follow-up that sees to what
        the match owes from the start, such as its first turn's clock)."""
        self.access.register(match_id, {value: int(key.removeprefix("token:"))
                                        for key, value in meta.items()
                                        if key.startswith("token:") and value},
                             meta.get("creator") or None)
        info = MatchInfo.from_meta(match_id, meta)
        self.index.add(info)
        self.runner.created(match_id, events)
        self.store.add_meta(match_id, {OPENED: "1"})
        return info
