"""The expert's game for two-player, one-deck, joker-free gin: the fast engine's hands.

Each determinisation is a ``GinHand`` (``domain.simulation``) dealt exactly as
``information.determinise`` deals the seat's information state (the same shuffle of the
same unseen cards, so the same rng gives the same deal: a test holds it to that), without
building a ``GinState`` per iteration.

A gin hand between players who knock as soon as they may is a race: whoever knocks first
nearly always wins it. So the search keeps to the race:

- the seat knocks (or goes big gin) whenever the rules let it, with the knock that leaves
  the least deadwood: no search, since waiting for gin measured worse in the bench;
- the opponent plays the fast engine's ``greedy`` beginner (one candidate: the tree
  branches on the seat's own choices only), so a discard it would take is seen taken;
- the default policy is the race itself (``race``): the seat keeps drawing from the
  stock of the deal, every other card (the opponent draws the others), throwing its
  least useful card each time, until it could knock; each opponent turn it waits costs
  it the chance ``HAZARD`` that the opponent knocks first. The reward is that chance of
  getting there first, and a hand that ends in the tree is scored as it ended (won 1,
  drawn 0.5, lost 0).

Candidates at the seat's discard: the discards that leave the least deadwood (dearer cards
first among equals), at most ``DISCARDS_KEPT``; at a draw, both sources, the greedy
choice first.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from domain.bots.expert import outs
from domain.bots.expert.outs import BEST_DISCARDS as _BEST_DISCARDS
from domain.bots.expert.outs import DEADWOOD as _DEADWOOD
from domain.bots.expert.outs import DISCARD_DEADWOOD as _DISCARD_DEADWOOD
from domain.bots.expert.outs import VALUES as _VALUES
from domain.bots.information import HIDDEN, InfoState
from domain.cards import card_index
from domain.gin.state import DISCARD, GinState
from domain.simulation import GinHand, HandResult, greedy, moves, rules_of

HIDDEN_CARD = -1
"""A face-down stock card in the seat's own view."""
DISCARDS_KEPT = 5
"""How many discards a node of the seat's searches."""
HAZARD = 0.12
"""The chance that the opponent knocks in any one of its turns, in the race's reckoning
(0.06 to 0.2 measured alike in the bench)."""
RACE_TURNS = 8
"""How many of its own draws a race plays before giving up."""


def supports(info: InfoState) -> bool:
    """Whether the fast engine plays this table (two seats, one deck, no jokers)."""
    table = info.table
    return isinstance(table, GinState) and table.seats == 2 and table.options.decks == 1 \
        and not table.options.jokers


