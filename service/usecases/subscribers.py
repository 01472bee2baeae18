"""What happens after a write: an ordered list of subscribers, each on its own.

The command runner (and match creation, through the same path) hands every successful
write to ``Subscribers.publish``: the organisers' feed and webhooks, embedded mode's
retention, the seats' last actions for presence, and later metrics, tournaments and bots.
A new reaction to an append is a new subscriber given to the bootstrap, never an edit of
the runner.

The write has already happened: a subscriber that fails is logged and the others still
run; nothing is raised to the caller. The durable part of the follow-up (marking what the
match is about to owe, before the append) is the runner's own (``FollowUp``), not a
subscriber's.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, runtime_checkable

from domain.aggregate import A
from service.ports import StoredEvent

log = logging.getLogger("rummy.subscribers")


@dataclass(frozen=True)
class Appended(Generic[A]):
    """One successful write: the aggregate after it (a match, or a tournament for the
    tournaments' own subscribers), the events it stored (in order), and the command the
    log keeps with them (a seat's ``{"seat", "action"}``, a control; None for system
    steps and creation)."""

    aggregate_id: str
    events: tuple[StoredEvent, ...]
    aggregate: A
    command: Mapping[str, Any] | None = None


class Subscriber(Protocol):
    """A reaction to every successful write."""

    def __call__(self, appended: Appended[Any]) -> None: ...


@runtime_checkable
class Batched(Subscriber, Protocol):
    """A subscriber that can also take many writes at once, as it would one by one."""

    def many(self, written: Sequence[Appended[Any]]) -> None: ...


class Subscribers:
    """The bootstrap's ordered subscribers, each run on its own."""

    def __init__(self, subscribers: Sequence[Subscriber] = ()) -> None:
        self._subscribers = list(subscribers)

    def publish(self, appended: Appended[Any]) -> None:
        for subscriber in self._subscribers:
            try:
                subscriber(appended)
            except Exception:  # the write happened: one reaction must not undo it or others
                log.exception("%s after a write to %s %s failed", _name(subscriber),
                              type(appended.aggregate).__name__.lower(), appended.aggregate_id)

    def publish_many(self, written: Sequence[Appended[Any]]) -> None:
        """Many writes (a worker's batch), in order: a subscriber that can take them at
        once (``Batched``: its own round trips shared by the batch) gets them together,
        any other one by one, each on its own as ``publish`` runs them."""
        for subscriber in self._subscribers:
            if isinstance(subscriber, Batched):
                try:
                    subscriber.many(written)
                except Exception:  # as publish: the writes happened
                    log.exception("%s after a batch of %d writes failed", _name(subscriber),
                                  len(written))
                continue
            for appended in written:
                try:
                    subscriber(appended)
                except Exception:  # as publish
                    log.exception("%s after a write to %s %s failed", _name(subscriber),
                                  type(appended.aggregate).__name__.lower(),
                                  appended.aggregate_id)


def _name(subscriber: Subscriber) -> str:
    return getattr(subscriber, "__name__", type(subscriber).__name__)
