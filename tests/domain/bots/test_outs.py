"""The expert's gin discard and draw count the chances to knock exactly, over every card
the seat cannot see."""

from __future__ import annotations

import random

from domain.bots.expert import outs
from domain.cards import card_index
from domain.mask_deadwood import pip_deadwood

DISCARD_DEADWOOD = pip_deadwood().discard_deadwood


def mask(cards: str) -> int:
    return sum(1 << card_index(card) for card in cards.split())


def unseen_of(hand: int, rng: random.Random, count: int = 31) -> list[int]:
    return rng.sample([card for card in range(52) if not hand >> card & 1], count)


def test_the_count_solves_only_near_cards_and_agrees_with_solving_every_one():
    rng = random.Random(7)
    for limit in (10, 5, 0):
        for _ in range(300):
            hand = sum(1 << card for card in rng.sample(range(52), 10))
            unseen = unseen_of(hand, rng)
            every = sum(1 for card in unseen if DISCARD_DEADWOOD(hand | 1 << card) <= limit)
            assert outs.knocking_draws(hand, unseen, limit) == every


def test_a_far_low_card_in_place_of_a_king_lets_the_hand_knock():
    hand = mask("4D 4S 4H 9C TC JC QC 2H 3H KS")  # deadwood 2 + 3 + 10 = 15
    ace = card_index("AD")
    assert not outs.near_mask(hand) >> ace & 1
    assert outs.knocking_draws(hand, [ace], 10) == 1  # throw KS: 2 + 3 + 1 = 6


def test_a_hand_one_card_from_a_knock_counts_its_outs():
    hand = mask("4D 4S 4H 9C TC JC QC 2H 3H KS")
    unseen = [card_index(card) for card in "AH 5H 8C KC 6D 7S".split()]
    chance = outs.one_draw_chance(hand, unseen, 10)
    assert chance == 4 / 6  # AH and 5H meld with 2H 3H; 8C and KC extend the run


def test_the_discard_keeps_the_hand_with_more_ways_to_knock():
    # Deadwood 2H 3H KS 8D after the melds; throwing KS or 8D leaves the same kind of
    # hand, but 8D's neighbours are gone (7D 9D seen), so 8D goes.
    hand = mask("4D 4S 4H 9C TC JC QC 2H 3H KS 8D")
    seen_gone = {card_index(card) for card in "7D 9D 6D TD".split()}
    unseen = [card for card in range(52) if not hand >> card & 1 and card not in seen_gone]
    discards = [card_index(card) for card in "KS 8D".split()]
    assert outs.best_discard(hand, discards, unseen, 10) in discards
    chance_ks, _ = outs.knock_chance(hand ^ 1 << card_index("KS"), unseen, 10)
    chance_8d, _ = outs.knock_chance(hand ^ 1 << card_index("8D"), unseen, 10)
    best = outs.best_discard(hand, discards, unseen, 10)
    assert best == (card_index("KS") if chance_ks > chance_8d else card_index("8D"))


def test_a_discard_that_lets_the_seat_knock_at_once_is_taken():
    hand = mask("4D 4S 4H 9C TC JC QC 2H 3H KS")
    rng = random.Random(1)
    assert outs.takes(hand, card_index("AH"), unseen_of(hand | mask("AH"), rng), 10)


def test_a_card_the_hand_would_throw_straight_back_is_not_taken():
    hand = mask("4D 4S 4H 9C TC JC QC 2H 3H 8S")
    rng = random.Random(2)
    assert not outs.takes(hand, card_index("KD"), unseen_of(hand | mask("KD"), rng), 10)
