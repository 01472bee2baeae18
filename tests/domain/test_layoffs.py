"""Defender lay-offs (docs/rules.md 1.6 and 2.5): what fits where, and the exact best outcome."""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.cards import JOKER, RANKS, SUITS, build_deck, rank_of
from domain.layoffs import (
    EXTENDERS,
    LayoffResult,
    best_layoffs,
    extensions,
    register_extension,
    stash_extender,
)
from domain.melds import Meld, gin_solver

SOLVER = gin_solver(jokers=True)


def meld(kind: str, text: str, represents: str | None = None, tag: str | None = None) -> Meld:
    cards = tuple(text.split())
    return Meld(kind, cards, tuple((represents or text).split()), tag)


def cards(text: str) -> list[str]:
    return text.split()


# -- extensions --------------------------------------------------------------------------


def test_a_three_card_set_takes_its_missing_suit_only():
    three = meld("set", "7C 7D 7H")
    assert extensions(three, "7S") == (meld("set", "7C 7D 7H 7S"),)
    assert extensions(three, "7H") == ()
    assert extensions(three, "8S") == ()
    assert extensions(meld("set", "7C 7D 7H 7S"), "JK") == ()


def test_a_joker_in_a_set_keeps_the_suit_it_stands_for():
    with_joker = meld("set", "7C JK 7H", "7C 7D 7H")
    assert extensions(with_joker, "7S") == (meld("set", "7C JK 7H 7S", "7C 7D 7H 7S"),)
    assert extensions(with_joker, "7D") == ()
    assert extensions(with_joker, "JK") == ()  # two natural cards cannot carry two jokers
    assert extensions(meld("set", "7C 7D 7H"), "JK") == (meld("set", "7C 7D 7H JK", "7C 7D 7H 7S"),)


def test_a_run_grows_at_either_end():
    run = meld("run", "7H 8H 9H")
    assert extensions(run, "6H") == (meld("run", "6H 7H 8H 9H"),)
    assert extensions(run, "TH") == (meld("run", "7H 8H 9H TH"),)
    assert extensions(run, "5H") == ()
    assert extensions(run, "6S") == ()
    assert extensions(run, "JK") == (
        meld("run", "JK 7H 8H 9H", "6H 7H 8H 9H"),
        meld("run", "7H 8H 9H JK", "7H 8H 9H TH"),
    )


def test_the_ace_is_low_only_when_laying_off():
    assert extensions(meld("run", "AH 2H 3H"), "KH") == ()
    assert extensions(meld("run", "JH QH KH"), "AH") == ()
    assert extensions(meld("run", "AH 2H 3H"), "JK") == (meld("run", "AH 2H 3H JK", "AH 2H 3H 4H"),)
    assert extensions(meld("run", "JH QH KH"), "JK") == (meld("run", "JK JH QH KH", "TH JH QH KH"),)


def test_a_joker_is_laid_off_only_while_natural_cards_outnumber_jokers():
    thin = meld("run", "7H JK 9H", "7H 8H 9H")
    assert extensions(thin, "JK") == ()
    assert extensions(thin, "6H") == (meld("run", "6H 7H JK 9H", "6H 7H 8H 9H"),)
    assert len(extensions(meld("run", "6H 7H JK 9H", "6H 7H 8H 9H"), "JK")) == 2


def test_queens_diamonds_never_grows_and_unknown_kinds_are_refused():
    assert extensions(meld("queens_diamonds", "QS 7D"), "QH") == ()
    with pytest.raises(ValueError):
        extensions(meld("mystery", "2C 3C 4C"), "5C")


def test_gem_stashes_take_a_card_with_their_gem():
    gems = {"AC": ("Gold",), "4D": ("Gold",), "5H": ("Gold",), "8S": ("Gold",), "TC": ("Gold",)}
    gems["KS"] = ("Amethyst", "Gold")
    rules = {**EXTENDERS, "stash": stash_extender(lambda card: gems.get(card, ("Ruby",)))}
    stash = meld("stash", "AC 4D 5H 8S", tag="Gold")
    assert extensions(stash, "KS", rules) == (meld("stash", "AC 4D 5H 8S KS", tag="Gold"),)
    assert extensions(stash, "2C", rules) == ()
    assert extensions(stash, "JK", rules) == ()
    assert extensions(stash, "AC", rules) == ()


