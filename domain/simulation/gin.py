"""One two-player gin hand on ints, for search: legal moves, apply a move, play it out.

The rules are the domain's (``domain.gin.rules``, docs/rules.md 1.3-1.6) for two players,
one deck and no jokers, with every other gin option; the state holds what those rules
read and nothing else. A hand is a 52-bit mask (``domain.mask_deadwood``), the stock a
shared tuple of card indices with a cursor (a copy never copies it), the discard pile a
list. ``GinHand.from_state`` takes any such ``GinState`` in play, a determinised one
included; tests/domain/simulation checks every legal move list, state and result
against ``decide`` and ``evolve``.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from domain.cards import card_at
from domain.gin.options import GinOptions
from domain.gin.state import DISCARD, DRAW, UPCARD, GinState, hand_limits
from domain.mask_deadwood import SUIT, pip_deadwood
from domain.simulation import moves
from domain.simulation.policies import Policy, knocker, uniform
from domain.simulation.showdown import (
    BIG_GIN,
    GIN,
    KNOCK,
    GinRules,
    HandResult,
    defender_deadwood,
    drawn,
    settle,
)

PHASES = (UPCARD, DRAW, DISCARD)
OVER = "over"
"""The phase of a hand that has ended (its ``result`` is set)."""
HAND_SIZE = 10

_TABLES = pip_deadwood()
_DEADWOOD = _TABLES.deadwood
_DISCARD_DEADWOOD = _TABLES.discard_deadwood
_WITHIN = _TABLES.discards_within


def _cards_by_pattern(suit: int) -> tuple[tuple[int, ...], ...]:
    """The card indices each 13-bit pattern of ``suit`` holds, ascending."""
    table: list[tuple[int, ...]] = [()]
    for pattern in range(1, 1 << 13):
        low = pattern & -pattern
        table.append((suit * 13 + low.bit_length() - 1,) + table[pattern ^ low])
    return tuple(table)


_CARDS_OF = tuple(_cards_by_pattern(suit) for suit in range(4))


_INDEX = {code: index for index, code in enumerate(moves.CODES)}.__getitem__


class Unsupported(ValueError):
    """A gin state the fast engine does not play (and says why)."""


def cards_of(mask: int) -> tuple[int, ...]:
    """The card indices of a mask, ascending (the rules' display order)."""
    return (_CARDS_OF[0][mask & SUIT] + _CARDS_OF[1][mask >> 13 & SUIT]
            + _CARDS_OF[2][mask >> 26 & SUIT] + _CARDS_OF[3][mask >> 39])


def rules_of(options: GinOptions, players: int) -> GinRules:
    """The ``GinRules`` of a match's options; ``Unsupported`` for what the engine lacks."""
    missing = []
    if players != 2:
        missing.append(f"{players} players (it plays 2)")
    if options.decks != 1:
        missing.append(f"{options.decks} decks (it plays 1)")
    if options.jokers:
        missing.append(f"{options.jokers} jokers (it plays none)")
    if missing:
        raise Unsupported("the fast gin engine does not play " + ", ".join(missing))
    return GinRules(gin_bonus=options.gin_bonus, big_gin_bonus=options.big_gin_bonus,
                    undercut_bonus=options.undercut_bonus,
                    undercut_on_tie=options.undercut_on_tie,
                    may_discard_taken_discard=options.may_discard_taken_discard,
                    max_turns=options.max_turns)


class GinHand:
    """A two-player gin hand in play, mutable: ``apply`` changes it, ``copy`` forks it."""

    __slots__ = ("dealer", "hands", "knock_limit", "multiplier", "offer", "phase", "pile",
                 "result", "rules", "stock", "stock_only", "taken", "top", "turn", "turns")

    def __init__(self, rules: GinRules, hands: list[int], stock: tuple[int, ...],
                 pile: list[int], *, dealer: int, turn: int, phase: str = UPCARD,
                 offer: tuple[int, ...] = (), top: int = 0, stock_only: bool = False,
                 taken: int = -1, turns: int = 0, knock_limit: int = 10,
                 multiplier: int = 1) -> None:
        self.rules = rules
        self.hands = hands
        """Each seat's cards, a mask."""
        self.stock = stock
        """The stock as dealt, top first; ``top`` is the index of its current top card."""
        self.top = top
        self.pile = pile
        """The discard pile, bottom first."""
        self.dealer = dealer
        self.turn = turn
        """The seat to move."""
        self.phase = phase
        self.offer = offer
        """The seats still to be offered the first upcard."""
        self.stock_only = stock_only
        self.taken = taken
        """The card taken from the discard pile this turn, or -1."""
        self.turns = turns
        self.knock_limit = knock_limit
        self.multiplier = multiplier
        self.result: HandResult | None = None

    # -- making one -----------------------------------------------------------------------

    @classmethod
    def from_state(cls, state: GinState) -> GinHand:
        """The hand in play in a gin state (a determinised one too); ``Unsupported`` for a
        table the engine does not play or a match between hands."""
        rules = rules_of(state.options, state.seats)
        if state.phase not in PHASES or state.turn is None:
            raise Unsupported(f"no hand is in play (phase {state.phase!r})")
        taken = state.taken_discard
        return cls(
            rules, [sum(1 << index for index in map(_INDEX, hand)) for hand in state.hands],
            tuple(map(_INDEX, state.stock)), list(map(_INDEX, state.discard_pile)),
            dealer=state.dealer, turn=state.turn, phase=state.phase,
            offer=tuple(state.upcard_offer), stock_only=state.stock_only,
            taken=-1 if taken is None else _INDEX(taken), turns=state.turns,
            knock_limit=state.knock_limit, multiplier=state.multiplier)

    @classmethod
    def deal(cls, order: Sequence[int], dealer: int, options: GinOptions) -> GinHand:
        """A new hand dealt from a deck order (card indices, top first) as docs/rules.md 0
        deals it: the first upcard offered to the player after the dealer, then the
        dealer."""
        rules = rules_of(options, 2)
        first = 1 - dealer
        hands = [0, 0]
        for i in range(2 * HAND_SIZE):
            hands[(first + i) % 2] |= 1 << order[i]
        upcard = order[2 * HAND_SIZE]
        limit, multiplier = hand_limits(options, card_at(upcard))
        return cls(rules, hands, tuple(order[2 * HAND_SIZE + 1:]), [upcard], dealer=dealer,
                   turn=first, offer=(first, dealer), knock_limit=limit,
                   multiplier=multiplier)

    def copy(self) -> GinHand:
        """An independent copy (the stock, never changed, is shared)."""
        other = GinHand.__new__(GinHand)
        other.rules = self.rules
        other.hands = self.hands[:]
        other.stock = self.stock
        other.top = self.top
        other.pile = self.pile[:]
        other.dealer = self.dealer
        other.turn = self.turn
        other.phase = self.phase
        other.offer = self.offer
        other.stock_only = self.stock_only
        other.taken = self.taken
        other.turns = self.turns
        other.knock_limit = self.knock_limit
        other.multiplier = self.multiplier
        other.result = self.result
        return other

    # -- reading it -----------------------------------------------------------------------

    @property
    def stock_count(self) -> int:
        return len(self.stock) - self.top

    def blocked(self) -> int:
        """The card the seat on turn may not discard (docs/rules.md 1.4), or -1."""
        return -1 if self.rules.may_discard_taken_discard else self.taken

    def legal(self) -> list[int]:
        """The moves of the seat on turn, in the order ``legal_actions`` lists them."""
        phase = self.phase
        if phase == DISCARD:
            hand = self.hands[self.turn]
            blocked = self.blocked()
            cards = [card for card in cards_of(hand) if card != blocked]
            out = cards[:]
            limit = self.knock_limit
            if _DISCARD_DEADWOOD(hand) <= limit:
                knocks = _WITHIN(hand, limit)
                out += [moves.KNOCK + card for card in cards if knocks >> card & 1]
                if self.rules.big_gin_bonus is not None and _DEADWOOD(hand) == 0:
                    out.append(moves.BIG_GIN)
            return out
        if phase == DRAW:
            if self.pile and not self.stock_only:
                return [moves.DRAW_STOCK, moves.DRAW_DISCARD]
            return [moves.DRAW_STOCK]
        if phase == UPCARD:
            return [moves.DRAW_DISCARD, moves.PASS]
        return []

    def may_knock(self) -> bool:
        """Whether the seat on turn, about to discard, may knock (or go big gin)."""
        return self.phase == DISCARD and \
            _DISCARD_DEADWOOD(self.hands[self.turn]) <= self.knock_limit

    # -- changing it ----------------------------------------------------------------------

    def apply(self, move: int) -> None:
        """Play ``move`` for the seat on turn. It must be one of ``legal()``: a search
        asks for those anyway, and checking again would cost as much."""
        if move < moves.KNOCK:
            self._discard(move)
        elif move < moves.DRAW_STOCK:
            self._knock(move - moves.KNOCK)
        elif move == moves.DRAW_STOCK:
            card = self.stock[self.top]
            self.top += 1
            self.hands[self.turn] |= 1 << card
            self.phase, self.taken, self.stock_only, self.offer = DISCARD, -1, False, ()
        elif move == moves.DRAW_DISCARD:
            card = self.pile.pop()
            self.hands[self.turn] |= 1 << card
            self.phase, self.taken, self.stock_only, self.offer = DISCARD, card, False, ()
        elif move == moves.PASS:
            self.offer = self.offer[1:]
            if self.offer:
                self.turn = self.offer[0]
            else:
                self.phase, self.turn, self.stock_only = DRAW, 1 - self.dealer, True
        elif move == moves.BIG_GIN:
            self._end(BIG_GIN, self.hands[self.turn], 0)
        else:
            raise ValueError(f"not a gin move: {move!r}")

    def _discard(self, card: int) -> None:
        """A discard, and the drawn hand it causes at 2 stock cards or at the turn cap."""
        self.hands[self.turn] ^= 1 << card
        self.pile.append(card)
        self.phase, self.turn, self.taken = DRAW, 1 - self.turn, -1
        self.turns += 1
        if len(self.stock) - self.top <= 2:
            self._over(drawn("stock_exhausted"))
        elif self.turns >= self.rules.max_turns:
            self._over(drawn("turn_cap"))

    def _knock(self, card: int) -> None:
        hand = self.hands[self.turn] ^ 1 << card
        self.hands[self.turn] = hand
        self.pile.append(card)
        deadwood = _DEADWOOD(hand)
        self._end(GIN if deadwood == 0 else KNOCK, hand, deadwood)

    def _end(self, kind: str, knocker_cards: int, deadwood: int) -> None:
        knocker = self.turn
        defender = self.hands[1 - knocker]
        if kind == KNOCK:
            against = defender_deadwood(_TABLES, knocker_cards, defender)
        else:
            against = _DEADWOOD(defender)
        self._over(settle(kind, knocker, deadwood, against, self.rules, self.multiplier))

    def _over(self, result: HandResult) -> None:
        self.result = result
        self.phase = OVER

    # -- playing it out -------------------------------------------------------------------

    def playout(self, rng: Random, policy: Policy | None = None) -> HandResult:
        """Play the hand to its end (this hand changes: ``copy`` first to keep it) with
        ``policy`` for both seats, uniformly random legal moves by default."""
        if policy is None or policy in _RANDOM_POLICIES:
            return self._random_playout(rng, policy or uniform)
        while self.result is None:
            self.apply(policy(self, rng))
        return self.result

    def _random_playout(self, rng: Random, policy: Policy) -> HandResult:
        """``playout`` with ``uniform`` or ``knocker``: the same moves from the same ``rng``
        (a test holds it to that), with a whole turn inlined. The two differ only when a
        knock is legal; until then no move list is made: a draw and then a discard are
        picked among the moves the list would hold, as ``uniform`` picks them."""
        random = rng.random
        c0, c1, c2, c3 = _CARDS_OF
        discard_deadwood = _DISCARD_DEADWOOD
        d0, d1, d2, d3 = _TABLES.dead
        g0, g1, g2, g3 = _TABLES.gain
        may_discard_taken = self.rules.may_discard_taken_discard
        max_turns = self.rules.max_turns
        limit = self.knock_limit
        hands, pile, stock = self.hands, self.pile, self.stock
        last = len(stock) - 2  # the hand is drawn once a discard leaves 2 in the stock
        while self.result is None:
            if self.phase != DRAW:
                self.apply(policy(self, rng))
                continue
            turn = self.turn
            if not pile or self.stock_only or random() < 0.5:
                if self.stock_only or not pile:
                    random()
                card = stock[self.top]
                self.top += 1
                taken = -1
            else:
                card = taken = pile.pop()
            hand = hands[turn] | 1 << card
            hands[turn] = hand
            c, d, h, s = hand & SUIT, hand >> 13 & SUIT, hand >> 26 & SUIT, hand >> 39
            if c & d & (h | s) | h & s & (c | d):  # a rank held three times: ask the tables
                least = discard_deadwood(hand)
            else:  # MaskDeadwood.discard_deadwood of a hand without sets, inlined
                least, other = g0[c], g1[d]
                if other < least:
                    least = other
                other = g2[h]
                if other < least:
                    least = other
                other = g3[s]
                if other < least:
                    least = other
                least += d0[c] + d1[d] + d2[h] + d3[s]
            if least <= limit:
                self.phase, self.taken, self.stock_only = DISCARD, taken, False
                continue
            cards = c0[c] + c1[d] + c2[h] + c3[s]
            if taken < 0 or may_discard_taken:
                card = cards[int(random() * len(cards))]
            else:  # the legal discards are ``cards`` less ``taken``, in order
                index = int(random() * (len(cards) - 1))
                card = cards[index] if cards[index] < taken else cards[index + 1]
            hands[turn] = hand ^ 1 << card
            pile.append(card)
            self.turn, self.taken, self.stock_only = 1 - turn, -1, False
            self.turns += 1
            if self.top >= last:
                self._over(drawn("stock_exhausted"))
            elif self.turns >= max_turns:
                self._over(drawn("turn_cap"))
        return self.result


_RANDOM_POLICIES = (uniform, knocker)
