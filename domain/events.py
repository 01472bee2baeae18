"""The domain's events: immutable facts, past tense, with a schema version.

Each kind of event is declared once, as an ``EventType``: its name, its current schema,
the fields its payload carries, who appends it and what it means in the game. Events are
made only through their type (``HAND_DEALT.event(...)``), so a name is never spelled
twice. This module declares the events more than one family shares and the system's own
(fair deals, clocks, ending a match early); a family's own events live in its package
(``domain.knocking`` for gin and gem, ``domain.rummy.events``), and
``domain.event_registry`` collects them all (and writes docs/events.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class Event:
    """One fact about a match. ``data`` holds only JSON values; it is never mutated."""

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    schema: int = 1


GIN_GEM = ("gin", "gem")
RUMMY_RAMI = ("rummy", "rami")


# --- the JSON Schema of a payload field (plain data; the API puts it in openapi.yaml) -----

CARD_CODE = r"^([2-9TJQKA][CDHS]|JK)$"
"""A card as events carry it: its canonical code (``domain.cards``), ``"TD"`` not ``"10D"``."""

Schema = Mapping[str, Any]


def nullable(schema: Schema) -> Schema:
    """``schema``, or null (OpenAPI 3.0's ``nullable``)."""
    return {**schema, "nullable": True}


def integer(minimum: int | None = None) -> Schema:
    return {"type": "integer"} if minimum is None else {"type": "integer", "minimum": minimum}


def number() -> Schema:
    return {"type": "number"}


def boolean() -> Schema:
    return {"type": "boolean"}


def string(*choices: str) -> Schema:
    """A string; one of ``choices`` when some are given."""
    return {"type": "string", "enum": list(choices)} if choices else {"type": "string"}


def hex_string() -> Schema:
    return {"type": "string", "pattern": "^[0-9a-f]*$"}


def seat() -> Schema:
    """A seat number, from 0."""
    return integer(0)


def card() -> Schema:
    return {"type": "string", "pattern": CARD_CODE}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": dict(items)}


def cards() -> Schema:
    """A list of cards."""
    return array(card())


def seats() -> Schema:
    """A list of seat numbers."""
    return array(seat())


def per_seat(items: Schema | None = None) -> Schema:
    """One value per seat, by seat number (an integer unless ``items`` says otherwise)."""
    return array(items or integer())


def obj(properties: Mapping[str, Schema], *, open_: bool = True) -> Schema:
    """An object with these typed properties; ``open_`` (the default for nested values)
    lets it carry others too."""
    return {"type": "object", "properties": {k: dict(v) for k, v in properties.items()},
            "additionalProperties": open_}


def mapping(values: Schema | None = None) -> Schema:
    """An object of free keys (values any JSON unless ``values`` says)."""
    return {"type": "object", "additionalProperties": dict(values) if values else True}


def meld(**extra: Schema) -> Schema:
    """A meld as events show it: its kind, its cards and the card each represents (a
    joker its declared card); gin and gem's unmatched groups carry a ``tag``."""
    return obj({"kind": string(), "cards": cards(), "represents": cards(),
                "tag": string(), **extra})


def melds(**extra: Schema) -> Schema:
    return array(meld(**extra))


TABLE_MELD = meld(id=integer(0), owner=seat())
"""A rummy table meld: its table ``id`` and the seat that laid it besides a meld's fields."""

PAIRING = obj({"defender": seat(), "winner": nullable(seat()), "result": string(),
               "points": integer(), "knocker_deadwood": integer(0),
               "defender_deadwood": integer(0)})
"""A gin or gem pairing: one defender against the knocker."""

SEAT_RESULT = obj({"seat": seat(), "hand": cards(), "deadwood": integer(0), "melds": melds(),
                   "unmatched": cards(), "discard": card(),
                   "layoffs": array(obj({"card": card(), "meld": integer(0)})),
                   "points": integer(), "minus_points": integer()})
"""A seat's cards at a hand's end: gin and gem show its deadwood, melds and lay-offs
(and the knocker's discard), rummy and rami its points and minus points."""

BONUS = obj({"seat": seat(), "game": integer(), "shutout": boolean(), "line": integer(),
             "hands_won": integer(0), "total": integer()})
"""A seat's end-of-match bonuses (gin)."""


@dataclass(frozen=True)
class Field:
    """One payload field of an event type. ``only`` names the variants whose events carry
    it; empty when every variant that appends the event does. ``schema`` is the JSON
    Schema (OpenAPI 3.0 dialect) of its value, built with the helpers above."""

    name: str
    meaning: str
    only: tuple[str, ...] = ()
    schema: Schema = field(kw_only=True)

    def carried_by(self, variant: str) -> bool:
        return not self.only or variant in self.only


@dataclass(frozen=True)
class EventType:
    """One kind of event, declared once: what makes its events and what documents them."""

    name: str
    schema: int
    appended_by: str
    """Who appends it: a family (or every family) on a seat's move or at creation, a
    system step, the organiser, or the clock."""
    description: str
    fields: tuple[Field, ...]

    def event(self, data: Mapping[str, Any] | None = None, /, **values: Any) -> Event:
        """An event of this type at its current schema; its payload is ``data`` and/or the
        keyword arguments. A field the type does not declare is refused, so no event
        carries what docs/events.md does not describe."""
        payload = {**(data or {}), **values}
        undeclared = payload.keys() - self.field_names
        if undeclared:
            raise ValueError(f"{self.name} declares no field {sorted(undeclared)}")
        return Event(self.name, payload, self.schema)

    @cached_property
    def field_names(self) -> frozenset[str]:
        return frozenset(f.name for f in self.fields)

    def fields_of(self, variant: str) -> frozenset[str]:
        """The field names an event of this type may carry in ``variant``."""
        return frozenset(f.name for f in self.fields if f.carried_by(variant))


def names(*types: EventType) -> frozenset[str]:
    """The names of ``types``: stored events are matched by ``event.type``, a string."""
    return frozenset(t.name for t in types)


# --- every family's game --------------------------------------------------------------

RULES_EDITION = 2
"""The edition of docs/rules.md a match created today is refereed under (docs/rules.md,
"Editions"). A match keeps the edition it was created with for its whole life, so a log
replays and verifies under the rules it was played by. Edition 2 settles 3-4-player gin
hands and match ends whose top score is shared (docs/rules.md 1.8, 1.10)."""

RULES_EDITIONS = range(1, RULES_EDITION + 1)
"""Every edition a stored match can have been played under."""

MATCH_CREATED = EventType(
    "MatchCreated", schema=2, appended_by="every family, at the match's creation",
    description="A match is set up: who sits where, the options, who deals first, and "
                "the edition of the rules it is played under.",
    fields=(
        Field("variant", "the variant played: gin, gem, rummy or rami",
              schema=string("gin", "gem", "rummy", "rami")),
        Field("players", "the players' names, by seat", schema=array(string())),
        Field("options", "every match option, defaults filled in", schema=mapping()),
        Field("first_dealer", "the seat that deals hand 1", schema=seat()),
        Field("rules_edition", "the edition of docs/rules.md the match is played under "
              "(schema 1 logs: 1)", schema=integer(1)),
    ))

HAND_DEALT = EventType(
    "HandDealt", schema=2,
    appended_by="every family, at creation (hand 1), then the scoring step (the next hand)",
    description="A hand (a round, in rummy) is dealt from a recorded deck order, so a "
                "replay never shuffles, under a commitment to its secret seed.",
    fields=(
        Field("hand_number", "which hand this is, from 1", schema=integer(1)),
        Field("dealer", "the seat that deals", schema=seat()),
        Field("players", "how many seats are dealt to", schema=integer(1)),
        Field("hand_size", "cards dealt to each seat", schema=integer(0)),
        Field("deck", "the whole deck in dealing order (secret until the hand's seed is "
                      "revealed; each seat sees only its own cards)", schema=cards()),
        Field("seed", "the hand's secret seed, hex (shown once SeedRevealed is out)",
              schema=hex_string()),
        Field("commitment", "SHA-256 of the hand's seed, public before any card is seen",
              schema=hex_string()),
        Field("prepared", "true when the organiser fixed the deck instead of the shuffle",
              schema=boolean()),
        Field("fixed", "values the organiser fixed for the hand, e.g. `{\"dice\": [3, 4]}`",
              schema=mapping()),
        Field("dice", "the hand's two dice", only=("gem",), schema=array(integer(1))),
        Field("knock_limit", "the knock limit the dice give", only=("gem",), schema=integer()),
        Field("diamond", "the designated diamond the dice give", only=("gem",), schema=card()),
    ))

CARD_DRAWN = EventType(
    "CardDrawn", schema=1, appended_by="every family, on a seat's draw",
    description="A seat draws the top of the stock, or takes from the discard pile.",
    fields=(
        Field("seat", "the seat that draws", schema=seat()),
        Field("source", "stock or discard", schema=string("stock", "discard")),
        Field("card", "the card drawn (from the stock, hidden from the other seats); in "
                      "gem the deepest card taken from the pile", schema=card()),
        Field("depth", "how deep into the discard pile the seat took (1: the top card)",
              only=("gem",), schema=integer(1)),
        Field("cards", "every card taken from the discard pile, the deepest first",
              only=("gem",), schema=cards()),
    ))

CARD_DISCARDED = EventType(
    "CardDiscarded", schema=1, appended_by="every family, on a seat's discard",
    description="A seat discards a card face up, ending its turn.",
    fields=(
        Field("seat", "the seat that discards", schema=seat()),
        Field("card", "the card discarded", schema=card()),
    ))

HAND_ENDED = EventType(
    "HandEnded", schema=1, appended_by="every family, right after the discard that ends it",
    description="The hand ends without a knock: drawn (gin, gem), or a player went out "
                "or the round is void (rummy, rami).",
    fields=(
        Field("result", "draw (gin, gem); out or void (rummy, rami)",
              schema=string("draw", "out", "void")),
        Field("reason", "out, stock_exhausted or turn_cap",
              schema=string("out", "stock_exhausted", "turn_cap")),
        Field("winner", "the seat that went out; null in a void round", only=RUMMY_RAMI,
              schema=nullable(seat())),
        Field("rummy", "whether the winner went rummy: opened in the turn it went out",
              only=RUMMY_RAMI, schema=boolean()),
    ))

HAND_SCORED = EventType(
    "HandScored", schema=1, appended_by="system step (scoring)",
    description="The ended hand is scored: the showdown, the lay-offs and each seat's "
                "points, and who deals next.",
    fields=(
        Field("hand_number", "the hand scored", schema=integer(1)),
        Field("result", "knock, gin, big_gin, undercut, tie or draw (gin, gem); out or "
                        "void (rummy, rami)",
              schema=string("knock", "gin", "big_gin", "undercut", "tie", "draw", "out", "void")),
        Field("reason", "why the hand ended without a knock (gin, gem: drawn hands only); "
                        "how the round ended (rummy, rami)", schema=string()),
        Field("knocker", "the seat that knocked; null in a drawn hand", only=GIN_GEM,
              schema=nullable(seat())),
        Field("winner", "the hand's winner, or null when nobody (or several) won it",
              schema=nullable(seat())),
        Field("hand_winners", "the winner of each pairing (gin, gem); the seat that went "
                              "out (rummy, rami)", schema=seats()),
        Field("points", "each seat's points for the hand (rummy, rami: minus points)",
              schema=per_seat()),
        Field("pairings", "each defender against the knocker: result, winner, points and "
                          "both deadwoods", only=GIN_GEM, schema=array(PAIRING)),
        Field("table", "the melds on the table at the end, lay-offs included",
              schema=array(TABLE_MELD)),
        Field("seats", "each seat's cards at the end: deadwood, melds and lay-offs (gin, "
                       "gem) or minus points (rummy, rami)", schema=array(SEAT_RESULT)),
        Field("next_dealer", "the seat that deals the next hand", schema=seat()),
        Field("gem_parts", "each seat's Gem Parts bonus, already in its points",
              only=("gem",), schema=per_seat()),
        Field("rummy", "whether the winner went rummy (its points doubled)", only=RUMMY_RAMI,
              schema=boolean()),
        Field("scores", "each seat's running total after the round", only=RUMMY_RAMI,
              schema=per_seat()),
        Field("game_over", "whether the game ends with this round", only=RUMMY_RAMI,
              schema=boolean()),
    ))

MATCH_COMPLETED = EventType(
    "MatchCompleted", schema=1, appended_by="system step (bonuses)",
    description="The match has reached its end: the winner, the bonuses and the final "
                "scores.",
    fields=(
        Field("winner", "the winning seat; null when several share the win",
              schema=nullable(seat())),
        Field("winners", "every seat with the best final score", schema=seats()),
        Field("final_scores", "each seat's final total", schema=per_seat()),
        Field("hand_scores", "each seat's total of hand points, before bonuses",
              only=GIN_GEM, schema=per_seat()),
        Field("bonuses", "each seat's end-of-match bonuses (gin: game, shutout, line; "
                         "gem has none)", only=GIN_GEM, schema=array(BONUS)),
        Field("rounds_played", "the rounds that counted (void rounds do not)",
              only=RUMMY_RAMI, schema=integer(0)),
    ))

GAME_EVENTS = (MATCH_CREATED, HAND_DEALT, CARD_DRAWN, CARD_DISCARDED, HAND_ENDED,
               HAND_SCORED, MATCH_COMPLETED)
"""The game events every family appends (each family adds its own)."""


# --- fair deals (domain.fairness) -------------------------------------------------------

SEED_COMMITTED = EventType(
    "SeedCommitted", schema=1, appended_by="every family, at the match's creation",
    description="Before any card is seen, the match commits to its secret seed and "
                "records the players' entropy mixed into every hand.",
    fields=(
        Field("seed_commitment", "SHA-256 of the match's secret seed, hex", schema=hex_string()),
        Field("entropy", "each player's public entropy string, by seat", schema=array(string())),
    ))

SEED_REVEALED = EventType(
    "SeedRevealed", schema=1,
    appended_by="system step (scoring); the organiser, the clock or a resigning seat, "
                "ending a match mid-hand",
    description="A finished hand's seed is revealed: anyone can now check its deal, and "
                "all of the hand's events are public.",
    fields=(
        Field("hand_number", "the hand whose seed this is", schema=integer(1)),
        Field("seed", "the hand's seed, hex; SHA-256 of it is the deal's commitment",
              schema=hex_string()),
    ))

MATCH_SEED_REVEALED = EventType(
    "MatchSeedRevealed", schema=1,
    appended_by="system step (bonuses); the organiser, the clock or a resigning seat, "
                "ending a match",
    description="At the match's end its seed is revealed: every hand seed and the drawn "
                "first dealer derive from it.",
    fields=(Field("seed", "the match's seed, hex; SHA-256 of it is SeedCommitted's",
                  schema=hex_string()),))

FAIRNESS_EVENTS = (SEED_COMMITTED, SEED_REVEALED, MATCH_SEED_REVEALED)


# --- clocks (domain.clocks) -------------------------------------------------------------

CLOCK_SET = EventType(
    "ClockSet", schema=1,
    appended_by="every family, at the creation of a match played on a clock",
    description="The match is played on a clock: a limit per turn, a time bank per seat, "
                "or both.",
    fields=(
        Field("turn_seconds", "how long a turn may last, or null", schema=nullable(number())),
        Field("bank_seconds", "each seat's time bank for the whole match, or null",
              schema=nullable(number())),
        Field("on_timeout", "what a turn that runs out does: forfeit or auto_play",
              schema=string("forfeit", "auto_play")),
    ))


# --- computer players (domain.bot_seats) ------------------------------------------------

BOTS_SEATED = EventType(
    "BotsSeated", schema=2,
    appended_by="every family, at the creation of a match with computer players",
    description="Computer players hold these seats: the server plays each one's turns, "
                "as ordinary seat commands naming the bot, think_ms after the event that "
                "gave it the turn.",
    fields=(
        Field("seats", "each bot seat: its number, its level (random, basic or expert), "
                       "its think time in milliseconds and, on an expert's seat only, its "
                       "budget per move in milliseconds (counted in iterations)",
              schema=array(obj({"seat": seat(), "level": string(), "think_ms": integer(0),
                                "budget_ms": integer(1)}, open_=False))),
    ))


# --- a rematch (domain.rematch) ---------------------------------------------------------

REMATCH_OFFERED = EventType(
    "RematchOffered", schema=1, appended_by="a seat (its token), once the match has ended",
    description="A seat offers a rematch of the ended match: the same variant, options and "
                "players, the seats moved on by one (docs/front-ends.md, Rematch). The "
                "offer counts as that seat's acceptance.",
    fields=(Field("seat", "the seat that offers", schema=seat()),))

REMATCH_ACCEPTED = EventType(
    "RematchAccepted", schema=1,
    appended_by="a seat (its token), once a rematch is offered; a computer player's seat "
                "with the offer",
    description="A seat accepts the rematch on offer; a computer player accepts as soon as "
                "it is offered.",
    fields=(
        Field("seat", "the seat that accepts", schema=seat()),
        Field("bot", "the level of the computer player that accepts, null for a person",
              schema=nullable(string())),
    ))

REMATCH_DECLINED = EventType(
    "RematchDeclined", schema=1, appended_by="a seat (its token), once the match has ended",
    description="A seat declines the rematch: it is off for everyone, for good.",
    fields=(Field("seat", "the seat that declines", schema=seat()),))

REMATCH_STARTED = EventType(
    "RematchStarted", schema=1, appended_by="the acceptance that completes a rematch",
    description="Every seat has accepted: the rematch is the match with this id, created "
                "right after (its id is fixed here first, so it is created once).",
    fields=(
        Field("match_id", "the new match's id", schema=string()),
        Field("seats", "each seat's seat in the new match, by this match's seat",
              schema=seats()),
    ))

REMATCH_CREATED = EventType(
    "RematchCreated", schema=1, appended_by="every family, at the creation of a rematch",
    description="This match is the rematch of another: where each of its players sat there.",
    fields=(
        Field("rematch_of", "the ended match this one is a rematch of", schema=string()),
        Field("previous_seats", "each seat's seat in that match, by this match's seat",
              schema=seats()),
    ))

REMATCH_EVENTS = (REMATCH_OFFERED, REMATCH_ACCEPTED, REMATCH_DECLINED, REMATCH_STARTED,
                  REMATCH_CREATED)
"""A rematch's events: the ended match's own (offers, acceptances, its decline or start,
after its end) and the new match's record of where it came from (at its creation)."""


# --- ending a match early (domain.controls) ---------------------------------------------

SEAT_FORFEITED = EventType(
    "SeatForfeited", schema=1, appended_by="the organiser, the clock, or the seat itself "
                                           "(resigning)",
    description="A seat forfeits: it loses, and the match ends at once with the others "
                "ranked by their scores.",
    fields=(
        Field("seat", "the seat that forfeits", schema=seat()),
        Field("reason", "why, in the organiser's or the resigning player's words (the "
                        "clock's: time ran out)", schema=string()),
        Field("by", "organiser, clock or seat (it resigned)",
              schema=string("organiser", "clock", "seat")),
        Field("winner", "the winning seat; null when several share the win",
              schema=nullable(seat())),
        Field("winners", "the best-ranked seats", schema=seats()),
        Field("ranking", "every seat, best first; the forfeiting seat last", schema=seats()),
        Field("final_scores", "each seat's score as it stood", schema=per_seat()),
        Field("bonuses", "always empty: no end-of-match bonuses are paid", schema=array(BONUS)),
    ))

MATCH_ABORTED = EventType(
    "MatchAborted", schema=1, appended_by="the organiser",
    description="The match is void: it ends with no winner.",
    fields=(
        Field("reason", "why, in the organiser's words", schema=string()),
        Field("by", "organiser", schema=string("organiser")),
    ))

CONTROL_EVENTS = (SEAT_FORFEITED, MATCH_ABORTED)
