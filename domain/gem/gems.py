"""The gem deck of docs/rules.md 2.1 as data, and what the rules ask of it.

Every card carries one gem and a king two. The commercial deck's assignment is not
public, so the table is the project's own; it keeps the real deck's known properties
(each gem on seven cards; A+2, 3+4, 5+6, 7+8, 9+T and J+Q each hold all eight gems, and
so do the four kings). The designated diamond of Queen's Diamonds follows from the dice.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product

from domain.cards import RANKS, SUITS, sort_cards

GEMS: tuple[str, ...] = (
    "gold", "emerald", "moonstone", "pearl", "amethyst", "ruby", "topaz", "sapphire",
)
"""The eight gems, in the order of their initials: GEM PARTS."""

_TABLE: dict[str, tuple[str, str, str, str]] = {
    # rank: clubs, diamonds, hearts, spades (docs/rules.md 2.1); kings are in _KINGS
    "A": ("gold", "emerald", "moonstone", "pearl"),
    "2": ("amethyst", "ruby", "topaz", "sapphire"),
    "3": ("pearl", "amethyst", "ruby", "topaz"),
    "4": ("sapphire", "gold", "emerald", "moonstone"),
    "5": ("topaz", "sapphire", "gold", "emerald"),
    "6": ("moonstone", "pearl", "amethyst", "ruby"),
    "7": ("emerald", "moonstone", "pearl", "amethyst"),
    "8": ("ruby", "topaz", "sapphire", "gold"),
    "9": ("amethyst", "ruby", "topaz", "sapphire"),
    "T": ("gold", "emerald", "moonstone", "pearl"),
    "J": ("sapphire", "gold", "emerald", "moonstone"),
    "Q": ("pearl", "amethyst", "ruby", "topaz"),
}
_KINGS: dict[str, tuple[str, str]] = {
    "KC": ("emerald", "ruby"),
    "KD": ("moonstone", "topaz"),
    "KH": ("pearl", "sapphire"),
    "KS": ("amethyst", "gold"),
}

CARD_GEMS: dict[str, tuple[str, ...]] = {
    **{rank + suit: (_TABLE[rank][i],) for rank in RANKS[:-1] for i, suit in enumerate(SUITS)},
    **_KINGS,
}
"""Card code -> its gems (one, or two for a king)."""


def gems_of(card: str) -> tuple[str, ...]:
    """The gems ``card`` carries; () for anything that is not a card of the gem deck."""
    return CARD_GEMS.get(card, ())


def gem_pool(gem: str) -> tuple[str, ...]:
    """The seven cards carrying ``gem``: the cards a stash of that gem is drawn from."""
    return sort_cards(card for card, gems in CARD_GEMS.items() if gem in gems)


def shows_all_gems(cards: Iterable[str]) -> bool:
    """Gem Parts (docs/rules.md 2.5): do the cards show all eight gems, one gem per card?

    A king gives one of its two gems, whichever helps; the kings' choices are tried
    (at most 2**4 of them).
    """
    plain: set[str] = set()
    kings = []
    for card in set(cards):
        gems = gems_of(card)
        if len(gems) == 1:
            plain.add(gems[0])
        elif gems:
            kings.append(gems)
    missing = set(GEMS) - plain
    if len(missing) > len(kings):
        return False
    return any(missing <= set(choice) for choice in product(*kings)) if kings else not missing


def knock_limit(dice: Iterable[int]) -> int:
    """docs/rules.md 2.2: the dice sum is the hand's knock limit."""
    return sum(dice)


def designated_diamond(dice: Iterable[int]) -> str:
    """docs/rules.md 2.2: the dice sum names the diamond of Queen's Diamonds; 11 and 12 the jack."""
    total = sum(dice)
    return "JD" if total >= 11 else RANKS[total - 1] + "D"


def describe() -> dict[str, object]:
    """The gem deck for clients (``GET /v1/variants``): the gems, and each card's gems."""
    return {"gems": list(GEMS), "cards": {card: list(gems) for card, gems in CARD_GEMS.items()}}
