"""Gem melds in the shared solver (docs/rules.md 2.3): sets, runs, stashes (kings through either
gem, in one meld only) and Queen's Diamonds; checked against brute force."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import RANKS, SUITS, pip_value, sort_cards, standard_deck
from domain.gem.gems import GEMS, designated_diamond, gem_pool, gems_of
from domain.gem.solver import gem_solver

SOLVER = gem_solver("7D")  # dice summing 7


def kinds(hand: str, diamond: str = "7D") -> list[tuple[str, tuple[str, ...], str | None]]:
    best = gem_solver(diamond).best(hand.split())
    return [(m.kind, m.cards, m.tag) for m in best.melds]


class TestStash:
    def test_four_cards_sharing_a_gem_are_a_stash(self):
        # AC 4D 5H 8S are all gold: no set, no run, still a meld
        assert SOLVER.deadwood("AC 4D 5H 8S".split()) == 0
        assert kinds("AC 4D 5H 8S") == [("stash", ("AC", "4D", "5H", "8S"), "gold")]

    def test_three_cards_sharing_a_gem_are_not(self):
        assert SOLVER.deadwood("AC 4D 5H".split()) == 10

    def test_a_stash_may_hold_all_seven_cards_of_its_gem(self):
        assert SOLVER.deadwood(gem_pool("ruby")) == 0

    def test_a_king_joins_a_stash_through_either_gem(self):
        # KC is emerald and ruby
        assert SOLVER.deadwood("AD 4H 5S KC".split()) == 0  # emerald
        assert SOLVER.deadwood("2D 9D 3H KC".split()) == 0  # ruby

    def test_a_king_is_in_one_meld_only(self):
        # KC would complete both the emerald and the ruby stash; only one can have it
        hand = "AD 4H 5S KC 2D 9D 3H".split()
        assert SOLVER.deadwood(hand) == 10  # KC goes ruby; AD 4H 5S (10) beat 2D 9D 3H (14)
        assert kinds(" ".join(hand)) == [("stash", ("KC", "2D", "9D", "3H"), "ruby")]
        assert SOLVER.deadwood(hand + ["QH"]) == 0  # QH (ruby) lets both stashes stand

    def test_a_stash_competes_with_sets_and_runs_exactly(self):
        # 5H is gold and in the 5s: the stash AC 4D 5H 8S or the set 5C 5D 5H
        hand = "AC 4D 5H 8S 5C 5D".split()
        assert SOLVER.deadwood(hand) == 10  # stash melds 18, leaving 5C 5D
        assert kinds(" ".join(hand))[0][0] == "stash"


class TestQueensDiamonds:
    def test_any_queen_with_the_designated_diamond(self):
        for queen in ("QC", "QD", "QH", "QS"):
            assert SOLVER.deadwood([queen, "7D"]) == 0
        assert kinds("QS 7D") == [("queens_diamonds", ("QS", "7D"), None)]

    def test_another_diamond_is_no_meld(self):
        assert SOLVER.deadwood("QS 8D".split()) == 18
        assert gem_solver("8D").deadwood("QS 8D".split()) == 0

    def test_dice_of_11_or_12_designate_the_jack(self):
        assert gem_solver(designated_diamond((6, 6))).deadwood("QC JD".split()) == 0

    def test_exactly_two_cards(self):
        assert SOLVER.deadwood("QC QH 7D".split()) == 10


class TestSetsAndRunsAsInGin:
    def test_set_and_run(self):
        assert SOLVER.deadwood("4C 4D 4S 8H 9H TH".split()) == 0

    def test_ace_is_low_only(self):
        assert SOLVER.deadwood("QH KH AH".split()) == 21


class TestMeldedCards:
    def test_one_meld_holding_the_card_is_enough(self):
        hand = "AC 4D 5H 8S 5C 5D 9S".split()
        assert set(SOLVER.melded_cards(hand)) == {"AC", "4D", "5H", "8S", "5C", "5D"}


# --- against brute force --------------------------------------------------------------


def all_melds(hand: tuple[str, ...], diamond: str) -> list[frozenset[str]]:
    """Every meld of the rules inside ``hand``, written out from docs/rules.md 2.3 directly."""
    held = set(hand)
    out: list[frozenset[str]] = []
    for rank in RANKS:
        same = [rank + s for s in SUITS if rank + s in held]
        out += [frozenset(c) for n in (3, 4) for c in combinations(same, n)]
    for suit in SUITS:
        for low in range(13):
            for high in range(low + 2, 13):
                run = [RANKS[r] + suit for r in range(low, high + 1)]
                if all(card in held for card in run):
                    out.append(frozenset(run))
    for gem in GEMS:
        cards = [card for card in held if gem in gems_of(card)]
        out += [frozenset(c) for n in range(4, len(cards) + 1) for c in combinations(cards, n)]
    if diamond in held:
        out += [frozenset((q, diamond)) for q in ("QC", "QD", "QH", "QS") if q in held]
    return out


def brute_deadwood(hand: tuple[str, ...], diamond: str) -> int:
    melds = all_melds(hand, diamond)
    best = sum(map(pip_value, hand))

    def walk(start: int, used: frozenset[str]) -> None:
        nonlocal best
        best = min(best, sum(pip_value(c) for c in hand if c not in used))
        for i in range(start, len(melds)):
            if not melds[i] & used:
                walk(i + 1, used | melds[i])

    walk(0, frozenset())
    return best


DECK = standard_deck()
DIAMONDS = sorted({designated_diamond((a, b)) for a in range(1, 7) for b in range(1, 7)})


@st.composite
def gem_hands(draw: st.DrawFn, sizes: tuple[int, ...] = (11, 12)) -> tuple[str, ...]:
    """Hands rich in gem melds: mostly drawn from the pools of two or three gems."""
    size = draw(st.sampled_from(sizes))
    gems = draw(st.lists(st.sampled_from(GEMS), min_size=1, max_size=3, unique=True))
    rich = sorted({card for gem in gems for card in gem_pool(gem)}, key=DECK.index)
    core = draw(st.lists(st.sampled_from(rich), max_size=size, unique=True))
    rest = [card for card in DECK if card not in core]
    extra = draw(st.lists(st.sampled_from(rest), min_size=size - len(core),
                          max_size=size - len(core), unique=True))
    return tuple(core + extra)


@settings(max_examples=300, deadline=None)
@given(gem_hands(), st.sampled_from(DIAMONDS))
def test_deadwood_matches_brute_force(hand, diamond):
    assert gem_solver(diamond).deadwood(hand) == brute_deadwood(hand, diamond)


@settings(max_examples=150, deadline=None)
@given(gem_hands((12,)), st.sampled_from(DIAMONDS))
def test_best_discard_matches_brute_force(hand, diamond):
    after = {card: brute_deadwood(tuple(c for c in hand if c != card), diamond) for card in hand}
    least = min(after.values())
    assert gem_solver(diamond).best_discard(hand) == (
        least, sort_cards(card for card, value in after.items() if value == least))


@settings(max_examples=150, deadline=None)
@given(gem_hands(), st.sampled_from(DIAMONDS))
def test_every_best_arrangement_is_made_of_real_melds(hand, diamond):
    solver = gem_solver(diamond)
    melds = set(all_melds(hand, diamond))
    for arrangement in solver.all_best(hand):
        assert arrangement.deadwood == brute_deadwood(hand, diamond)
        assert all(frozenset(m.cards) in melds for m in arrangement.melds)
        shown = [card for m in arrangement.melds for card in m.cards]
        assert len(shown) == len(set(shown))


@settings(max_examples=200, deadline=None)
@given(gem_hands(), st.sampled_from(DIAMONDS))
def test_melded_cards_are_the_union_of_the_hands_melds(hand, diamond):
    expected = set().union(*all_melds(hand, diamond))
    assert set(gem_solver(diamond).melded_cards(hand)) == expected
