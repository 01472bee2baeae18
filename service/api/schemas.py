"""Marshmallow schemas for everything the API reads and writes; openapi.yaml comes from them."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain.cards import CardError, parse_card

ACTION_TYPES = ("pass", "draw", "discard", "knock", "big_gin")

# The highest version a client may name: past any match, and the largest integer every JSON
# client reads exactly. Past 2**64 - 1 it is not even a Redis stream id, which was a 500.
MAX_VERSION = 2**53 - 1


def unicode_text(text: str) -> None:
    """Refuse lone surrogates: JSON's ``\\ud800`` escapes carry them, but they have no UTF-8
    form, so the event store could neither hash nor keep the text (a 500)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError("must be Unicode text (no lone surrogates)") from exc


class CardField(fields.String):
    """A card code: rank then suit (``7H``, ``TD``, ``JK``); ``10D`` and lower case accepted."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
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


# --- errors ------------------------------------------------------------------------------


class ErrorSchema(Schema):
    code = fields.String(required=True, metadata={"description": "Stable machine-readable code"})
    message = fields.String(required=True)
    errors = fields.Dict(metadata={"description": "Per-field problems (400 only)"})


# --- variants ----------------------------------------------------------------------------


class OptionSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True, metadata={"description": "boolean, integer or string"})
    default = fields.Raw(allow_none=True)
    nullable = fields.Boolean()
    description = fields.String()
    choices = fields.List(fields.Raw())
    minimum = fields.Integer()
    maximum = fields.Integer()


class VariantSchema(Schema):
    name = fields.String(required=True)
    description = fields.String()
    min_players = fields.Integer()
    max_players = fields.Integer()
    options = fields.List(fields.Nested(OptionSchema))


class VariantListSchema(Schema):
    variants = fields.List(fields.Nested(VariantSchema))


# --- creating a match --------------------------------------------------------------------


class PlayerSchema(Schema):
    name = fields.String(required=True,
                         validate=[validate.Length(min=1, max=64), unicode_text])
    entropy = fields.String(allow_none=True, validate=[validate.Length(max=256), unicode_text],
                            metadata={"description": "Optional client entropy, public, mixed "
                                      "into every hand seed (see docs/fairness.md)"})


class MatchCreateSchema(Schema):
    variant = fields.String(required=True, metadata={"example": "gin"})
    players = fields.List(fields.Nested(PlayerSchema), required=True,
                          validate=validate.Length(min=1, max=8))
    options = fields.Dict(keys=fields.String(), load_default=dict,
                          metadata={"description": "Variant options; see GET /v1/variants"})
    seed = fields.String(allow_none=True, validate=[validate.Length(min=1, max=256),
                                                    unicode_text], metadata={
        "description": "Organiser only: makes the whole match reproducible"})
    deck = fields.List(CardField(), allow_none=True, metadata={
        "description": "Organiser only: the first hand's deck order, top first "
                       "(exactly the match's cards); the deal is marked prepared"})
    dice = fields.List(fields.Integer(validate=validate.Range(min=1, max=6)), allow_none=True,
                       validate=validate.Length(equal=2), metadata={
        "description": "Organiser only (gem): the first hand's two dice", "example": [3, 4]})


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True, metadata={
        "description": "Bearer token of this seat; shown only once"})


class MatchCreatedSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)


# --- views -------------------------------------------------------------------------------


class MeldSchema(Schema):
    kind = fields.String(required=True, metadata={"description": "set or run"})
    cards = fields.List(fields.String(), required=True, metadata={
        "description": "The physical cards; JK for a joker"})
    represents = fields.List(fields.String(), required=True, metadata={
        "description": "What each card stands for (a joker's card)"})
    tag = fields.String(allow_none=True)


class SeatSummarySchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    hand_count = fields.Integer(required=True)


class PairingSchema(Schema):
    defender = fields.Integer()
    result = fields.String(metadata={"description": "knock, gin, big_gin, undercut or tie"})
    winner = fields.Integer(allow_none=True)
    points = fields.Integer()
    knocker_deadwood = fields.Integer()
    defender_deadwood = fields.Integer()


class LayoffSchema(Schema):
    card = fields.String()
    meld = fields.Integer(metadata={"description": "Index into the hand's table melds"})


class HandSeatSchema(Schema):
    seat = fields.Integer()
    hand = fields.List(fields.String())
    deadwood = fields.Integer()
    melds = fields.List(fields.Nested(MeldSchema))
    layoffs = fields.List(fields.Nested(LayoffSchema))
    unmatched = fields.List(fields.String())
    discard = fields.String(allow_none=True)


class HandResultSchema(Schema):
    hand_number = fields.Integer()
    result = fields.String(metadata={
        "description": "knock, gin, big_gin, undercut, tie or draw (3-4 players: the knock kind)"})
    reason = fields.String(allow_none=True, metadata={
        "description": "For a draw: stock_exhausted or turn_cap"})
    knocker = fields.Integer(allow_none=True)
    winner = fields.Integer(allow_none=True, metadata={
        "description": "The seat that scored the most in the hand"})
    hand_winners = fields.List(fields.Integer(), metadata={
        "description": "One entry per pairing won (counts towards line bonuses)"})
    points = fields.List(fields.Integer(), metadata={"description": "Points by seat"})
    pairings = fields.List(fields.Nested(PairingSchema))
    table = fields.List(fields.Nested(MeldSchema), metadata={
        "description": "The knocker's melds after lay-offs"})
    seats = fields.List(fields.Nested(HandSeatSchema))
    next_dealer = fields.Integer()


class BonusSchema(Schema):
    seat = fields.Integer()
    game = fields.Integer()
    shutout = fields.Boolean()
    line = fields.Integer()
    hands_won = fields.Integer()
    total = fields.Integer()


class ActionSchema(Schema):
    """One move. ``type`` decides which other fields it needs."""

    type = fields.String(required=True, validate=validate.OneOf(ACTION_TYPES))
    source = fields.String(validate=validate.OneOf(("stock", "discard")), metadata={
        "description": "draw: where from"})
    card = CardField(metadata={"description": "discard: the card"})
    discard = CardField(metadata={"description": "knock: the card discarded face down"})
    melds = fields.List(fields.List(CardField()), allow_none=True, metadata={
        "description": "knock: optional arrangement to show (must reach the minimum deadwood)"})

    @validates_schema
    def _fields_for_type(self, data: dict[str, Any], **kwargs: Any) -> None:
        needed = {"draw": "source", "discard": "card", "knock": "discard"}.get(data["type"])
        if needed and data.get(needed) is None:
            raise ValidationError(f"a {data['type']} action needs {needed!r}", needed)


class BestDiscardSchema(Schema):
    deadwood = fields.Integer()
    cards = fields.List(fields.String())


class MatchViewSchema(Schema):
    """A match as the caller may see it: public, one seat (with a seat token) or full."""

    id = fields.String(required=True)
    variant = fields.String(required=True)
    options = fields.Dict(required=True)
    version = fields.Integer(required=True, metadata={
        "description": "Number of events so far; send it back as If-Match"})
    phase = fields.String(required=True, metadata={
        "description": "upcard, draw, discard, scoring, completing or complete"})
    awaiting = fields.String(allow_none=True, metadata={
        "description": "scoring or bonuses while a background job has yet to record the result"})
    dealer = fields.Integer(required=True)
    turn = fields.Integer(allow_none=True, required=True)
    hand_number = fields.Integer(required=True)
    knock_limit = fields.Integer(metadata={"description": "This hand's knock limit"})
    scores = fields.List(fields.Integer(), required=True, metadata={
        "description": "Hand points so far, by seat"})
    hands_won = fields.List(fields.Integer())
    stock_count = fields.Integer(required=True)
    discard_pile = fields.List(fields.String(), required=True, metadata={
        "description": "Top card last"})
    seats = fields.List(fields.Nested(SeatSummarySchema), required=True)
    hands = Verbatim(HandResultSchema, many=True, required=True, metadata={
        "description": "Every finished hand"})
    ending = fields.Dict(metadata={"description": "How the current hand ended, while scoring"})
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
    best_discard = fields.Nested(BestDiscardSchema, metadata={
        "description": "Seat views, holding one card too many: the lowest deadwood after a "
                       "discard, and which discards reach it"})
    legal_actions = Verbatim(ActionSchema, many=True, metadata={
        "description": "Seat views: every action the seat may send now, ready to send"})
    all_hands = fields.List(fields.List(fields.String()), metadata={
        "description": "Full (organiser) views only"})
    stock = fields.List(fields.String(), metadata={"description": "Full views only; top first"})


class EventSchema(Schema):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    schema = fields.Integer(required=True)
    ts = fields.Float(required=True, metadata={"description": "Server time, epoch seconds"})
    command_id = fields.String(allow_none=True)
    prev_hash = fields.String(required=True)
    hash = fields.String(required=True)
    data = fields.Dict(required=True, metadata={"description": "Redacted for the caller"})


class EventListSchema(Schema):
    events = Verbatim(EventSchema, many=True, required=True)


class EventQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION),
                           metadata={"description": "Only events with a higher version"})


class ActionHeadersSchema(Schema):
    if_match = fields.String(data_key="If-Match", metadata={
        "description": "The version the action was decided on; 409 when stale"})
    idempotency_key = fields.String(data_key="Idempotency-Key", validate=validate.Length(
        min=1, max=200), metadata={"description": "A repeat returns the first response"})


class HealthSchema(Schema):
    status = fields.String(required=True)
    redis = fields.String(required=True)
    mode = fields.String(required=True, metadata={"description": "embedded or redis"})
