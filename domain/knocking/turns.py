"""The turn rules gin and gem share: whose turn, passing the upcard, the discard that may
end the hand, knocking, big gin, and which melds the knocker shows (docs/rules.md 1.3-1.5,
2.4).

Each family passes its own state (anything with the fields of ``KnockTable``) and its own
meld solver; the family keeps what differs (how a card is drawn, which discard is blocked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from domain.errors import RuleError
from domain.events import CARD_DISCARDED, HAND_ENDED, Event
from domain.knocking.events import HAND_KNOCKED, UPCARD_PASSED
from domain.layoffs import best_layoffs
from domain.melds import Arrangement, MeldSolver

# Phases of gin and gem, named alike so that clients read both the same way
# (docs/rules.md 1.3-1.6, 1.10, 2.2-2.6)
UPCARD = "upcard"          # the first upcard is being offered (two-player gem, all gin)
DRAW = "draw"              # the seat on turn draws
DISCARD = "discard"        # the seat on turn discards, knocks or declares big gin
SCORING = "scoring"        # the hand has ended; the scoring step has not yet recorded it
DEALING = "dealing"        # scored; the next deal is due (appended with the score)
COMPLETING = "completing"  # the match has reached its end; the bonuses step has not yet run
COMPLETE = "complete"


class KnockTable(Protocol):
    @property
    def phase(self) -> str: ...
    @property
    def turn(self) -> int | None: ...
    @property
    def seats(self) -> int: ...
    @property
    def hands(self) -> tuple[tuple[str, ...], ...]: ...
    @property
    def stock(self) -> tuple[str, ...]: ...
    @property
    def turns(self) -> int: ...
    @property
    def knock_limit(self) -> int: ...
    @property
    def options(self) -> Any: ...


def require_turn(state: KnockTable, seat: int, phases: tuple[str, ...]) -> None:
    if state.phase not in phases:
        raise RuleError("wrong_phase", f"not possible while the match is in phase {state.phase!r}")
    if state.turn != seat:
        raise RuleError("not_your_turn", f"it is seat {state.turn}'s turn")


def pass_upcard(state: KnockTable, seat: int) -> list[Event]:
    require_turn(state, seat, (UPCARD,))
    return [UPCARD_PASSED.event(seat=seat)]


def discard(state: KnockTable, seat: int, card: str) -> list[Event]:
    """The discard, and the drawn hand it causes at 2 stock cards or at the turn cap."""
    events = [CARD_DISCARDED.event(seat=seat, card=card)]
    if len(state.stock) <= 2:
        events.append(HAND_ENDED.event(result="draw", reason="stock_exhausted"))
    elif state.turns + 1 >= state.options.max_turns:
        events.append(HAND_ENDED.event(result="draw", reason="turn_cap"))
    return events


def knock(state: KnockTable, seat: int, card: str, rest: tuple[str, ...],
          submitted: Sequence[Sequence[str]] | None, solver: MeldSolver,
          choose: Chooser) -> list[Event]:
    """A knock (or gin) discarding ``card`` and keeping ``rest``, within the knock limit."""
    deadwood = solver.deadwood(rest)
    if deadwood > state.knock_limit:
        raise RuleError("deadwood_over_limit",
                        f"deadwood after the discard is {deadwood}; "
                        f"this hand's knock limit is {state.knock_limit}")
    shown = shown_arrangement(state, seat, rest, deadwood, submitted, solver, choose)
    return [HAND_KNOCKED.event(
        seat=seat, discard=card, kind="gin" if deadwood == 0 else "knock", deadwood=deadwood,
        melds=[meld.to_dict() for meld in shown.melds], unmatched=list(shown.unmatched),
    )]


def big_gin(state: KnockTable, seat: int, solver: MeldSolver, choose: Chooser) -> list[Event]:
    require_turn(state, seat, (DISCARD,))
    if state.options.big_gin_bonus is None:
        raise RuleError("big_gin_disabled", "big gin is disabled in this match")
    hand = state.hands[seat]
    if solver.deadwood(hand) != 0:
        raise RuleError("not_big_gin", "big gin needs every card in your hand to meld")
    shown = choose(state, seat, solver.all_best(hand), solver)
    return [HAND_KNOCKED.event(
        seat=seat, discard=None, kind="big_gin", deadwood=0,
        melds=[meld.to_dict() for meld in shown.melds], unmatched=[],
    )]


def shown_arrangement(state: KnockTable, seat: int, rest: tuple[str, ...], deadwood: int,
                      submitted: Sequence[Sequence[str]] | None,
                      solver: MeldSolver, choose: Chooser) -> Arrangement:
    """The knocker's melds: submitted ones if they reach the minimum, else the engine's
    pick; ``choose`` picks among equal readings."""
    if submitted is None:
        candidates = solver.all_best(rest)
    else:
        candidates = solver.arrangement_of(rest, submitted)
        if not candidates:
            raise RuleError("invalid_melds",
                            "the melds must be valid, disjoint and drawn from your hand")
        candidates = tuple(a for a in candidates if a.deadwood == deadwood)
        if not candidates:
            raise RuleError("melds_not_minimal",
                            f"the shown melds must leave the minimum deadwood {deadwood}")
    return choose(state, seat, candidates, solver)


Chooser = Callable[[KnockTable, int, Sequence[Arrangement], MeldSolver], Arrangement]
"""How the melds a knock shows are picked among equal minimum-deadwood arrangements."""


def best_for_knocker(state: KnockTable, knocker: int, candidates: Sequence[Arrangement],
                     solver: MeldSolver) -> Arrangement:
    """Among equal arrangements, the one after which defenders keep the most deadwood.

    docs/rules.md 1.5 *(ours)*. With several defenders their best lay-off deadwoods are summed.
    """
    if len(candidates) == 1:
        return candidates[0]
    defenders = [s for s in range(state.seats) if s != knocker]

    def defenders_left(arrangement: Arrangement) -> int:
        return sum(best_layoffs(solver, state.hands[d], arrangement.melds).deadwood
                   for d in defenders)

    return max(candidates, key=defenders_left)


def without_other_hands(state: KnockTable, knocker: int, candidates: Sequence[Arrangement],
                        solver: MeldSolver) -> Arrangement:
    """The first of the equal arrangements, in the solver's fixed order: a pick that reads
    nothing but the knocker's own cards.

    ``best_for_knocker`` reads the defenders' hidden hands, which is what the rules want
    of a knock (docs/rules.md 1.5) but not of a preview of one: a check that showed its
    pick would tell the knocker what the defenders hold, every time it is asked.
    """
    return candidates[0]
