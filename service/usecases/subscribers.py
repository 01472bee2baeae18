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
from typing import Any, Protocol

from domain.match import Match
from service.ports import StoredEvent

log = logging.getLogger("rummy.subscribers")


@dataclass(frozen=True)
class Appended:
    """One successful write: the match after it, the events it stored (in order), and the
    command the log keeps with them (a seat's ``{"seat", "action"}``, a control; None for
    system steps and creation)."""

    match_id: str
    events: tuple[StoredEvent, ...]
    match: Match
    command: Mapping[str, Any] | None = None


class Subscriber(Protocol):
    """A reaction to every successful write."""

    def __call__(self, appended: Appended) -> None: ...


class Subscribers:
    """The bootstrap's ordered subscribers, each run on its own."""

    def __init__(self, subscribers: Sequence[Subscriber] = ()) -> None:
        self._subscribers = list(subscribers)

    def publish(self, appended: Appended) -> None:
        for subscriber in self._subscribers:
            try:
                subscriber(appended)
            except Exception:  # the write happened: one reaction must not undo it or others
                log.exception("%s after a write to match %s failed",
                              _name(subscriber), appended.match_id)


def _name(subscriber: Subscriber) -> str:
    return getattr(subscriber, "__name__", type(subscriber).__name__)
