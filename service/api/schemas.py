"""Marshmallow schemas for everything the API reads and writes; openapi.yaml comes from them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import make_schema_key
from marshmallow import Schema, ValidationError, fields, validate

from domain.bot_seats import THINK_MS_MAX
from domain.bots import LEVELS
from domain.bots.expert.budget import DEFAULT_MS, MAX_MS
from domain.cards import CardError, parse_card
from domain.event_registry import REGISTRY
from domain.variants import VARIANTS
from service.api.control_schemas import ClockSchema, ClockViewSchema, EndedSchema
from service.api.inputs import (
    JsonBoolean,
    Pattern,
    json_integer,
    printable_text,
    unicode_text,
)
from service.api.plain_text import PlainText

IF_MATCH = r'^\s*(W/)?"?[0-9]{1,15}"?\s*$'
"""An ``If-Match`` the server reads: a version, bare or as an ETag (quoted, maybe weak)."""

# The highest version a client may name: past any match, and the largest integer every JSON
# client reads exactly. Past 2**64 - 1 it is not even a Redis stream id, which was a 500.
MAX_VERSION = 2**53 - 1


CARD_PATTERN = r"^(([2-9TJQKAtjqka]|10)[CDHScdhs]|[Jj][Kk])$"
"""A card code as a client may send it: rank then suit, ``10`` for ``T``, any case."""


class CardField(fields.String):
    """A card code: rank then suit (``7H``, ``TD``, ``JK``); ``10D`` and lower case accepted.

    Exactly ``CARD_PATTERN`` (no spaces around), which openapi.yaml states too, so the spec
    and the server refuse the same codes.
    """

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"pattern": CARD_PATTERN, "minLength": 2, "maxLength": 3,
                    **kwargs.pop("metadata", {})}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not re.fullmatch(CARD_PATTERN, text):
            raise ValidationError(f"not a card code: {text!r}")
        try:
            return parse_card(text)
        except CardError as exc:
            raise ValidationError(str(exc)) from exc


class Verbatim(fields.Nested):
    """Documented as its nested schema, dumped as given.

    Views are built by the domain from JSON values already; re-serialising the growing
    hand history field by field on every response was the API's largest cost.
    """

    def _serialize(  # type: ignore[override]  # marshmallow's own Field/Nested names differ
        self, nested_obj: Any, attr: Any, obj: Any, **kwargs: Any
    ) -> Any:
        return nested_obj


class AsBuilt(Schema):
    """Documented as declared, dumped as given: the keys it declares, their values as they
    are.

    The match views are built by the domain (``domain/*/views.py``) and the use cases from
    JSON values already, every field of the type it is declared with; marshmallow's
    ``dump`` walked each of them again, field by field and nested schema by nested schema,
    on every view an action or a read answered. ``tests/service/test_view_dumps.py``
    holds this dump equal to marshmallow's own on the views of every variant and viewer.
    """

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        if self.many if many is None else many:
            return [self._as_built(item) for item in obj]
        return self._as_built(obj)

    def _as_built(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        names = self.dump_fields
        return {key: value for key, value in obj.items() if key in names}


# --- errors ------------------------------------------------------------------------------


class ErrorSchema(Schema):
    code = fields.String(required=True, metadata={
        "description": "Stable machine-readable code (docs/front-ends.md, Errors). A 400 is "
                       "invalid_text when every problem is a character a name or free-text "
                       "field refuses, invalid_request when anything else is malformed too"})
    message = fields.String(required=True)
    errors = fields.Dict(metadata={
        "description": "Per-field problems (400 only), each field named by its path "
                       "(players.1.name, tags.0)"})


# --- variants ----------------------------------------------------------------------------


class OptionSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True, metadata={"description": "boolean, integer or string"})
    default = fields.Raw(allow_none=True, required=True)
    nullable = fields.Boolean(required=True)
    description = fields.String(required=True)
    choices = fields.List(fields.Raw())
    minimum = fields.Integer()
    maximum = fields.Integer()


class VariantSchema(Schema):
    name = fields.String(required=True)
    description = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    options = fields.List(fields.Nested(OptionSchema), required=True)
    gems = fields.List(fields.String(), metadata={
        "description": "Gem: the eight gems, in GEM PARTS order"})
    cards = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), metadata={
        "description": "Gem: each card's gems (a king has two)",
        "example": {"AC": ["gold"], "KC": ["emerald", "ruby"]}})


class VariantListSchema(Schema):
    variants = fields.List(fields.Nested(VariantSchema), required=True)


# --- creating a match --------------------------------------------------------------------


TAGS_MAX = 16


def tags_field(description: str) -> fields.List:
    """A list of free-form tags, at most ``TAGS_MAX``, each 1-64 characters of plain text."""
    return fields.List(PlainText(max_length=64), validate=validate.Length(max=TAGS_MAX),
                       load_default=list, metadata={
        "description": description, "example": ["tournament:spring", "round:3", "table:5"]})


NAME_RULE = ("The player's name. It must show a letter, a digit or a pictograph (not only "
             "spaces or blanks such as U+3164 or U+2800: 400 invalid_name) and differ from "
             "the other seats' names, whatever the case, the spaces around or doubled, "
             "compatibility forms and invisible characters (name_taken: 400 at creation, 409 "
             "when claiming)")


class NamedPlayerSchema(Schema):
    """A seat held by a player named at creation."""

    name = PlainText(max_length=64, required=True, metadata={"description": NAME_RULE})
    open = JsonBoolean(load_default=False, validate=validate.OneOf((False,)), metadata={
        "description": "false (the default): the seat is the named player's"})
    entropy = PlainText(min_length=0, max_length=256, allow_none=True, metadata={
        "description": "Optional client entropy, public, mixed into every hand seed (see "
                       "docs/fairness.md)"})
    external_id = PlainText(max_length=128, allow_none=True, metadata={
        "description": "Optional: the player's id in the caller's system (in the owner's "
                       "views; in everybody's with public_metadata)"})


class BotPlayerSchema(Schema):
    """A seat held by a computer player: the server plays its turns, ``think_ms`` after
    the event that gave it the turn. It has no token, and nobody can act for it."""

    bot = fields.String(required=True, metadata={
        "description": "The bot's level: random (a random legal move), basic or expert "
                       "(400 invalid_bot for any other)", "enum": list(LEVELS)})
    name = PlainText(max_length=64, metadata={
        "description": NAME_RULE + ". Default: the level's, e.g. \"Basic bot\" (numbered "
                       "when another seat has it: \"Basic bot 2\")"})
    think_ms = json_integer(metadata={
        "description": f"How long the bot waits before each move, in milliseconds (0-"
                       f"{THINK_MS_MAX}, else 400 invalid_bot); default 0",
        "minimum": 0, "maximum": THINK_MS_MAX})
    budget_ms = json_integer(metadata={
        "description": f"The expert's budget per move, in milliseconds of CPU (1-{MAX_MS}, "
                       f"else 400 invalid_bot; on another level 400 invalid_bot); default "
                       f"{DEFAULT_MS}. Counted in iterations, so a seed always gives the same "
                       f"move. Above {DEFAULT_MS} only with an organiser key or the admin "
                       "token (401/403 organiser_only)",
        "minimum": 1, "maximum": MAX_MS})
    external_id = PlainText(max_length=128, allow_none=True, metadata={
        "description": "Optional: the bot's id in the caller's system (in the owner's "
                       "views; in everybody's with public_metadata)"})


class BotSchema(Schema):
    """A computer player's seat, as creation answers and every view show it."""

    level = fields.String(required=True, metadata={"enum": list(LEVELS)})
    think_ms = fields.Integer(required=True, metadata={
        "description": "How long it waits before each move (milliseconds)"})
    budget_ms = fields.Integer(metadata={
        "description": "The expert's budget per move (milliseconds, counted in "
                       "iterations); only on an expert's seat"})


def bot_field() -> fields.Nested:
    return fields.Nested(BotSchema, allow_none=True, metadata={
        "description": "A computer player's seat: its level, think time and (an expert's) "
                       "budget; null for a person's (or an open) seat"})


class OpenSeatSchema(Schema):
    """An open seat: anybody may claim it (POST .../seats/{n}/claim) and the match waits,
    dealing nothing, until every seat is taken. It has no player yet: its player gives
    name, entropy and external_id when claiming it."""

    open = JsonBoolean(required=True, validate=validate.OneOf((True,)))


class PlayerSchema(Schema):
    """One seat of a new match: a named player, ``{"open": true}`` or a computer player
    ``{"bot": level}`` (documented as the ``Player`` union of ``NamedPlayer``,
    ``OpenSeat`` and ``BotPlayer`` by ``document_players``).

    ``open: true`` picks the open seat's schema, a ``bot`` the computer player's, anything
    else the named player's, so ``{}`` misses its name and ``{"open": true, "name": ...}``
    has a field too many, as the spec's ``oneOf`` says.
    """

    def load(self, data: Any, *, many: bool | None = None, partial: Any = None,  # type: ignore[override]
             unknown: str | None = None) -> Any:
        if not isinstance(data, Mapping):
            raise ValidationError({"_schema": ["a player is a JSON object"]})
        schema: type[Schema] = (OpenSeatSchema if data.get("open") is True
                                else BotPlayerSchema if "bot" in data else NamedPlayerSchema)
        return schema().load(data)


def document_players(spec: APISpec) -> None:
    """Register ``NamedPlayer``, ``OpenSeat``, ``BotPlayer`` and their union ``Player``,
    which ``PlayerSchema`` then refers to (before the blueprints are documented)."""
    plugin = next(p for p in spec.plugins if isinstance(p, MarshmallowPlugin))
    members = {"NamedPlayer": NamedPlayerSchema, "OpenSeat": OpenSeatSchema,
               "BotPlayer": BotPlayerSchema}
    for name, schema in members.items():
        spec.components.schema(name, schema=schema)
    spec.components.schema("Player", {
        "description": "A seat of the new match: a named player, an open seat "
                       "(`{\"open\": true}`) for the lobby, or a computer player "
                       "(`{\"bot\": \"basic\"}`)",
        "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in members]})
    assert plugin.converter is not None  # set once the plugin is initialised with the spec
    plugin.converter.refs[make_schema_key(PlayerSchema())] = "Player"


class MatchCreateSchema(Schema):
    # The use case refuses an unknown variant (400 unknown_variant) and a player count the
    # variant does not take (400 invalid_players); the spec states the same bounds.
    variant = fields.String(required=True, metadata={"example": "gin",
                                                     "enum": sorted(VARIANTS)})
    external_id = PlainText(max_length=128, allow_none=True, metadata={
        "description": "Optional: the match's id in the caller's system"})
    tags = tags_field(f"Free-form tags (at most {TAGS_MAX}, each 1-64 characters), e.g. "
                      "tournament:spring, round:3, table:5; GET /v1/matches filters by them")
    public_metadata = JsonBoolean(load_default=False, metadata={
        "description": "Whether everybody who may see the match (seats, spectators, the "
                       "lobby) sees its external_id, tags and players' external ids. False "
                       "(the default): only the organiser who owns it and the admin do (full "
                       "views, GET /v1/matches, the feed, webhooks); others see external_id "
                       "null and tags []"})
    players = fields.List(fields.Nested(PlayerSchema), required=True,
                          validate=validate.Length(min=1, max=8), metadata={
        "description": "The seats, in order; how many depends on the variant "
                       "(min_players-max_players in GET /v1/variants)",
        "minItems": min(v.min_players for v in VARIANTS.values()),
        "maxItems": max(v.max_players for v in VARIANTS.values())})
    options = fields.Dict(keys=fields.String(), load_default=dict, metadata={
        "description": "Variant options; see GET /v1/variants",
        "allOf": [{"$ref": "#/components/schemas/MatchOptions"}]})
    seed = fields.String(allow_none=True, validate=[validate.Length(min=1, max=256),
                                                    unicode_text], metadata={
        "description": "Organiser only: makes the whole match reproducible"})
    deck = fields.List(CardField(), allow_none=True, metadata={
        "description": "Organiser only: the first hand's deck order, top first "
                       "(exactly the match's cards); the deal is marked prepared"})
    dice = fields.List(json_integer(validate=validate.Range(min=1, max=6)), allow_none=True,
                       validate=validate.Length(equal=2), metadata={
        "description": "Organiser only (gem): the first hand's two dice", "example": [3, 4]})
    clock = fields.Nested(ClockSchema, allow_none=True, metadata={
        "description": "Optional match clock; its deadlines are in every view"})
    invite_code = fields.String(allow_none=True, validate=[validate.Length(min=4, max=64),
                                                          printable_text], metadata={
        "description": "With open seats only: claiming one needs this code (kept hashed); "
                       "the lobby lists the match as invite_only"})


class DuplicateSchema(Schema):
    group = fields.String(required=True, metadata={"description": "The pair's id"})
    table = fields.Integer(required=True, metadata={"description": "1 or 2"})
    partner = fields.String(required=True, metadata={
        "description": "The other table's match id"})


class MatchMetadata(Schema):
    """Tournament metadata, fixed at creation; in every view and listing. Private unless
    the match was created with ``public_metadata``: then only the owning organiser and the
    admin see it, and everybody else sees ``external_id`` null and ``tags`` []."""

    external_id = fields.String(allow_none=True, required=True)
    tags = fields.List(fields.String(), required=True)
    batch = fields.String(metadata={"description": "The batch that created the match"})
    duplicate = fields.Nested(DuplicateSchema, metadata={
        "description": "A duplicate-deal table: same deck every hand as its partner"})


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True, metadata={
        "description": "null for an open seat"})
    external_id = fields.String(allow_none=True, required=True)
    open = fields.Boolean(metadata={"description": "An open seat, waiting to be claimed"})
    token = fields.String(required=True, allow_none=True, metadata={
        "description": "Bearer token of this seat; shown only once (null for an open seat "
                       "and for a computer player's, which nobody can act for)"})
    bot = bot_field()


class MatchCreatedSchema(MatchMetadata):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, metadata={
        "description": "started (the first hand is dealt) or waiting (open seats to claim)"})
    creator_token = fields.String(required=True, metadata={
        "description": "Shown only once: lets the creator replace a seat's token "
                       "(POST .../seats/{n}/token); it is no seat's token"})
    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)


class ClaimSchema(Schema):
    name = PlainText(max_length=64, required=True, metadata={"description": NAME_RULE})
    entropy = PlainText(min_length=0, max_length=256, allow_none=True, metadata={
        "description": "Optional client entropy, public, mixed into every hand seed (see "
                       "docs/fairness.md)"})
    external_id = PlainText(max_length=128, allow_none=True, metadata={
        "description": "Optional: the player's id in the caller's system (in the owner's "
                       "views; in everybody's with public_metadata)"})
    invite_code = fields.String(allow_none=True, validate=[validate.Length(max=64),
                                                          unicode_text], metadata={
        "description": "The match's invite code, when its creator set one"})


class LeftSeatSchema(Schema):
    id = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={"description": "The seat, open again"})
    open_seats = fields.Integer(required=True, metadata={
        "description": "How many seats the match now waits for"})


class ClaimedSeatSchema(Schema):
    id = fields.String(required=True, metadata={"description": "The match"})
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    external_id = fields.String(allow_none=True, required=True)
    token = fields.String(required=True, metadata={
        "description": "Bearer token of this seat; shown only once"})
    started = fields.Boolean(required=True, metadata={
        "description": "Whether this claim took the last open seat and dealt the first hand"})
    version = fields.Integer(required=True, metadata={"description": "The match's version"})
    open_seats = fields.Integer(required=True, metadata={"description": "Seats still open"})


class RotatedTokenSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={
        "description": "The seat's new bearer token; the old one is refused from now on"})


# --- views -------------------------------------------------------------------------------


class MeldSchema(Schema):
    kind = fields.String(required=True, metadata={
        "description": "set, run, stash (gem; ``tag`` names the shared gem) or "
                       "queens_diamonds (gem)"})
    cards = fields.List(fields.String(), required=True, metadata={
        "description": "The physical cards; JK for a joker"})
    represents = fields.List(fields.String(), required=True, metadata={
        "description": "What each card stands for (a joker's card)"})
    tag = fields.String(allow_none=True)


class PresenceSchema(Schema):
    """Whether a seat is at the table now: not a game fact, never in the event log."""

    online = fields.Boolean(required=True, metadata={
        "description": "Whether the seat has a live stream (`/stream`) open now"})
    last_action_at = fields.Float(allow_none=True, required=True, metadata={
        "description": "When the seat's last action was appended (epoch seconds); null "
                       "before its first"})


class SeatSummarySchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True, metadata={
        "description": "null for an open seat of a waiting match"})
    open = fields.Boolean(metadata={
        "description": "Waiting matches: whether the seat is still open to claim"})
    external_id = fields.String(allow_none=True, metadata={
        "description": "The player's external id, as given at creation"}, required=True)
    hand_count = fields.Integer(required=True)
    bot = bot_field()
    opened = fields.Boolean(metadata={"description": "Rummy/rami: whether the seat has opened"})
    presence = fields.Nested(PresenceSchema, metadata={
        "description": "In `GET /v1/matches/{id}` (every view): whether the seat has a live "
                       "stream open and when it last acted; live streams announce changes "
                       "with `event: presence`"})


class TableMeldSchema(Schema):
    """Rummy/rami: a meld on the table, with what every joker in it stands for."""

    id = fields.Integer(required=True, metadata={
        "description": "Stable for the round; lay_off and exchange_joker name it"})
    owner = fields.Integer(metadata={"description": "The seat that laid it down"}, required=True)
    kind = fields.String(required=True, metadata={"description": "set or run"})
    cards = fields.List(fields.String(), required=True, metadata={
        "description": "The physical cards in table order; JK for a joker"})
    represents = fields.List(fields.String(), required=True, metadata={
        "description": "The card each one stands for (a joker's declared card)"})


class MeldCandidateSchema(Schema):
    """Rummy/rami: a meld the seat's hand could lay down, with its opening value."""

    kind = fields.String(required=True)
    cards = fields.List(fields.String(), required=True)
    represents = fields.List(fields.String(), required=True)
    value = fields.Integer(required=True, metadata={
        "description": "Opening value (ace 1 only in A-2-3)"})


class OpeningSchema(Schema):
    """Rummy/rami, before the seat has opened: what its hand could open with."""

    minimum = fields.Integer(required=True, metadata={
        "description": "40 (rummy) or 51 (rami) by default"})
    best_value = fields.Integer(required=True, metadata={
        "description": "The highest value of new melds the hand could lay down at once"})
    best_melds = fields.List(fields.Nested(MeldSchema), required=True)
    allowed_this_turn = fields.Boolean(required=True, metadata={
        "description": "Whether this (or the coming) turn is late enough to open (rami: 2nd)"})
    can_open_now = fields.Boolean(required=True)


class PairingSchema(Schema):
    defender = fields.Integer(required=True)
    result = fields.String(required=True, metadata={
        "description": "knock, gin, big_gin, undercut or tie"})
    winner = fields.Integer(allow_none=True, required=True)
    points = fields.Integer(required=True)
    knocker_deadwood = fields.Integer(required=True)
    defender_deadwood = fields.Integer(required=True)


class LayoffSchema(Schema):
    card = fields.String(required=True)
    meld = fields.Integer(required=True, metadata={
        "description": "Index into the hand's table melds"})


class ShownMeldSchema(MeldSchema):
    """A meld of a finished hand: gin/gem the knocker's melds, rummy/rami the table's."""

    id = fields.Integer(metadata={"description": "Rummy/rami: the table meld's id"})
    owner = fields.Integer(metadata={"description": "Rummy/rami: the seat that laid it down"})


class HandSeatSchema(Schema):
    seat = fields.Integer(required=True)
    hand = fields.List(fields.String(), required=True)
    deadwood = fields.Integer()
    melds = fields.List(fields.Nested(MeldSchema))
    layoffs = fields.List(fields.Nested(LayoffSchema))
    unmatched = fields.List(fields.String())
    discard = fields.String(allow_none=True)
    minus_points = fields.Integer(metadata={
        "description": "Rummy/rami: the minus points of the cards left in hand"})
    points = fields.Integer(metadata={
        "description": "Rummy/rami: the points charged (minus points, doubled after rummy)"})


class HandResultSchema(Schema):
    hand_number = fields.Integer(required=True)
    result = fields.String(required=True, metadata={
        "description": "knock, gin, big_gin, undercut, tie or draw (3-4 players: the knock kind)"})
    reason = fields.String(allow_none=True, metadata={
        "description": "For a draw: stock_exhausted or turn_cap"})
    knocker = fields.Integer(allow_none=True)
    winner = fields.Integer(allow_none=True, metadata={
        "description": "The seat that scored the most in the hand"}, required=True)
    hand_winners = fields.List(fields.Integer(), metadata={
        "description": "One entry per pairing won (counts towards line bonuses)"}, required=True)
    points = fields.List(fields.Integer(), required=True, metadata={
        "description": "Points by seat"})
    pairings = fields.List(fields.Nested(PairingSchema))
    table = fields.List(fields.Nested(ShownMeldSchema), metadata={
        "description": "Gin/gem: the knocker's melds after lay-offs; rummy/rami: the melds "
                       "on the table at the round's end"}, required=True)
    seats = fields.List(fields.Nested(HandSeatSchema), required=True)
    gem_parts = fields.List(fields.Integer(), metadata={
        "description": "Gem: the Gem Parts bonus by seat, included in points"})
    next_dealer = fields.Integer(required=True)
    rummy = fields.Boolean(metadata={
        "description": "Rummy/rami: whether the winner went rummy (opened and went out in "
                       "one turn), which doubles the points"})
    scores = fields.List(fields.Integer(), metadata={
        "description": "Rummy/rami: the running totals after this round, by seat"})
    game_over = fields.Boolean(metadata={
        "description": "Rummy/rami: whether this round ended the match"})


class BonusSchema(Schema):
    seat = fields.Integer(required=True)
    game = fields.Integer(required=True)
    shutout = fields.Boolean(required=True)
    line = fields.Integer(required=True)
    hands_won = fields.Integer(required=True)
    total = fields.Integer(required=True)


class CheckedEventSchema(Schema):
    type = fields.String(required=True, metadata={"description": "The event type"})
    data = fields.Raw(required=True, metadata={
        "description": "Its payload, as the public would see it (the event's <type>Data)",
        "anyOf": [{"$ref": f"#/components/schemas/{name}Data"} for name in REGISTRY]})


class ActionCheckSchema(Schema):
    legal = fields.Boolean(required=True)
    version = fields.Integer(required=True, metadata={
        "description": "The match's version the check was made at (send it as If-Match)"})
    events = fields.List(fields.Nested(CheckedEventSchema), metadata={
        "description": "What the action would append (legal only)"})
    code = fields.String(metadata={"description": "Why not (not legal only): the 422 code "
                                                  "/actions would answer"})
    message = fields.String(metadata={"description": "Why not, in words"})


class BestDiscardSchema(Schema):
    deadwood = fields.Integer(required=True)
    cards = fields.List(fields.String(), required=True)


class MatchViewSchema(AsBuilt, MatchMetadata):
    """A match as the caller may see it: public, one seat (with a seat token) or full."""

    id = fields.String(required=True)
    variant = fields.String(required=True)
    options = fields.Raw(required=True, metadata={
        "description": "Every option of the variant, defaults filled in",
        "allOf": [{"$ref": "#/components/schemas/MatchOptions"}]})
    version = fields.Integer(required=True, metadata={
        "description": "Number of events so far; send it back as If-Match"})
    phase = fields.String(required=True, metadata={
        "description": "waiting (open seats to claim, nothing dealt), "
                       "upcard, draw, discard, scoring, completing, complete or aborted "
                       "(voided by the organiser); rummy/rami have play (drawn: lay down, "
                       "lay off, exchange, discard) for discard"})
    awaiting = fields.String(allow_none=True, metadata={
        "description": "scoring or bonuses while a background job has yet to record the result"})
    dealer = fields.Integer(required=True, allow_none=True, metadata={
        "description": "null while the match waits for players"})
    open_seats = fields.Integer(metadata={
        "description": "Waiting matches: how many seats are still open"})
    invite_only = fields.Boolean(metadata={
        "description": "Waiting matches: whether claiming a seat needs the invite code"})
    created_at = fields.Float(metadata={"description": "Waiting matches: epoch seconds"})
    turn = fields.Integer(allow_none=True, required=True)
    hand_number = fields.Integer(required=True)
    knock_limit = fields.Integer(metadata={"description": "This hand's knock limit"})
    dice = fields.List(fields.Integer(), metadata={
        "description": "Gem: this hand's two dice; their sum is the knock limit"})
    diamond = fields.String(allow_none=True, metadata={
        "description": "Gem: the designated diamond, which makes Queen's Diamonds with any queen"})
    must_meld = fields.String(allow_none=True, metadata={
        "description": "Gem, 3 players: the deep card just taken, which must still belong to "
                       "a meld after this turn's discard (legal_actions respect it)"})
    gems = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), metadata={
        "description": "Gem: the gems of every card the caller can see (own hand, discard "
                       "pile); the whole deck is in GET /v1/variants"})
    commitment = fields.String(allow_none=True, metadata={
        "description": "SHA-256 of this hand's secret seed, revealed when the hand ends "
                       "(docs/fairness.md); null in logs older than commitments"})
    scores = fields.List(fields.Integer(), required=True, metadata={
        "description": "Hand points so far, by seat"})
    hands_won = fields.List(fields.Integer())
    stock_count = fields.Integer(required=True)
    discard_pile = fields.List(fields.String(), required=True, metadata={
        "description": "Top card last"})
    seats = fields.List(fields.Nested(SeatSummarySchema), required=True)
    hands = Verbatim(HandResultSchema, many=True, required=True, metadata={
        "description": "Every finished hand"})
    ending = fields.Raw(metadata={
        "description": "How the current hand ended, while it is scored: the payload of the "
                       "event that ended it", "anyOf": [
            {"$ref": "#/components/schemas/HandKnockedData"},
            {"$ref": "#/components/schemas/HandEndedData"}]})
    winner = fields.Integer(allow_none=True)
    winners = fields.List(fields.Integer())
    bonuses = Verbatim(BonusSchema, many=True)
    final_scores = fields.List(fields.Integer())
    seat = fields.Integer(metadata={"description": "Seat views: whose view this is"})
    hand = fields.List(fields.String(), metadata={"description": "Seat views: the seat's cards"})
    deadwood = fields.Integer(metadata={"description": "Seat views: deadwood of the hand as held"})
    melds = Verbatim(MeldSchema, many=True, metadata={
        "description": "Seat views: a best arrangement of the hand"})
    unmatched = fields.List(fields.String())
    gem_parts = fields.Boolean(metadata={
        "description": "Gem seat views: whether the hand shows all eight gems"})
    best_discard = fields.Nested(BestDiscardSchema, metadata={
        "description": "Seat views, holding one card too many: the lowest deadwood a legal "
                       "discard leaves, and which legal discards reach it (never the card "
                       "just taken from the discard pile)"})
    legal_actions = fields.Raw(metadata={
        "description": "Seat views: every action the seat may send now, ready to send",
        "type": "array", "items": {"$ref": "#/components/schemas/Action"}})
    moves = fields.List(fields.String(metadata={"description": "An Action type"}), metadata={
        "description": "Seat views: the kinds of move the seat may make now, each once, in "
                       "legal_actions' order (empty off turn): what a front end enables. "
                       "Rummy/rami lay-downs are composed: any legal placement is accepted "
                       "(POST .../actions/check says whether one is), and legal_actions "
                       "holds one ready example of each kind, not every combination"})
    clock = fields.Nested(ClockViewSchema, allow_none=True, metadata={
        "description": "Matches with a clock: the running turn's deadline and the banks"})
    ended = fields.Nested(EndedSchema, metadata={
        "description": "A match ended by a forfeit (phase complete) or an abort (phase "
                       "aborted): how, which seat, why, and who ended it"})
    all_hands = fields.List(fields.List(fields.String()), metadata={
        "description": "Full (organiser) views only"})
    stock = fields.List(fields.String(), metadata={"description": "Full views only; top first"})
    table = Verbatim(TableMeldSchema, many=True, metadata={
        "description": "Rummy/rami: the melds on the table"})
    rounds_played = fields.Integer(metadata={
        "description": "Rummy/rami: scored rounds (a void round does not count)"})
    minus_points = fields.Integer(metadata={
        "description": "Rummy/rami seat views: what the hand would cost if the round ended"})
    meld_candidates = Verbatim(MeldCandidateSchema, many=True, metadata={
        "description": "Rummy/rami seat views: every meld the hand could lay down; any "
                       "disjoint choice of them may be sent in one lay_down"})
    opening = Verbatim(OpeningSchema, metadata={
        "description": "Rummy/rami seat views, until the seat has opened"})
    jokers_to_place = fields.Integer(metadata={
        "description": "Rummy/rami seat views on turn: exchanged jokers still to be placed"})


class EventListSchema(Schema):
    events = fields.Raw(required=True, metadata={
        "type": "array", "items": {"$ref": "#/components/schemas/Event"}})


class EventQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION),
                           metadata={"description": "Only events with a higher version"})


TICKET = fields.String(validate=validate.Length(min=1, max=200), metadata={
    "description": "A stream ticket (``POST .../stream-tickets``): for browsers, whose "
                   "EventSource cannot send an Authorization header. Used up by this request"})


class StreamQuerySchema(EventQuerySchema):
    ticket = TICKET


class TicketSchema(Schema):
    ticket = fields.String(required=True, metadata={
        "description": "Single use, for this match and this viewer only"})
    expires_in = fields.Integer(required=True, metadata={"description": "Seconds it lives"})


IDEMPOTENCY_KEY_MAX = 200


def idempotency_key() -> fields.String:
    return fields.String(data_key="Idempotency-Key", validate=validate.Length(
        min=1, max=IDEMPOTENCY_KEY_MAX), metadata={
            "description": "A repeat returns the first response"})


class ActionHeadersSchema(Schema):
    if_match = fields.String(data_key="If-Match", validate=Pattern(IF_MATCH), metadata={
        "description": "The version the action was decided on (the view's `version`, also "
                       "its ETag); 409 when stale"})
    idempotency_key = idempotency_key()


class ControlHeadersSchema(Schema):
    """Resigning, forfeiting, aborting, leaving a seat: a retry gets the first answer."""

    idempotency_key = idempotency_key()


class HealthSchema(Schema):
    status = fields.String(required=True)
    redis = fields.String(required=True)
    mode = fields.String(required=True,
                         metadata={"description": "embedded, redis or redis-cluster"})
    reason = fields.String(metadata={"description": "Why it is degraded (on a 503)"})


# --- auditing ----------------------------------------------------------------------------


class StateQuerySchema(Schema):
    at = fields.Integer(required=True, validate=validate.Range(min=1, max=MAX_VERSION),
                        metadata={"description": "Show the match right after this event"})


class CheckSchema(Schema):
    name = fields.String(required=True, metadata={
        "description": "hash_chain, deals, rules, scores; duplicate_deals for a duplicate table"})
    ok = fields.Boolean(required=True)
    checked = fields.Integer(required=True, metadata={
        "description": "How many items the check covered"})
    first_failure = fields.Dict(allow_none=True, metadata={
        "description": "{version, reason} of the first failure, or null"}, required=True)
    notes = fields.List(fields.String(), required=True, metadata={
        "description": "What could not be checked and why (e.g. prepared decks, old logs)"})


class VerificationReportSchema(Schema):
    ok = fields.Boolean(required=True)
    variant = fields.String(allow_none=True, required=True)
    events = fields.Integer(required=True)
    final_phase = fields.String(allow_none=True, required=True)
    first_failing_version = fields.Integer(allow_none=True, required=True)
    checks = fields.List(fields.Nested(CheckSchema), required=True)


class VerificationSchema(Schema):
    id = fields.String(required=True)
    match_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "queued, running or finished"})
    requested_at = fields.Float()
    version = fields.Integer(metadata={
        "description": "The log's version when it was asked for: asking again while this "
                       "one is queued or running and the log is still at this version "
                       "answers this one. The job verifies the log as it stands when it "
                       "runs (the report's ``events``)."})
    report = Verbatim(VerificationReportSchema, metadata={
        "description": "Once finished: the verdict, per check (see docs/fairness.md)"})


# --- organisers --------------------------------------------------------------------------


class OrganiserCreateSchema(Schema):
    name = PlainText(max_length=128, required=True)


class OrganiserSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created_at = fields.Float(required=True, metadata={"description": "Epoch seconds"})
    revoked_at = fields.Float(allow_none=True, required=True)


class OrganiserCreatedSchema(OrganiserSchema):
    key = fields.String(required=True, metadata={
        "description": "The organiser's API key (a bearer token); shown only this once"})


class OrganiserListSchema(Schema):
    organisers = fields.List(fields.Nested(OrganiserSchema), required=True)


class LobbyQuerySchema(Schema):
    variant = fields.String(validate=validate.OneOf(sorted(VARIANTS)), metadata={
        "description": "Only matches of this variant"})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(validate=Pattern(r"^[0-9]{1,9}$"), metadata={
        "description": "next_cursor of the previous page"})


class LobbyMatchSchema(MatchViewSchema):
    """A waiting match as the lobby lists it: its public view and its creator's presence."""

    creator_present = fields.Boolean(required=True, allow_none=True, metadata={
        "description": "Whether the match's creator is at its table now: a seat they named "
                       "has a live stream open, or its token read the match within the "
                       "last 30 s. null when nobody's presence can tell (an organiser's "
                       "match, or no seat named for a person). A creator gone for "
                       "RUMMY_LOBBY_ABANDON_S has their match called off (reason "
                       "`creator left`) and no longer listed"})
    creator_seen_at = fields.Float(required=True, allow_none=True, metadata={
        "description": "When the creator was last here (epoch seconds); null when never "
                       "seen since the match was created (created_at), or when "
                       "creator_present is null"})


class LobbySchema(Schema):
    matches = fields.List(fields.Nested(LobbyMatchSchema), required=True, metadata={
        "description": "Matches waiting for players (phase waiting), newest first"})
    next_cursor = fields.String(required=True, allow_none=True)
