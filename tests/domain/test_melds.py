"""The meld solver: deadwood, best discard and arrangements (docs/rules.md 1.2, 1.7, 2.3, 4).

The property tests compare the solver with a tiny brute force written from the rules
alone: every group of cards that is a valid meld, every choice of disjoint groups.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.cards import JOKER, RANKS, SUITS, build_deck, pip_value, rank_of, sort_cards, suit_of
from domain.melds import Arrangement, Meld, MeldSolver, gin_solver, pool_templates

SOLVER = gin_solver(jokers=True)
PROPERTY = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def hand(text: str) -> list[str]:
    return text.split()


# -- an independent brute force ---------------------------------------------------------


def is_meld(cards: list[str]) -> bool:
    """docs/rules.md 1.2 and 1.7, read literally."""
    jokers = cards.count(JOKER)
    naturals = [c for c in cards if c != JOKER]
    if len(naturals) <= jokers or len(cards) < 3:
        return False
    ranks = [rank_of(c) for c in naturals]
    suits = [suit_of(c) for c in naturals]
    if len(set(ranks)) == 1 and len(set(suits)) == len(naturals) and len(cards) <= 4:
        return True
    if len(set(suits)) == 1 and len(set(ranks)) == len(naturals):
        return max(ranks) - min(ranks) + 1 <= len(cards) <= 13
    return False


def value(card: str) -> int:
    return 15 if card == JOKER else pip_value(card)


def brute_melds(cards: list[str], extra: tuple[tuple[str, ...], ...] = ()) -> list[int]:
    """Every group of positions that is a valid meld (only groups of one rank or one suit,
    plus jokers, can be: that keeps the enumeration small)."""
    jokers = [p for p, c in enumerate(cards) if c == JOKER]
    families: dict[tuple[str, int], list[int]] = {}
    for p, c in enumerate(cards):
        if c != JOKER:
            families.setdefault(("rank", rank_of(c)), []).append(p)
            families.setdefault(("suit", suit_of(c)), []).append(p)
    found = set()
    for members in families.values():
        for size in range(1, len(members) + 1):
            for group in combinations(members, size):
                for wild in range(len(jokers) + 1):
                    for wild_group in combinations(jokers, wild):
                        chosen = group + wild_group
                        if is_meld([cards[p] for p in chosen]):
                            found.add(sum(1 << p for p in chosen))
    for template in extra:
        for group in combinations(range(len(cards)), len(template)):
            if sorted(cards[p] for p in group) == sorted(template):
                found.add(sum(1 << p for p in group))
    return sorted(found)


def brute_solver(cards: list[str], extra: tuple[tuple[str, ...], ...] = ()):
    """min deadwood of any subset of positions (as a bit mask) of ``cards``."""
    melds = brute_melds(cards, extra)

    @cache
    def best(left: int) -> int:
        if not left:
            return 0
        low = left & -left
        result = value(cards[low.bit_length() - 1]) + best(left ^ low)
        for meld in melds:
            if meld & low and meld & left == meld:
                result = min(result, best(left ^ meld))
        return result

    return best


def brute_deadwood(cards: list[str], extra: tuple[tuple[str, ...], ...] = ()) -> int:
    return brute_solver(cards, extra)((1 << len(cards)) - 1)


def brute_discard(
    cards: list[str], extra: tuple[tuple[str, ...], ...] = ()
) -> tuple[int, tuple[str, ...]]:
    best = brute_solver(cards, extra)
    full = (1 << len(cards)) - 1
    after = {}
    for p, card in enumerate(cards):
        after[card] = min(after.get(card, 10**9), best(full ^ (1 << p)))
    low = min(after.values())
    return low, sort_cards(c for c, v in after.items() if v == low)


def reads_correctly(meld: Meld) -> bool:
    """A meld's cards stand for its ``represents`` and those form a set or a run."""
    if len(meld.cards) != len(meld.represents) or not is_meld(list(meld.cards)):
        return False
    if any(c not in (JOKER, r) for c, r in zip(meld.cards, meld.represents, strict=True)):
        return False
    reps = meld.represents
    if meld.kind == "set":
        return len({r[0] for r in reps}) == 1 and len({r[1] for r in reps}) == len(reps)
    if meld.kind == "run":
        ranks = [rank_of(r) for r in reps]
        return len({r[1] for r in reps}) == 1 and ranks == list(range(ranks[0], ranks[-1] + 1))
    return False


