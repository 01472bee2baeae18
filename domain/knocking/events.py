"""The events only gin and gem append: the knocking families' own (docs/events.md)."""

from __future__ import annotations

from domain.events import EventType, Field, card, cards, integer, melds, nullable, seat, string

UPCARD_PASSED = EventType(
    "UpcardPassed", schema=1, appended_by="gin and gem, on a seat's pass",
    description="A seat offered the first upcard passes it; when every seat offered it has "
                "passed, the first draw is from the stock.",
    fields=(Field("seat", "the seat that passes", schema=seat()),))

HAND_KNOCKED = EventType(
    "HandKnocked", schema=1, appended_by="gin and gem, on a seat's knock or big gin",
    description="A seat ends the hand: it knocks, goes gin, or declares big gin, and "
                "shows its melds.",
    fields=(
        Field("seat", "the seat that knocks", schema=seat()),
        Field("discard", "the card it discards; null for big gin, which keeps every card",
              schema=nullable(card())),
        Field("kind", "knock, gin or big_gin", schema=string("knock", "gin", "big_gin")),
        Field("deadwood", "the knocker's deadwood after the discard", schema=integer(0)),
        Field("melds", "the melds it shows", schema=melds()),
        Field("unmatched", "its cards in no meld", schema=cards()),
    ))

EVENT_TYPES = (UPCARD_PASSED, HAND_KNOCKED)
"""The events only gin and gem append: the knocking families' own."""
