"""Opening a match and dealing a hand (docs/rules.md 0 and 2.2): the deck order and the dice.

All randomness arrives in a ``Deal`` decided outside the rules; the deal event records it,
so a replay never rolls a die.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from domain.cards import standard_deck
from domain.errors import RuleError
from domain.events import HAND_DEALT, MATCH_CREATED, RULES_EDITION, Event
from domain.fairness import Deal, roll_dice
from domain.gem.gems import designated_diamond, knock_limit
from domain.gem.options import GemOptions
from domain.gem.state import HAND_SIZE


def match_deck(options: GemOptions) -> tuple[str, ...]:
    return standard_deck()


def check_deck(deck: Sequence[str]) -> None:
    """A prepared deck must be exactly the 52 cards, in some order."""
    if Counter(deck) != Counter(standard_deck()):
        raise RuleError("invalid_deck", "the deck must hold each of the 52 cards once")


def hand_dice(deal: Deal) -> tuple[int, int]:
    """The hand's dice: fixed by the organiser, else rolled from the hand's seed."""
    fixed = deal.fixed.get("dice")
    if fixed is None:
        first, second = roll_dice(deal.seed)
        return first, second
    if (not isinstance(fixed, (list, tuple)) or len(fixed) != 2
            or not all(type(die) is int and 1 <= die <= 6 for die in fixed)):
        raise RuleError("invalid_dice", "dice must be two whole numbers from 1 to 6")
    return fixed[0], fixed[1]


def start_match(players: Sequence[str], options: GemOptions, first_dealer: int,
                deal: Deal, *, rules_edition: int = RULES_EDITION) -> list[Event]:
    """The events that open a match: its creation (under ``rules_edition``; the verifier
    passes a logged match's own) and the first deal."""
    check_deck(deal.deck)
    created = MATCH_CREATED.event(variant="gem", players=list(players),
                                  options=options.to_dict(), first_dealer=first_dealer,
                                  rules_edition=rules_edition)
    return [created, deal_event(1, first_dealer, len(players), deal)]


def deal_event(hand_number: int, dealer: int, players: int, deal: Deal) -> Event:
    """A deal records the deck order and the dice (docs/rules.md 2.2): replay draws nothing.
    Schema 2, like gin's: it carries the fairness fields of ``Deal.record()``.

    The knock limit and the designated diamond follow from the dice; they are written
    out for readers of the log.
    """
    dice = hand_dice(deal)
    return HAND_DEALT.event(
        hand_number=hand_number, dealer=dealer, players=players, hand_size=HAND_SIZE,
        dice=list(dice), knock_limit=knock_limit(dice), diamond=designated_diamond(dice),
        **deal.record())