def check_arrangement(solver: MeldSolver, cards: list[str], arrangement: Arrangement) -> None:
    used = Counter(arrangement.unmatched)
    for meld in arrangement.melds:
        assert reads_correctly(meld), meld
        used.update(meld.cards)
    assert used == Counter(cards)
    assert arrangement.deadwood == sum(value(c) for c in arrangement.unmatched)
    assert arrangement.deadwood == solver.deadwood(cards)


# -- hands for the property tests -------------------------------------------------------

ONE_DECK = build_deck()
DENSE = [r + s for r in "A23456789" for s in SUITS]  # more melds, more conflicts
TWO_DECKS = [r + s for r in "3456789T" for s in SUITS] * 2


def hands_from(deck: list[str] | tuple[str, ...], size: int, jokers: int = 0):
    return st.permutations(list(deck)).map(lambda order: order[: size - jokers] + [JOKER] * jokers)


one_deck_hands = st.one_of(
    *(hands_from(deck, size) for deck in (ONE_DECK, DENSE) for size in (10, 11))
)
joker_hands = st.one_of(
    *(hands_from(deck, size, j) for deck in (ONE_DECK, DENSE) for size in (10, 11) for j in (1, 2))
)
two_deck_hands = st.one_of(hands_from(TWO_DECKS, 10), hands_from(TWO_DECKS, 11))


# -- docs/rules.md section 4 ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "deadwood"),
    [
        ("4D 4S 4H 9C TC JC QC KC 2H 5S", 7),
        ("2D 3D 4D 5D 6D 7D AC 2S 3H JC", 16),
        ("TC QC 4D 9D 4H 9H JH 4S 5S 6S", 56),
        ("JC KC 5D JD KD 3H 4H 5H 2S 5S", 49),
    ],
)
def test_rules_examples_1_to_4(text, deadwood):
    cards = hand(text)
    assert SOLVER.deadwood(cards) == deadwood
    check_arrangement(SOLVER, cards, SOLVER.best(cards))


def test_example_1_may_knock_example_2_may_not():
    assert SOLVER.deadwood(hand("4D 4S 4H 9C TC JC QC KC 2H 5S")) <= 10
    assert SOLVER.deadwood(hand("2D 3D 4D 5D 6D 7D AC 2S 3H JC")) > 10


def test_example_3_the_run_of_spades_beats_the_set_of_fours():
    best = SOLVER.best(hand("TC QC 4D 9D 4H 9H JH 4S 5S 6S"))
    assert [m.represents for m in best.melds] == [("4S", "5S", "6S")]


def test_example_4_the_set_of_fives_beats_the_run_of_hearts():
    best = SOLVER.best(hand("JC KC 5D JD KD 3H 4H 5H 2S 5S"))
    assert [m.represents for m in best.melds] == [("5D", "5H", "5S")]


def test_example_5_all_eleven_meld_big_gin():
    cards = hand("AC 2C 3C 4D 5D 6D 7D 8H 9H TH JH")
    assert SOLVER.deadwood(cards) == 0
    assert SOLVER.best_discard(cards)[0] == 0
    assert SOLVER.best(cards).unmatched == ()


# -- melds and deadwood ------------------------------------------------------------------


def test_ace_is_low_only():
    assert SOLVER.deadwood(hand("AH 2H 3H")) == 0
    assert SOLVER.deadwood(hand("QH KH AH")) == 21
    assert SOLVER.deadwood(hand("KH AH 2H")) == 13


def test_a_set_needs_distinct_suits_even_with_two_decks():
    assert SOLVER.deadwood(hand("7H 7H 7C")) == 21
    assert SOLVER.deadwood(hand("7H 7H 7C 7D")) == 7
    assert SOLVER.deadwood(hand("7H 7H 7C 7D 7S")) == 7  # at most four in a set


def test_a_run_holds_no_duplicate_but_two_decks_give_two_runs():
    assert SOLVER.deadwood(hand("5H 6H 6H 7H")) == 6
    assert SOLVER.deadwood(hand("5H 5H 6H 6H 7H 7H")) == 0


def test_a_meld_holds_more_natural_cards_than_jokers():
    assert SOLVER.deadwood(hand("7H JK")) == 22
    assert SOLVER.deadwood(hand("7H 8H JK")) == 0
    assert SOLVER.deadwood(hand("7H 8H JK JK")) == 15  # 7H 8H JK JK is not a run
    assert SOLVER.deadwood(hand("7H 7C JK JK")) == 15
    assert SOLVER.deadwood(hand("5H 6H 7H JK JK")) == 0


