"""Random legal-move playouts of gem matches (2 and 3 players): ``decide`` accepts exactly
the legal actions, replay rebuilds the state, and no projection leaks a hidden card."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import standard_deck
from domain.errors import RuleError
from domain.evolving import replay
from domain.gem import GEM
from domain.gem.state import GemState
from domain.viewer import Viewer
from tests.domain.gem.builders import new_match, steps

CARDS = frozenset(standard_deck())
PLAYING = ("upcard", "draw", "discard")


def candidate_actions(state: GemState) -> list[dict[str, Any]]:
    """Every action shape a client could send, legal or not."""
    actions: list[dict[str, Any]] = [{"type": "pass"}, {"type": "big_gin"},
                                     {"type": "draw", "source": "stock"},
                                     {"type": "draw", "source": "discard"}]
    actions += [{"type": "draw", "source": "discard", "depth": depth}
                for depth in range(2, len(state.discard_pile) + 2)]
    for card in standard_deck():
        actions += [{"type": "discard", "card": card}, {"type": "knock", "discard": card}]
    return actions


def accepted(state: GemState, seat: int, action: dict[str, Any]) -> bool:
    try:
        GEM.decide(state, GEM.command(seat, action))
    except RuleError:
        return False
    return True


def cards_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*map(cards_in, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(cards_in, value)) if value else set()
    return {value} if isinstance(value, str) and value in CARDS else set()


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([2, 3]))
def test_decide_accepts_exactly_the_legal_actions(seed, players):
    rng = random.Random(seed)
    state, _, match_seed = new_match(rng, players)
    checked = 0
    for state, _ in steps(rng, state, match_seed):  # noqa: B007, B020 - checks every state
        if state.phase not in PLAYING or checked >= 120:
            continue
        checked += 1
        seat = state.turn
        legal = GEM.legal_actions(state, seat)
        assert legal, "a seat on turn always has something to do"
        offered = [a for a in candidate_actions(state) if accepted(state, seat, a)]
        assert offered == sorted(legal, key=candidate_actions(state).index)
        for other in range(players):
            if other != seat:
                assert GEM.legal_actions(state, other) == []


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([2, 3]))
def test_replay_rebuilds_the_same_state_at_every_step(seed, players):
    rng = random.Random(seed)
    state, log, match_seed = new_match(rng, players)
    for state, events in steps(rng, state, match_seed):  # noqa: B007, B020
        log.extend(events)
        if rng.random() < 0.03:  # replaying is quadratic in the steps: a sample of them
            assert replay(GEM, log) == state
    assert replay(GEM, log) == state


@pytest.mark.parametrize("players", [2, 3])
def test_no_view_or_event_shows_a_card_its_viewer_may_not_see(players):
    rng = random.Random(players)
    state, log, match_seed = new_match(rng, players)
    for state, events in steps(rng, state, match_seed):  # noqa: B007, B020
        log.extend(events)
        if state.phase not in PLAYING:
            continue
        for viewer in [Viewer.public(), *map(Viewer.for_seat, range(players))]:
            mine = set(state.hands[viewer.seat]) if viewer.seat is not None else set()
            view = GEM.view(state, viewer)
            assert not {"all_hands", "stock"} & set(view)
            # the designated diamond names a card; the deep card was public in the pile
            shown = cards_in({k: v for k, v in view.items()
                              if k not in ("hands", "diamond", "must_meld")})
            shown |= set(view["gems"])
            assert shown <= mine | set(state.discard_pile), (viewer, shown - mine)
            for event in events:
                data = GEM.redact_event(event, viewer)
                assert "deck" not in data and "seed" not in data
                if event.type == "CardDrawn" and event.data["source"] == "stock":
                    assert ("card" in data) == (viewer.seat == event.data["seat"])
        full = GEM.view(state, Viewer.full())
        assert sorted(full["stock"] + full["discard_pile"] + sum(full["all_hands"], [])) == \
            sorted(CARDS)
