"""The events only rummy and rami append: melds laid on the table, and the rebuilt stock.

A table meld is named by its ``id`` (stable for the round) and every event that changes
one carries the meld as it becomes (``result``), so a client following the stream keeps
its table without the rules.
"""

from __future__ import annotations

from domain.events import (
    TABLE_MELD,
    EventType,
    Field,
    array,
    boolean,
    card,
    cards,
    integer,
    seat,
)

MELD_FIELDS = "kind (set or run), cards, and the card each represents (a joker its declared card)"

MELDS_LAID_DOWN = EventType(
    "MeldsLaidDown", schema=1, appended_by="rummy and rami, on a seat's lay-down",
    description="A seat lays new melds on the table from its hand: its opening, or more "
                "melds once it has opened.",
    fields=(
        Field("seat", "the seat that lays down", schema=seat()),
        Field("opening", "whether this opens the seat (its melds reach the opening minimum)",
              schema=boolean()),
        Field("value", "the points the melds are worth", schema=integer()),
        Field("melds", f"the new melds, each with its table id, {MELD_FIELDS}",
              schema=array(TABLE_MELD)),
    ))

CARD_LAID_OFF = EventType(
    "CardLaidOff", schema=1, appended_by="rummy and rami, on a seat's lay-off",
    description="A seat that has opened lays one card off onto a meld on the table.",
    fields=(
        Field("seat", "the seat that lays off", schema=seat()),
        Field("meld", "the table meld's id", schema=integer(0)),
        Field("card", "the card laid off", schema=card()),
        Field("represents", "the card it stands for: a joker's declared card, else itself",
              schema=card()),
        Field("result", f"the meld as it becomes: {MELD_FIELDS}", schema=TABLE_MELD),
    ))

JOKER_EXCHANGED = EventType(
    "JokerExchanged", schema=1, appended_by="rummy and rami, on a seat's joker exchange",
    description="A seat that has opened puts the card a table joker stands for in its "
                "place and takes the joker, which it must place again this turn.",
    fields=(
        Field("seat", "the seat that exchanges", schema=seat()),
        Field("meld", "the table meld's id", schema=integer(0)),
        Field("card", "the natural card put in the joker's place", schema=card()),
        Field("result", f"the meld as it becomes: {MELD_FIELDS}", schema=TABLE_MELD),
    ))

STOCK_REBUILT = EventType(
    "StockRebuilt", schema=1, appended_by="rummy and rami, right after the discard that "
                                          "empties the stock",
    description="The stock ran out: the discards under the top card are shuffled from "
                "the hand's seed into a new stock.",
    fields=(
        Field("rebuild", "which rebuild of the hand this is, from 1", schema=integer(1)),
        Field("count", "how many cards the new stock holds", schema=integer(0)),
        Field("stock", "the new stock's order (only the organiser sees it)", schema=cards()),
    ))

EVENT_TYPES = (MELDS_LAID_DOWN, CARD_LAID_OFF, JOKER_EXCHANGED, STOCK_REBUILT)
"""The events only rummy and rami append."""
