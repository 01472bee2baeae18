"""Who looks at a match, which decides the hidden cards they are shown.

Three kinds of viewer, and no others: the public (no token), one seat (its token) and the
organiser (the full view: the admin, the match's owner, an operator or an auditor). Views,
the event log, exports and the live stream all ask a ``Viewer`` rather than compare seat
numbers with marker strings, so a seat can never be mistaken for the organiser.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Viewer:
    """The public (``Viewer.public()``), one seat (``Viewer.for_seat(n)``) or the
    organiser (``Viewer.full()``)."""

    seat: int | None = None
    """The seat looking, whose own cards it sees; None for the public and the organiser."""
    is_full: bool = False
    """The organiser's view: every card, the stock and every seed."""

    def __post_init__(self) -> None:
        if self.seat is None:
            return
        if self.is_full:
            raise ValueError("the full view is nobody's seat")
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or self.seat < 0:
            raise ValueError(f"a seat is a number from 0, not {self.seat!r}")

    @classmethod
    def public(cls) -> Viewer:
        return cls()

    @classmethod
    def full(cls) -> Viewer:
        return cls(is_full=True)

    @classmethod
    def for_seat(cls, seat: int) -> Viewer:
        return cls(seat=seat)

    @property
    def is_public(self) -> bool:
        return self.seat is None and not self.is_full

    def can_see(self, seat: int | None) -> bool:
        """Whether this viewer may see what is hidden to all but ``seat`` (its cards, the
        command it sent): the organiser always, a seat only its own."""
        return self.is_full or (self.seat is not None and seat == self.seat)