class FastGin:
    """SO-ISMCTS's ``Game`` over ``GinHand``s, seen from one seat."""

    def __init__(self, base: GinHand, seat: int, unseen: list[int]) -> None:
        """``base`` is the hand as ``seat`` sees it: the opponent holds only its known
        cards and the stock is face down; ``unseen`` the cards of the face-down places,
        in display order."""
        self.base = base
        self.seat = seat
        self.opponent = 1 - seat
        self.face_down = len(unseen) - base.stock_count
        self.unseen = unseen
        self._ordered: dict[tuple[int, int], list[int]] = {}
        self._ties = random.Random(0)

    @classmethod
    def of(cls, info: InfoState) -> FastGin:
        table: GinState = info.table
        opponent = 1 - info.seat
        hands = [0, 0]
        hands[info.seat] = _mask(table.hands[info.seat])
        hands[opponent] = _mask([card for card in table.hands[opponent] if card != HIDDEN])
        taken = table.taken_discard
        if table.turn is None:
            raise ValueError("no seat is on turn: nothing to search")
        base = GinHand(
            rules_of(table.options, 2), hands, (HIDDEN_CARD,) * len(table.stock),
            [card_index(card) for card in table.discard_pile],
            dealer=table.dealer, turn=table.turn, phase=table.phase, offer=table.upcard_offer,
            stock_only=table.stock_only, taken=-1 if taken is None else card_index(taken),
            turns=table.turns, knock_limit=table.knock_limit, multiplier=table.multiplier)
        return cls(base, info.seat, [card_index(card) for card in info.unseen])

    def sample(self, rng: random.Random) -> GinHand:
        cards = self.unseen[:]
        rng.shuffle(cards)
        hand = self.base.copy()
        hand.hands[self.opponent] |= _mask(cards[:self.face_down])
        hand.stock = tuple(cards[self.face_down:])
        return hand

    def fork(self, state: GinHand) -> GinHand:
        return state.copy()

    def to_move(self, state: GinHand) -> int:
        return state.turn

    def candidates(self, state: GinHand) -> Sequence[int]:
        if state.result is not None:
            return ()
        if state.turn == self.opponent:
            return (greedy(state, self._ties),)
        if state.phase != DISCARD:
            legal = state.legal()
            if len(legal) == 2 and greedy(state, self._ties) != legal[0]:
                legal.reverse()
            return legal
        key = (state.hands[state.turn], state.blocked())
        found = self._ordered.get(key)
        if found is None:
            found = self._ordered[key] = ordered_discards(state.legal(), key[0])
        return found

    def apply(self, state: GinHand, move: int) -> GinHand:
        state.apply(move)
        return state

    def playout(self, state: GinHand, rng: random.Random) -> tuple[float, float]:
        mine = won(state.result, self.seat) if state.result else race(state, self.seat)
        return (mine, 1.0 - mine) if self.seat == 0 else (1.0 - mine, mine)

    def outcome(self, state: GinHand, rng: random.Random) -> tuple[int, int]:
        """Each seat's margin in points once ``state`` is played out by ``greedy`` for
        both seats (the appraisal's measure: points, not the race)."""
        result = state.result or state.playout(rng, greedy)
        return result.margin(0), result.margin(1)

    def counted(self) -> int | None:
        """The move ``outs`` counts best now: the discard when no knock is allowed, the
        draw; None when the seat may knock (it does, with the least deadwood)."""
        base, hand = self.base, self.base.hands[self.seat]
        legal = base.legal()
        if base.phase == DISCARD:
            if any(move >= moves.KNOCK for move in legal):
                return None
            return moves.DISCARD + outs.best_discard(hand, legal, self.unseen,
                                                     base.knock_limit,
                                                     base.hands[self.opponent])
        if moves.DRAW_DISCARD not in legal or not base.pile:
            return None
        if outs.takes(hand, base.pile[-1], self.unseen, base.knock_limit):
            return moves.DRAW_DISCARD
        return moves.PASS if moves.PASS in legal else moves.DRAW_STOCK

    def action(self, move: int) -> dict[str, object]:
        return moves.action(move)


def won(result: HandResult, seat: int) -> float:
    return 1.0 if result.winner == seat else 0.5 if result.winner is None else 0.0


def race(state: GinHand, seat: int) -> float:
    """The seat's chance to knock first from ``state`` (see the module's docstring)."""
    hand, limit = state.hands[seat], state.knock_limit
    stock, top, last = state.stock, state.top, len(state.stock) - 2
    waits = 0
    if state.turn == seat and state.phase == DISCARD:
        if _DISCARD_DEADWOOD(hand) <= limit:
            return 1.0
        _, best = _BEST_DISCARDS(hand)
        hand ^= best & -best
    if state.turn != seat:
        waits = 1
        if state.phase != DISCARD:
            top += 1
    for _ in range(RACE_TURNS):
        if top >= last:
            return 0.5 * (1 - HAZARD) ** waits
        hand |= 1 << stock[top]
        if _DISCARD_DEADWOOD(hand) <= limit:
            return (1 - HAZARD) ** waits
        _, best = _BEST_DISCARDS(hand)
        hand ^= best & -best
        waits, top = waits + 1, top + 2
    return (1 - HAZARD) ** (waits + 1)


def ordered_discards(legal: list[int], hand: int) -> list[int]:
    """A discard node's moves: big gin or the best knock alone when allowed, else the
    discards best-looking first (see the module's docstring)."""
    if legal[-1] == moves.BIG_GIN:
        return [moves.BIG_GIN]
    knocks = [move for move in legal if moves.KNOCK <= move < moves.DRAW_STOCK]
    if knocks:
        return [min(knocks, key=lambda move: _left(hand, move - moves.KNOCK))]
    discards = sorted((move for move in legal if move < moves.KNOCK),
                      key=lambda move: _left(hand, move))
    return discards[:DISCARDS_KEPT]


def _left(hand: int, card: int) -> tuple[int, int, int]:
    return _DEADWOOD(hand ^ 1 << card), -_VALUES[card], card


def _mask(cards: object) -> int:
    mask = 0
    for card in cards:  # type: ignore[attr-defined]
        mask |= 1 << (card if isinstance(card, int) else card_index(card))
    return mask
