"""The seeded shuffle is deterministic, label-separated and a permutation."""

from __future__ import annotations

from collections import Counter

from domain.cards import standard_deck
from domain.shuffle import SeededStream, choose, shuffled


def test_the_same_seed_and_label_give_the_same_order():
    deck = standard_deck()
    assert shuffled(deck, b"seed", "deck:1") == shuffled(deck, b"seed", "deck:1")


def test_labels_and_seeds_separate_the_streams():
    deck = standard_deck()
    assert shuffled(deck, b"seed", "deck:1") != shuffled(deck, b"seed", "deck:2")
    assert shuffled(deck, b"seed", "deck:1") != shuffled(deck, b"other", "deck:1")


def test_a_shuffle_is_a_permutation():
    deck = standard_deck() * 2
    assert Counter(shuffled(deck, b"s", "x")) == Counter(deck)


def test_draws_are_roughly_uniform():
    stream = SeededStream(b"uniform", "test")
    counts = Counter(stream.below(6) for _ in range(6000))
    assert all(900 < counts[face] < 1100 for face in range(6))


def test_choose_stays_in_range():
    assert {choose(4, f"s{i}".encode(), "first_dealer") for i in range(200)} == {0, 1, 2, 3}


def test_a_seed_gives_the_order_every_verifier_computes():
    """The stream is public (docs/rules.md section 0): an auditor's own HMAC-SHA256 code must
    arrive at this order, so it may never change with how the words are computed."""
    assert shuffled(standard_deck(), b"seed", "deck")[:8] == (
        "8C", "4S", "8D", "8H", "6S", "4D", "3H", "5S")