def test_register_extension_installs_a_kind():
    saved = dict(EXTENDERS)
    try:
        register_extension("stash", stash_extender(lambda card: ("Gold",)))
        assert extensions(meld("stash", "AC 4D 5H 8S", tag="Gold"), "2C") != ()
    finally:
        EXTENDERS.clear()
        EXTENDERS.update(saved)


# -- best_layoffs ------------------------------------------------------------------------


def test_chained_lay_offs_go_inner_card_first():
    result = best_layoffs(SOLVER, cards("5H 6H KC QD"), [meld("run", "7H 8H 9H")])
    assert result.layoffs == (("6H", 0), ("5H", 0))
    assert result.table == (meld("run", "5H 6H 7H 8H 9H"),)
    assert result.deadwood == 20 and result.unmatched == ("KC", "QD")


def test_greedy_is_wrong_when_a_card_fits_two_melds():
    # 6H fits the set of sixes too, but only on the run does it let 5H follow.
    table = [meld("set", "6C 6D 6S"), meld("run", "7H 8H 9H")]
    result = best_layoffs(SOLVER, cards("6H 5H KC 2D"), table)
    assert result.layoffs == (("6H", 1), ("5H", 1))
    assert result.deadwood == 12


def test_the_defender_breaks_up_an_own_meld_when_it_pays():
    hand = cards("6C 6D 6H 5H 5C KS")
    assert SOLVER.deadwood(hand) == 20  # keeping the set of sixes
    table = [meld("run", f"7{s} 8{s} 9{s}") for s in "HCD"]
    result = best_layoffs(SOLVER, hand, table)
    assert result.deadwood == 10
    assert sorted(card for card, _ in result.layoffs) == ["5C", "5H", "6C", "6D", "6H"]
    assert result.melds == () and result.unmatched == ("KS",)


def test_a_defender_keeps_an_own_meld_when_laying_it_off_gains_nothing():
    result = best_layoffs(SOLVER, cards("4H 5H 6H KC"), [meld("run", "7H 8H 9H")])
    assert result.deadwood == 10 and result.layoffs == ()
    assert result.melds == (meld("run", "4H 5H 6H"),)


def test_a_joker_can_be_laid_off_and_carry_a_chain():
    result = best_layoffs(SOLVER, cards("JK 5H KC"), [meld("run", "7H 8H 9H")])
    assert result.layoffs == (("JK", 0), ("5H", 0))
    assert result.table == (meld("run", "5H JK 7H 8H 9H", "5H 6H 7H 8H 9H"),)
    assert result.deadwood == 10
    onto_set = best_layoffs(SOLVER, cards("JK 2C"), [meld("set", "7C 7D 7H")])
    assert onto_set.layoffs == (("JK", 0),) and onto_set.deadwood == 2


def test_without_a_fitting_card_the_result_is_the_defenders_best_arrangement():
    hand = cards("2C 3C 4C 9D KS")
    result = best_layoffs(SOLVER, hand, [meld("set", "7C 7D 7H")])
    best = SOLVER.best(hand)
    assert result == LayoffResult(
        best.deadwood, best.melds, (), (meld("set", "7C 7D 7H"),), best.unmatched
    )


def test_stash_lay_offs_through_a_registry():
    rules = {
        **EXTENDERS,
        "stash": stash_extender(lambda card: ("Gold",) if card in {"2C", "3D"} else ()),
    }
    table = [meld("stash", "AC 4D 5H 8S", tag="Gold"), meld("queens_diamonds", "QS 7D")]
    result = best_layoffs(SOLVER, cards("2C 3D QH"), table, rules)
    assert result.deadwood == 10 and len(result.layoffs) == 2


# -- the property: exact against a brute force ---------------------------------------------


