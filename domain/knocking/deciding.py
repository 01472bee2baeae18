"""The ``decide`` gin and gem share: one decider per command, each family giving only what
differs (``KnockingRules``): its solver, how a card is drawn, which discards are allowed,
how a hand is scored and a match settled, and how a deal is checked and recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.errors import RuleError
from domain.events import HAND_SCORED, MATCH_COMPLETED, Event
from domain.evolving import decider
from domain.fairness import Deal
from domain.knocking.commands import DeclareBigGin, Discard, Draw, Knock, PassUpcard
from domain.knocking.turns import (
    COMPLETING,
    DEALING,
    SCORING,
    Chooser,
    best_for_knocker,
    big_gin,
    discard,
    knock,
    pass_upcard,
    without_other_hands,
)
from domain.melds import MeldSolver
from domain.steps import CompleteMatch, DealHand, ScoreHand


@dataclass(frozen=True)
class KnockingRules:
    """What a knocking family gives the shared deciders."""

    game: str
    solver: Callable[[Any], MeldSolver]
    """The meld solver of the state's hand (gem's depends on the hand's diamond)."""
    draw: Callable[[Any, Draw], list[Event]]
    check_discard: Callable[[Any, int, str], tuple[str, ...]]
    """The hand left after ``seat`` discards ``card``, if the rules allow that discard."""
    score_hand: Callable[[Any, MeldSolver], dict[str, Any]]
    """The ``HandScored`` payload of the hand that has just ended."""
    check_deck: Callable[[Any, Sequence[str]], None]
    """Refuse (``RuleError``) a deck that is not the match's cards."""
    deal_event: Callable[[int, int, int, Deal], Event]
    """The ``HandDealt`` of (hand number, dealer, players, deal)."""
    match_result: Callable[[Any], dict[str, Any]]
    """The ``MatchCompleted`` payload once the match has reached its end."""
    not_at_end: str
    """Why there is nothing to complete yet, in the game's words."""

    def decide(self) -> Callable[[Any, object], list[Event]]:
        """The family's ``decide``: commands in, events out, or a ``RuleError``."""
        return self._decider(best_for_knocker)

    def preview(self) -> Callable[[Any, object], list[Event]]:
        """``decide`` as its sender may see it in advance (``Variant.preview``): the same
        verdict and events, but a knock's melds are picked from the knocker's own cards."""
        return self._decider(without_other_hands)

    def _decider(self, choose: Chooser) -> Callable[[Any, object], list[Event]]:
        return decider({
            PassUpcard: lambda state, command: pass_upcard(state, command.seat),
            Draw: self.draw,
            Discard: self._discard,
            Knock: lambda state, command: self._knock(state, command, choose),
            DeclareBigGin: lambda state, command: big_gin(state, command.seat,
                                                          self.solver(state), choose),
            ScoreHand: self._score_hand,
            DealHand: self._deal_hand,
            CompleteMatch: self._complete_match,
        }, self.game)

    def _discard(self, state: Any, command: Discard) -> list[Event]:
        self.check_discard(state, command.seat, command.card)
        return discard(state, command.seat, command.card)

    def _knock(self, state: Any, command: Knock, choose: Chooser) -> list[Event]:
        rest = self.check_discard(state, command.seat, command.discard)
        return knock(state, command.seat, command.discard, rest, command.melds,
                     self.solver(state), choose)

    def _score_hand(self, state: Any, command: ScoreHand) -> list[Event]:
        if state.phase != SCORING:
            raise RuleError("nothing_to_score", "no ended hand is waiting to be scored")
        return [HAND_SCORED.event(self.score_hand(state, self.solver(state)))]

    def _deal_hand(self, state: Any, command: DealHand) -> list[Event]:
        """The next hand, dealt by the seat the last score named (docs/rules.md 1.3)."""
        if state.phase != DEALING:
            raise RuleError("nothing_to_deal", "no hand is due to be dealt")
        self.check_deck(state, command.deal.deck)
        dealer = state.results[-1]["next_dealer"] if state.results else state.dealer
        return [self.deal_event(state.hand_number + 1, dealer, state.seats, command.deal)]

    def _complete_match(self, state: Any, command: CompleteMatch) -> list[Event]:
        if state.phase != COMPLETING:
            raise RuleError("match_not_finished", self.not_at_end)
        return [MATCH_COMPLETED.event(self.match_result(state))]
