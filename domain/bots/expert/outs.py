"""The expert's discard in two-player gin when no knock is allowed: the card whose loss
leaves the best chance to knock within the next two draws.

Sampled playouts cannot tell good discards apart within a move's budget: between the
few cards that leave the least deadwood, the chances to knock first differ by a few
hundredths, less than the noise of a few hundred playouts. Counted exactly they can be:
for each discard, every unseen card is drawn next (each as likely: the seat cannot
tell the stock from the other hand) and, if that draw does not let the seat knock, the
least useful card is thrown and every other unseen card is drawn once more. A card near
no card of the hand (same rank, or same suit within two ranks) melds with none, so it
helps only in place of the card the hand would throw: it is counted by its value alone,
and only the cards near the hand are solved.

Among equal chances, the discard that leaves the least deadwood after one draw, then
the one an opponent who was seen to take cards is least likely to want, then the
dearer card.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.mask_deadwood import pip_deadwood

TABLES = pip_deadwood()
"""Gin's deadwood on 52-bit masks (the fast engine's): the expert's gin counts use it."""
DEADWOOD = TABLES.deadwood
DISCARD_DEADWOOD = TABLES.discard_deadwood
BEST_DISCARDS = TABLES.best_discards
VALUES = TABLES.values
KEPT = 4
"""Discards counted: those leaving the least deadwood now."""


def _near(card: int) -> int:
    rank, suit = card % 13, card // 13
    mask = 0
    for other_suit in range(4):
        mask |= 1 << (other_suit * 13 + rank)
    for other in range(max(0, rank - 2), min(12, rank + 2) + 1):
        mask |= 1 << (suit * 13 + other)
    return mask & ~(1 << card)


NEAR = tuple(_near(card) for card in range(52))


def near_mask(hand: int) -> int:
    mask = 0
    while hand:
        low = hand & -hand
        mask |= NEAR[low.bit_length() - 1]
        hand ^= low
    return mask


def knock_chance(hand: int, unseen: Sequence[int], limit: int) -> tuple[float, float]:
    """(the chance to be able to knock after one or two draws from ``unseen``, the mean
    deadwood after one draw and the best discard) for a ten-card ``hand``."""
    count = len(unseen)
    if count < 2:
        return 0.0, float(DEADWOOD(hand))
    hits, total = 0.0, 0
    for card in unseen:
        drawn = hand | 1 << card
        left = DISCARD_DEADWOOD(drawn)
        total += left
        if left <= limit:
            hits += 1
            continue
        _, best = BEST_DISCARDS(drawn)
        hits += knocking_draws(drawn ^ (best & -best), unseen, limit, card) / (count - 1)
    return hits / count, total / count


def best_discard(hand: int, discards: Iterable[int], unseen: Sequence[int], limit: int,
                 wanted: int = 0) -> int:
    """The card of ``discards`` (indices) to throw from the eleven-card ``hand`` (see the
    module's docstring); ``wanted`` is the mask of cards the opponent was seen to take."""
    ranked = sorted(discards, key=lambda card: (DEADWOOD(hand ^ 1 << card), -VALUES[card]))
    best, best_key = ranked[0], None
    for card in ranked[:KEPT]:
        chance, mean = knock_chance(hand ^ 1 << card, unseen, limit)
        key = (-chance, mean, (NEAR[card] & wanted).bit_count(), -VALUES[card])
        if best_key is None or key < best_key:
            best, best_key = card, key
    return best


def knocking_draws(hand: int, unseen: Sequence[int], limit: int, drawn: int = -1) -> int:
    """How many cards of ``unseen`` (but ``drawn``) let the ten-card ``hand`` knock once
    drawn. A card near none of the hand's only adds its value to the hand's best nine, so
    only the near ones are solved."""
    near, rest = near_mask(hand), DISCARD_DEADWOOD(hand)
    return sum(1 for card in unseen
               if card != drawn and (DISCARD_DEADWOOD(hand | 1 << card) <= limit
                                     if near >> card & 1 else rest + VALUES[card] <= limit))


def one_draw_chance(hand: int, unseen: Sequence[int], limit: int) -> float:
    """The chance that one draw from ``unseen`` lets the ten-card ``hand`` knock."""
    return knocking_draws(hand, unseen, limit) / len(unseen) if unseen else 0.0


def takes(hand: int, top: int, unseen: Sequence[int], limit: int) -> bool:
    """Whether to take the top discard ``top`` into the ten-card ``hand`` rather than
    draw from the stock. Over the same two cards to come, taking gives one sure card and
    one drawn, the stock two drawn: the better chance to be able to knock wins, and among
    equals the lower deadwood (what ``basic`` weighs). The taken card stays in the hand
    (docs/rules.md 1.4)."""
    taken = hand | 1 << top
    deadwood, card = min((DEADWOOD(taken ^ low), low) for low in _bits(hand))
    if deadwood <= limit:
        return True
    kept = taken ^ card
    take, stock = one_draw_chance(kept, unseen, limit), knock_chance(hand, unseen, limit)[0]
    if take != stock:
        return take > stock
    return deadwood < DEADWOOD(hand)


def _bits(mask: int) -> list[int]:
    found = []
    while mask:
        low = mask & -mask
        found.append(low)
        mask ^= low
    return found