def placements(table_meld: tuple[str, tuple[str, ...], tuple[str, ...]], card: str) -> list:
    """Where ``card`` may go on one meld (kind, cards, represents), written from the rules."""
    kind, physical, reps = table_meld
    naturals = sum(c != JOKER for c in physical) + (card != JOKER)
    jokers = len(physical) + 1 - naturals
    if naturals <= jokers:
        return []
    if kind == "set":
        spots = [reps[0][0] + s for s in SUITS if reps[0][0] + s not in reps]
        spots = spots if len(reps) < 4 else []
    else:
        low, high = rank_of(reps[0]), rank_of(reps[-1])
        spots = [RANKS[r] + reps[0][1] for r in (low - 1, high + 1) if 0 <= r < 13]
    out = []
    for spot in spots:
        if card in (JOKER, spot):
            if kind == "set" or rank_of(spot) > rank_of(reps[0]):
                out.append((kind, (*physical, card), (*reps, spot)))
            else:
                out.append((kind, (card, *physical), (spot, *reps)))
    return out


def brute_best(hand: list[str], table: list[Meld]) -> int:
    """Min over every group of cards that can be laid off, in some order, of the rest's
    deadwood."""
    start = tuple((m.kind, m.cards, m.represents) for m in table)

    @cache
    def reachable(group: tuple[str, ...], melds: tuple) -> bool:
        if not group:
            return True
        for position, card in enumerate(group):
            rest = group[:position] + group[position + 1 :]
            for index, one in enumerate(melds):
                for grown in placements(one, card):
                    if reachable(rest, (*melds[:index], grown, *melds[index + 1 :])):
                        return True
        return False

    best = SOLVER.deadwood(hand)
    for size in range(1, len(hand) + 1):
        for group in set(combinations(sorted(hand), size)):
            if reachable(group, start):
                left = list((Counter(hand) - Counter(group)).elements())
                best = min(best, SOLVER.deadwood(left))
    return best


@st.composite
def layoff_cases(draw):
    table: list[Meld] = []
    taken: set[str] = set()
    for kind in draw(st.lists(st.sampled_from(["run", "set"]), min_size=1, max_size=2)):
        if kind == "run":
            suit = draw(st.sampled_from(SUITS))
            length = draw(st.integers(3, 5))
            start = draw(st.integers(0, 13 - length))
            reps = [RANKS[r] + suit for r in range(start, start + length)]
        else:
            rank = draw(st.sampled_from(RANKS))
            reps = [rank + s for s in draw(st.sampled_from(list(combinations(SUITS, 3))))]
        if taken & set(reps):
            continue
        taken |= set(reps)
        physical = list(reps)
        if draw(st.booleans()):
            physical[draw(st.integers(0, len(reps) - 1))] = JOKER
        table.append(Meld(kind, tuple(physical), tuple(reps)))
    near = [
        c
        for c in build_deck()
        if c not in taken
        and any(
            c[1] == m.represents[0][1] if m.kind == "run" else c[0] == m.represents[0][0]
            for m in table
        )
    ]
    others = [c for c in build_deck() if c not in taken and c not in near]
    jokers = draw(st.integers(0, 1))
    size = draw(st.integers(min(3, len(near)), min(6, len(near))))
    hand = draw(st.permutations(near))[:size] + draw(st.permutations(others))[: 7 - size - jokers]
    return hand + [JOKER] * jokers, table


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layoff_cases())
def test_best_layoffs_is_exact_and_consistent(case):
    hand, table = case
    result = best_layoffs(SOLVER, hand, table)
    assert result.deadwood == brute_best(hand, table)
    laid = [card for card, _ in result.layoffs]
    assert Counter(laid) + Counter(result.unmatched) + Counter(
        c for m in result.melds for c in m.cards
    ) == Counter(hand)
    assert result.deadwood == SOLVER.deadwood(list((Counter(hand) - Counter(laid)).elements()))
    tables = {tuple(table)}
    for card, index in result.layoffs:  # the order given is a legal laying order
        tables = {
            (*t[:index], grown, *t[index + 1 :])
            for t in tables
            for grown in extensions(t[index], card)
        }
    assert result.table in tables
    assert best_layoffs(SOLVER, hand, table) == result