def test_runs_of_any_length_with_jokers():
    # 5-JK-7-JK-9 cannot be cut into valid pieces, but is one valid run.
    assert SOLVER.deadwood(hand("5H JK 7H JK 9H")) == 0
    assert SOLVER.deadwood(hand("5H JK 7H JK 9H JK")) == 15  # three jokers need four naturals
    assert SOLVER.deadwood(hand("2H JK 4H JK 6H JK 8H")) == 0


def test_a_joker_may_stand_for_a_card_the_hand_also_holds():
    cards = hand("7C 7D 7H 6H 8H JK")
    readings = {m.represents for a in SOLVER.all_best(cards) for m in a.melds}
    assert ("6H", "7H", "8H") in readings and ("7C", "7D", "7H") in readings
    assert any(
        ("6H", "JK", "8H") in {m.cards for m in a.melds}
        and ("7C", "7D", "7H") in {m.represents for m in a.melds}
        for a in SOLVER.all_best(cards)
    )


def test_an_unmelded_joker_costs_joker_value():
    assert SOLVER.deadwood(hand("JK 2C")) == 17
    assert gin_solver(jokers=True, joker_value=25).deadwood(hand("JK 2C")) == 27


def test_card_codes_are_parsed_on_the_way_in():
    assert SOLVER.deadwood(["10h", "jh", "qh", "2c"]) == 2
    assert SOLVER.best_discard(["10h", "jh", "qh", "2c"]) == (0, ("2C",))


def test_best_discard_lists_every_card_that_reaches_the_minimum():
    assert SOLVER.best_discard(hand("7H 8H 9H KC QS")) == (10, ("KC", "QS"))
    # Every card of a 4-run may go: the other three still meld.
    assert SOLVER.best_discard(hand("7H 8H 9H TH")) == (0, ("7H", "TH"))
    assert SOLVER.best_discard(hand("7H 8H 9H JK")) == (0, ("7H", "8H", "9H", "JK"))


def test_the_gin_solver_is_shared():
    assert gin_solver() is gin_solver(jokers=False, joker_value=30) is gin_solver(True, 15)
    assert gin_solver(jokers=True, joker_value=20) is gin_solver(True, 20)


# -- arrangements ------------------------------------------------------------------------


def test_touching_runs_are_shown_as_one_run():
    (only,) = SOLVER.all_best(hand("3H 4H 5H 6H 7H 8H 9C"))
    assert [m.represents for m in only.melds] == [("3H", "4H", "5H", "6H", "7H", "8H")]


def test_two_deck_runs_that_overlap_stay_apart():
    arrangements = SOLVER.all_best(hand("3H 4H 5H 4H 5H 6H"))
    assert [[m.represents for m in a.melds] for a in arrangements] == [
        [("3H", "4H", "5H"), ("4H", "5H", "6H")]
    ]


def test_every_joker_reading_is_its_own_arrangement():
    runs = SOLVER.all_best(hand("7H 8H JK"))
    assert [a.melds[0].represents for a in runs] == [("6H", "7H", "8H"), ("7H", "8H", "9H")]
    sets = SOLVER.all_best(hand("7C 7D JK"))
    assert [a.melds[0].represents for a in sets] == [("7C", "7D", "7H"), ("7C", "7D", "7S")]


def test_equal_choices_are_all_listed():
    # KH melds with JH QH or with KC KD: either way 20 is left.
    arrangements = SOLVER.all_best(hand("JH QH KH KC KD"))
    assert [a.deadwood for a in arrangements] == [20, 20]
    assert {a.unmatched for a in arrangements} == {("KC", "KD"), ("JH", "QH")}


def test_meld_options_reads_a_group_every_way():
    assert [m.represents for m in SOLVER.meld_options(hand("7H 8H JK"))] == [
        ("6H", "7H", "8H"),
        ("7H", "8H", "9H"),
    ]
    assert [m.cards for m in SOLVER.meld_options(hand("JK 9H 7H"))] == [("7H", "JK", "9H")]
    assert SOLVER.meld_options(hand("7H 8H")) == ()
    assert SOLVER.meld_options(hand("QH KH AH")) == ()
    assert SOLVER.meld_options(hand("7H 8H JK JK")) == ()
    assert len(SOLVER.meld_options(hand("AH 2H JK"))) == 1  # nothing below the ace
    assert SOLVER.meld_options(hand("7C 7D 7H 7S"))[0].kind == "set"


def test_meld_to_dict():
    meld = Meld("run", ("7H", "8H", "JK"), ("7H", "8H", "9H"))
    assert meld.to_dict() == {
        "kind": "run",
        "cards": ["7H", "8H", "JK"],
        "represents": ["7H", "8H", "9H"],
    }
    assert Meld("stash", ("AC",), ("AC",), "Gold").to_dict()["tag"] == "Gold"


