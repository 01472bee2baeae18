"""What every family's ``decide`` and ``evolve`` are made of: a function per command type
and a handler per event type, over frozen states.

Replay folds every event of a match through a handler, so the state copy is the hot
path: ``replace`` copies the instance dict instead of re-running ``__init__`` (about ten
times faster than ``dataclasses.replace``; the states have no derived fields).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from domain.errors import RuleError
from domain.events import Event
from domain.fairness import UNFOLDED_EVENTS

if TYPE_CHECKING:
    from domain.variant import Variant

S = TypeVar("S")
Handler = Callable[[S, Mapping[str, Any]], S]


def replace(state: S, **changes: Any) -> S:
    """``dataclasses.replace`` for a frozen state, without ``__init__``."""
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


def seen_taken(known: tuple[tuple[str, ...], ...], seat: int, taken: Sequence[str] = (),
               gone: Sequence[str] = ()) -> tuple[tuple[str, ...], ...]:
    """The cards each seat is known to hold (a state's ``known_cards``) after ``seat`` takes
    ``taken`` in sight of everyone (from the discard pile, a joker from the table) and
    parts with ``gone`` (discarded or placed on the table).

    Only what everyone saw counts: a card parted with that was never seen taken changes
    nothing, and with two decks a copy parted with is taken to be the one seen (nobody can
    tell the two apart), so knowledge is never more than the table shows. Replay runs this
    on every discard, so the common case (nothing seen, nothing taken) returns at once.
    """
    if not known:
        return known  # no hand dealt yet
    mine = known[seat]
    if not mine and not taken:
        return known
    kept = list(mine)
    for card in gone:
        if card in kept:
            kept.remove(card)
    if not taken and len(kept) == len(mine):
        return known
    return known[:seat] + (tuple(kept) + tuple(taken),) + known[seat + 1:]


def evolver(handlers: Mapping[str, Handler[S]]) -> Callable[[S, Event], S]:
    """A family's ``evolve``: apply one stored event; unknown types leave the state as is."""

    def evolve(state: S, event: Event) -> S:
        handler = handlers.get(event.type)
        return handler(state, event.data) if handler else state

    return evolve


def decider(deciders: Mapping[type, Callable[[S, Any], list[Event]]],
            game: str) -> Callable[[S, object], list[Event]]:
    """A family's ``decide``: the events a command causes, or a ``RuleError`` saying why not."""

    def decide(state: S, command: object) -> list[Event]:
        decide_one = deciders.get(type(command))
        if decide_one is None:
            raise RuleError("unknown_command", f"{type(command).__name__} is not a {game} command")
        return decide_one(state, command)

    return decide


def folded(event: Event) -> bool:
    """Whether a family's ``evolve`` sees ``event``: the fairness trail and the clock's
    settings (``UNFOLDED_EVENTS``) never reach it."""
    return event.type not in UNFOLDED_EVENTS


def fold(variant: Variant, state: Any, events: Sequence[Event]) -> Any:
    """``state`` after ``events``, each that is ``folded`` through the family's ``evolve``:
    the one fold of events, stored or not (``domain.match.Match.apply`` for stored ones)."""
    for event in events:
        if folded(event):
            state = variant.evolve(state, event)
    return state


def replay(variant: Variant, events: Sequence[Event]) -> Any:
    """The state a match's events lead to from its start."""
    return fold(variant, variant.initial_state(), events)
