"""``basic`` in rummy and rami: open as soon as allowed, then shed every card the table
takes, and throw the dearest card that builds nothing (docs/rules.md 3.3-3.6).

- Drawing: take the top discard when it is a joker, or when it would be used: before
  opening, it raises the best opening's value (it joins a meld); once opened, it lays
  off onto a table meld or makes a new meld with the hand. Else draw from the stock.
- Before opening: lay down the best opening as soon as it reaches the minimum (the
  first action ``legal_actions`` lists when one does).
- Once opened: lay down new melds (the longest first), lay off (natural cards before
  jokers), exchange jokers (the freed joker must then be placed, so an exchange sheds
  a card too), one placement per call, until nothing fits; going out follows, since
  every placement keeps a card for the discard.
- Discarding: the card that is in no near meld (no other card of its rank, none of its
  suit within two ranks), dearest in minus points first; among equals the one no
  opened opponent could lay off and fewest opponents were seen to take cards near.
"""

from __future__ import annotations

from typing import Any

from domain.bots.basic.knocking import near, wanted_by_others
from domain.bots.information import InfoState
from domain.bots.policies import PLACEMENTS, STOCK, Action
from domain.cards import JOKER, sort_key
from domain.rummy.state import DRAW
from domain.rummy.table import best_opening, card_value
from domain.table_melds import hand_melds, laid_off

TAKE = {"type": "draw", "source": "discard"}
_PLACING_ORDER = {"lay_down": 0, "lay_off": 1, "exchange_joker": 2}


def play(info: InfoState) -> Action:
    legal = info.legal_actions()
    if not legal:
        raise ValueError(f"seat {info.seat} has nothing to play")
    if info.phase == DRAW:
        return dict(TAKE if TAKE in legal and useful(info, info.discard_pile[-1]) else STOCK)
    placing = [action for action in legal if action["type"] in PLACEMENTS]
    if placing and not opened(info):
        return dict(placing[0])  # the best opening
    if placing:
        first: dict[str, Any] = min(placing, key=_placement_order)
        return dict(first)
    discards = [action for action in legal if action["type"] == "discard"]
    return dict(min(discards, key=lambda action: discard_order(info, action["card"])))


def opened(info: InfoState) -> bool:
    return bool(info.table.opened[info.seat])


def useful(info: InfoState, card: str) -> bool:
    """Whether the seat would use ``card`` if it took it (see the module's docstring)."""
    if card == JOKER:
        return True
    hand = info.hand
    if not opened(info):
        return best_opening(hand + (card,)).value > best_opening(hand).value
    if fits_table(info, card):
        return True
    return any(card in meld.cards for meld in hand_melds(hand + (card,)))


def fits_table(info: InfoState, card: str) -> bool:
    """Whether ``card`` could be laid off onto a meld on the table."""
    return any(laid_off(meld.meld, card) is not None for meld in info.table.table)


def _placement_order(action: dict[str, Any]) -> tuple[Any, ...]:
    kind = action["type"]
    if kind == "lay_down":
        cards = [card for meld in action["melds"] for card in meld["cards"]]
        return (0, -len(cards), cards.count(JOKER), str(cards))
    return (_PLACING_ORDER[kind], 0, action["card"] == JOKER, str(action))


def discard_order(info: InfoState, card: str) -> tuple[Any, ...]:
    """How readily ``card`` goes: lower first."""
    hand = info.hand
    builds = any(near(card, other) for other in hand)
    others_opened = any(info.table.opened[seat] for seat in info.opponents())
    gift = others_opened and fits_table(info, card)
    value = 0 if card == JOKER else card_value(card)
    return (card == JOKER, builds, -value, gift, wanted_by_others(info, card),
            sort_key(card))