def test_arrangement_of_checks_a_submitted_arrangement():
    cards = hand("7H 8H JK 2C 2D 2S 9C")
    readings = SOLVER.arrangement_of(cards, [["7H", "8H", "JK"], ["2C", "2D", "2S"]])
    assert len(readings) == 2
    assert all(r.deadwood == 9 and r.unmatched == ("9C",) for r in readings)
    assert SOLVER.arrangement_of(cards, [["7H", "8H", "9H"]]) == ()  # 9H not held
    assert SOLVER.arrangement_of(cards, [["2C", "2D", "2S"], ["2S", "7H", "8H"]]) == ()
    assert SOLVER.arrangement_of(cards, [["2C", "2D", "9C"]]) == ()
    assert SOLVER.arrangement_of(cards, []) == (
        Arrangement(15 + 8 + 7 + 2 + 2 + 2 + 9, (), ("2C", "9C", "2D", "7H", "8H", "2S", "JK")),
    )


def test_extra_templates_are_melds_too():
    solver = MeldSolver(extra_templates=[("stash", ("AC", "5D", "9H", "KS"), "Gold")])
    cards = hand("KS 9H 5D AC 2C")
    assert solver.deadwood(cards) == 2
    best = solver.best(cards)
    assert best.melds == (
        Meld("stash", ("AC", "5D", "9H", "KS"), ("AC", "5D", "9H", "KS"), "Gold"),
    )
    assert solver.meld_options(["9H", "KS", "AC", "5D"])[0].tag == "Gold"
    assert solver.best_discard(hand("KS 9H 5D AC 2C")) == (0, ("2C",))
    # The template competes with ordinary melds for its cards.
    assert solver.deadwood(hand("KS 9H 5D AC 2C 3C")) == 5  # the stash beats AC-2C-3C
    assert solver.deadwood(hand("KS 9H 5D AC 3C")) == 3


def test_pool_templates_give_every_group_of_a_stash():
    gold = ("AC", "4D", "5H", "8S", "TC", "JD", "KS")
    templates = pool_templates("stash", gold, "Gold", 4)
    assert len(templates) == 35 + 21 + 7 + 1
    solver = MeldSolver(extra_templates=templates)
    (best,) = solver.all_best(hand("AC 5H TC KS 9C"))
    assert best.melds == (
        Meld("stash", ("AC", "5H", "TC", "KS"), ("AC", "5H", "TC", "KS"), "Gold"),
    )
    assert solver.deadwood(hand("AC 5H TC KS 4D 8S JD 2C")) == 2
    assert solver.deadwood(hand("AC 5H TC 2C")) == 18


def test_two_card_templates_work_like_queens_diamonds():
    solver = MeldSolver(
        extra_templates=[("queens_diamonds", (q, "7D"), None) for q in ("QC", "QH")]
    )
    assert solver.deadwood(hand("QC 7D 2S")) == 2
    assert solver.deadwood(hand("QC QH 7D")) == 10


# -- properties against the brute force ---------------------------------------------------


@PROPERTY
@given(one_deck_hands)
def test_deadwood_and_best_discard_match_brute_force(cards):
    assert SOLVER.deadwood(cards) == brute_deadwood(cards)
    if len(cards) == 11:
        assert SOLVER.best_discard(cards) == brute_discard(cards)


@PROPERTY
@given(joker_hands)
def test_hands_with_jokers_match_brute_force(cards):
    assert SOLVER.deadwood(cards) == brute_deadwood(cards)
    assert SOLVER.best_discard(cards) == brute_discard(cards)


@PROPERTY
@given(two_deck_hands)
def test_two_deck_hands_match_brute_force(cards):
    assert SOLVER.deadwood(cards) == brute_deadwood(cards)
    assert SOLVER.best_discard(cards) == brute_discard(cards)


@PROPERTY
@given(st.one_of(one_deck_hands, joker_hands, two_deck_hands))
def test_best_arrangements_are_valid_and_cover_the_hand(cards):
    arrangements = SOLVER.all_best(cards)
    assert arrangements[0] == SOLVER.best(cards)
    assert len(set(arrangements)) == len(arrangements)
    for arrangement in arrangements:
        check_arrangement(SOLVER, cards, arrangement)
        runs = {}
        for meld in arrangement.melds:
            if meld.kind == "run":
                runs.setdefault(meld.represents[0][1], []).append(meld.represents)
        for suit_runs in runs.values():
            ends = {RANKS.index(r[-1][0]) for r in suit_runs}
            assert not any(RANKS.index(r[0][0]) - 1 in ends for r in suit_runs), arrangement


