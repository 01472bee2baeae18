"""Random legal-move games of 2-6 players: the rules accept everything they list, every
turn has a move, replay is deterministic, and no projection shows a hidden card."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import RuleError
from domain.evolving import replay
from domain.rummy import RAMI, RUMMY
from domain.rummy.state import DRAW, PLAY, RummyState
from domain.variant import Variant
from domain.viewer import Viewer
from tests.domain.rummy.support import new_game, steps

CARD = re.compile(r"\b(?:[A2-9TJQK][CDHS]|JK)\b")
FAMILIES = st.sampled_from([RUMMY, RAMI])
PLAYERS = st.integers(min_value=2, max_value=6)
SEEDS = st.integers(min_value=0, max_value=2**32)


def accepted(variant: Variant, state: RummyState, action: dict) -> bool:
    try:
        variant.decide(state, variant.command(state.turn, action))
    except RuleError:
        return False
    return True


@settings(max_examples=12, deadline=None)
@given(variant=FAMILIES, players=PLAYERS, seed=SEEDS)
def test_every_listed_action_is_accepted_and_replay_rebuilds_the_game(variant, players, seed):
    rng = random.Random(seed)
    state, log, match_seed = new_game(rng, players, variant, rounds=1)
    checked = 0
    for state, events in steps(rng, state, match_seed, variant):  # noqa: B007, B020
        log.extend(events)
        if state.phase not in (DRAW, PLAY):
            continue
        legal = variant.legal_actions(state, state.turn)
        assert legal, "the seat on turn always has a move"
        assert all(variant.legal_actions(state, s) == [] for s in range(players) if s != state.turn)
        if checked < 40:
            assert_moves_miss_no_lay_down(variant, state)
        if checked < 40:
            checked += 1
            assert all(accepted(variant, state, action) for action in legal), state.phase
    assert state.phase == "complete" and log[-1].type == "MatchCompleted"
    assert replay(variant, log) == state
    assert list(state.scores) == [sum(r["points"][s] for r in state.results)
                                  for s in range(players)]


def assert_moves_miss_no_lay_down(variant: Variant, state: RummyState) -> None:
    """A seat whose hand holds a meld the rules would take on its own is told it may lay
    down: ``moves`` leaves no kind out although legal_actions lists no combinations."""
    view = variant.view(state, Viewer.for_seat(state.turn))
    laid = any(accepted(variant, state, {"type": "lay_down", "melds": [candidate]})
               for candidate in view["meld_candidates"])
    assert "lay_down" in view["moves"] or not laid, view["meld_candidates"]


def visible(value) -> Counter:
    return Counter(CARD.findall(json.dumps(value)))


def public_cards(state: RummyState) -> Counter:
    shown = Counter(state.discard_pile)
    for meld in state.table:
        shown.update(meld.meld.cards)
        shown.update(meld.meld.represents)
    return shown


LIVE_KEYS = ("discard_pile", "table")


@settings(max_examples=4, deadline=None)
@given(variant=FAMILIES, players=PLAYERS, seed=SEEDS)
def test_no_projection_shows_another_seats_cards_or_the_stock(variant, players, seed):
    rng = random.Random(seed)
    start, _, match_seed = new_game(rng, players, variant, rounds=2)
    for state, events in steps(rng, start, match_seed, variant):
        if state.phase not in (DRAW, PLAY):
            continue
        public_view = variant.view(state, Viewer.public())
        assert not {"stock", "all_hands", "hand", "seed"} & set(public_view)
        assert public_view["commitment"] == state.commitment
        live = {key: public_view[key] for key in LIVE_KEYS}
        assert visible(live) <= public_cards(state)
        for seat in range(players):
            seat_view = variant.view(state, Viewer.for_seat(seat))
            assert not {"stock", "all_hands", "seed"} & set(seat_view)
            assert Counter(seat_view["hand"]) == Counter(state.hands[seat])
            for event in events:
                shown = variant.redact_event(event, Viewer.for_seat(seat))
                assert "deck" not in shown and "seed" not in shown and "stock" not in shown
                if event.type == "CardDrawn" and event.data["seat"] != seat:
                    assert ("card" in shown) == (event.data["source"] == "discard")
                if event.type == "HandDealt":
                    assert Counter(shown["hand"]) == Counter(state.hands[seat])
                    assert visible(shown) == Counter(shown["hand"]) + Counter([shown["upcard"]])
        assert "stock" in variant.view(state, Viewer.full())
