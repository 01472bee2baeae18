"""Cards, decks and dealing (docs/rules.md section 0).

A card is its canonical two-character code: rank then suit (``"7H"``, ``"TD"``), or
``"JK"`` for a joker. Codes are plain strings so that events, views and the API carry
exactly what a player reads on the table; the meld solver maps them to bit positions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

RANKS = "A23456789TJQK"
SUITS = "CDHS"
JOKER = "JK"


class CardError(ValueError):
    """Raised for text that is not a card code."""


_RANK_INDEX = {rank: i for i, rank in enumerate(RANKS)}
_SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}
_CANONICAL = frozenset([rank + suit for rank in RANKS for suit in SUITS] + [JOKER])


def parse_card(text: str) -> str:
    """Return the canonical code for ``text``; accepts ``10D`` and lower case."""
    if not isinstance(text, str):
        raise CardError(f"not a card code: {text!r}")
    if text in _CANONICAL:  # the common case: the solver and bots pass codes they made
        return text
    code = text.strip().upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    if code == JOKER:
        return JOKER
    if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise CardError(f"not a card code: {text!r}")
    return code


def parse_cards(texts: Iterable[str]) -> tuple[str, ...]:
    """Canonical codes for many card texts, in the order given."""
    return tuple(parse_card(text) for text in texts)


def is_joker(card: str) -> bool:
    return card == JOKER


def rank_of(card: str) -> int:
    """0 for an ace up to 12 for a king."""
    try:
        return _RANK_INDEX[card[0]]
    except KeyError:
        raise ValueError(f"no rank in {card!r}") from None


def suit_of(card: str) -> int:
    """Index into ``SUITS`` (C, D, H, S)."""
    try:
        return _SUIT_INDEX[card[1]]
    except KeyError:
        raise ValueError(f"no suit in {card!r}") from None


def card_index(card: str) -> int:
    """A dense index 0..51, suit-major (all clubs first), for bit masks and tables."""
    return suit_of(card) * 13 + rank_of(card)


def card_at(index: int) -> str:
    """The inverse of ``card_index``."""
    return RANKS[index % 13] + SUITS[index // 13]


def pip_value(card: str) -> int:
    """Gin and gem deadwood value: ace 1, 2-9 their pips, ten and faces 10."""
    return min(rank_of(card) + 1, 10)


def standard_deck() -> tuple[str, ...]:
    """One pack of 52 in canonical order (clubs A..K, then diamonds, hearts, spades)."""
    return tuple(rank + suit for suit in SUITS for rank in RANKS)


def build_deck(decks: int = 1, jokers: int = 0) -> tuple[str, ...]:
    """``decks`` packs of 52 followed by ``jokers`` jokers, in canonical order."""
    return standard_deck() * decks + (JOKER,) * jokers


_DISPLAY_ORDER = {card: i for i, card in enumerate(standard_deck() + (JOKER,))}


def sort_key(card: str) -> int:
    """Display order in a hand: by suit, then rank; jokers last."""
    return _DISPLAY_ORDER[card]


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=_DISPLAY_ORDER.__getitem__))


def deal(
    order: Sequence[str], players: int, dealer: int, hand_size: int, upcard: bool = True
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], tuple[str, ...]]:
    """Deal ``order`` (first element on top) as docs/rules.md section 0 says.

    One card at a time, clockwise from the player after the dealer, until every player
    has ``hand_size``; then the next card starts the discard pile (when ``upcard``);
    the rest is the stock, top first. Returns (hands by seat, discard pile, stock).
    """
    needed = players * hand_size + (1 if upcard else 0)
    if len(order) < needed:
        raise ValueError(f"a deck of {len(order)} cards cannot deal {needed}")
    hands: list[list[str]] = [[] for _ in range(players)]
    for i in range(players * hand_size):
        hands[(dealer + 1 + i) % players].append(order[i])
    rest = tuple(order[players * hand_size :])
    pile = rest[:1] if upcard else ()
    stock = rest[1:] if upcard else rest
    return tuple(tuple(hand) for hand in hands), pile, stock


def without(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    """``cards`` less one copy of ``card`` (hands are multisets with two decks)."""
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]