def all_readings(cards: tuple[str, ...]) -> set[tuple[str, ...]]:
    """Every list of represented cards for a meld group (the brute force's own reading)."""
    naturals = [c for c in cards if c != JOKER]
    size = len(cards)
    out = set()
    if len({c[0] for c in naturals}) == 1:
        for suits in combinations(SUITS, size):
            reps = tuple(naturals[0][0] + s for s in suits)
            if set(naturals) <= set(reps):
                out.add(reps)
    if len({c[1] for c in naturals}) == 1:
        for low in range(14 - size):
            reps = tuple(RANKS[r] + naturals[0][1] for r in range(low, low + size))
            if set(naturals) <= set(reps):
                out.add(reps)
    return out


def is_run_reading(reps: tuple[str, ...]) -> bool:
    return len({r[1] for r in reps}) == 1


def brute_all_best(cards: list[str]) -> set:
    """Every canonical best arrangement as (sorted represents of each meld, unmatched)."""
    melds = brute_melds(cards)
    target = brute_deadwood(cards)
    found = set()

    def record(chosen: list[int], dead: list[str]) -> None:
        combos: list[list[tuple[tuple[str, ...], tuple[str, ...]]]] = [[]]
        for meld in chosen:
            group = tuple(cards[p] for p in range(len(cards)) if meld >> p & 1)
            natural = set(group) - {JOKER}
            readings = [
                (r, tuple(c if c in natural else JOKER for c in r)) for r in all_readings(group)
            ]
            combos = [c + [r] for c in combos for r in readings]
        for combo in combos:
            runs = [r for r, _ in combo if is_run_reading(r)]
            ends = {(r[0][1], rank_of(r[-1])) for r in runs}
            if not any((r[0][1], rank_of(r[0]) - 1) in ends for r in runs):
                found.add((tuple(sorted(combo)), tuple(sorted(dead))))

    def walk(left: int, chosen: list[int], dead: list[str]) -> None:
        if sum(map(value, dead)) > target:
            return
        if not left:
            record(chosen, dead)
            return
        low = left & -left
        walk(left ^ low, chosen, [*dead, cards[low.bit_length() - 1]])
        for meld in melds:
            if meld & low and meld & left == meld:
                walk(left ^ meld, [*chosen, meld], dead)

    walk((1 << len(cards)) - 1, [], [])
    return found


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        hands_from(DENSE, 8),
        hands_from(DENSE, 8, 1),
        hands_from([r + s for r in "456789" for s in "HS"], 8, 1),
    )
)
def test_all_best_lists_every_canonical_arrangement(cards):
    expected = brute_all_best(cards)
    got = [
        (tuple(sorted((m.represents, m.cards) for m in a.melds)), tuple(sorted(a.unmatched)))
        for a in SOLVER.all_best(cards)
    ]
    assert len(set(got)) == len(got)
    assert set(got) == expected


# A made-up gem: five cards, any four or more of which meld (like a stash), and two
# two-card melds sharing a card (like Queen's Diamonds).
POOL = ("AC", "4D", "5H", "8S", "9C")
TEMPLATES = tuple(combo for size in (4, 5) for combo in combinations(POOL, size)) + (
    ("QC", "7D"),
    ("QH", "7D"),
    ("2C", "2D", "3H", "9S"),
)
RICH = [*POOL, "QC", "QH", "7D", "2C", "2D", "3H", "9S", "2H", "3C", "4C", "5C", "6D", "6H"]


@settings(max_examples=60, deadline=None)
@given(st.one_of(hands_from(DENSE, 9), hands_from(RICH, 10), hands_from(RICH, 11)))
def test_extra_templates_match_brute_force(cards):
    solver = MeldSolver(extra_templates=[("made_up", t, "x") for t in TEMPLATES])
    assert solver.deadwood(cards) == brute_deadwood(cards, TEMPLATES)
    assert solver.best_discard(cards) == brute_discard(cards, TEMPLATES)
    for arrangement in solver.all_best(cards):
        used = Counter(arrangement.unmatched)
        for meld in arrangement.melds:
            assert meld.kind in ("set", "run", "made_up")
            assert meld.kind == "made_up" or reads_correctly(meld)
            used.update(meld.cards)
        assert used == Counter(cards)
        assert arrangement.deadwood == brute_deadwood(cards, TEMPLATES)
