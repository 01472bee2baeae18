"""Random legal-move playouts: the rules agree with their own legal actions, replay is
deterministic, and no projection leaks a hidden card (docs/architecture.md, *Views*)."""

from __future__ import annotations

import json
import random
import re

import pytest

from domain.cards import standard_deck
from domain.errors import RuleError
from domain.evolving import replay
from domain.gin import GIN
from domain.viewer import Viewer
from tests.playouts import new_match, play_match, steps

CARD = re.compile(r"\b(?:[A2-9TJQK][CDHS]|JK)\b")
SETTINGS = [
    dict(players=2),
    dict(players=2, oklahoma=True, oklahoma_spades_double=True),
    dict(players=2, jokers=2, decks=2, next_dealer="loser"),
    dict(players=3),
    dict(players=4, next_dealer="winner"),
]


def candidate_actions(state, seat):
    """Every action shape a client could send, legal or not."""
    actions = [{"type": "pass"}, {"type": "big_gin"},
               {"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}]
    for card in standard_deck() + ("JK",):
        actions += [{"type": "discard", "card": card}, {"type": "knock", "discard": card}]
    return actions


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: json.dumps(s, sort_keys=True))
def test_decide_accepts_exactly_the_legal_actions(settings):
    rng = random.Random(7)
    options = {k: v for k, v in settings.items() if k != "players"}
    start, _, seed = new_match(rng, settings["players"], target=60, **options)
    checked = 0
    for state, _ in steps(rng, start, seed):
        if state.turn is None or checked > 60:
            continue
        checked += 1
        legal = GIN.legal_actions(state, state.turn)
        for action in candidate_actions(state, state.turn):
            command = GIN.command(state.turn, action)
            try:
                GIN.decide(state, command)
                accepted = True
            except RuleError:
                accepted = False
            assert accepted == (action in legal), (action, state.phase)
        for other in range(state.seats):
            if other != state.turn:
                assert GIN.legal_actions(state, other) == []
    assert checked > 20


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: json.dumps(s, sort_keys=True))
def test_whole_matches_end_with_bonuses_and_replay_to_the_same_state(settings):
    rng = random.Random(11)
    options = {k: v for k, v in settings.items() if k != "players"}
    final, log = play_match(rng, settings["players"], target=40, **options)
    assert final.phase == "complete"
    assert log[-1].type == "MatchCompleted"
    assert replay(GIN, log) == final
    totals = [sum(h["points"][s] for h in final.results) for s in range(final.seats)]
    assert list(final.scores) == totals


def visible_cards(value) -> set[str]:
    return set(CARD.findall(json.dumps(value)))


def _public_knowledge(state) -> set[str]:
    """Cards every seat has seen: the discard pile and whatever a showdown revealed."""
    public = set(state.discard_pile)
    if state.ending:
        public |= visible_cards(state.ending)
    return public


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_projection_shows_another_seats_hidden_cards(players):
    rng = random.Random(players)
    for _ in range(4):
        start, _, seed = new_match(rng, players, target=30)
        for state, events in steps(rng, start, seed):
            if state.phase in ("dealing", "complete", "completing"):
                continue
            public = _public_knowledge(state)
            for seat in range(players):
                allowed = set(state.hands[seat]) | public
                seat_view = GIN.view(state, Viewer.for_seat(seat))
                live = {k: v for k, v in seat_view.items() if k != "hands"}
                assert visible_cards(live) <= allowed
                assert "stock" not in seat_view and "all_hands" not in seat_view
                for event in events:
                    shown = GIN.redact_event(event, Viewer.for_seat(seat))
                    assert "deck" not in shown
                    if event.type == "HandDealt":
                        assert visible_cards(shown) <= set(state.hands[seat]) | public
                    if event.type == "CardDrawn" and event.data["seat"] != seat:
                        if event.data["source"] == "stock":
                            assert "card" not in shown
            public_view = {k: v for k, v in GIN.view(state, Viewer.public()).items()
                           if k != "hands"}
            assert visible_cards(public_view) <= public
            assert "stock" in GIN.view(state, Viewer.full())
