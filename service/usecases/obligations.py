"""The table of obligations: for each kind of work a match can owe (``domain.match.OWED``),
how far ahead of an append it is marked and the command that pays it; and ``Obligations``,
which pays what is due through the one command runner.

The domain says what is owed and when (``Match.owed``, each kind's ``due``): that is a
pure function of the log. How it is paid is not: the command runs through the
``CommandRunner`` (load, decide, append at the expected version), and the mark ahead is
a scheduling policy of the work index. So the pure half stays in ``domain.match`` and this
half lives here, in the use-case layer that runs it. Everything that schedules, runs,
reconciles, rebuilds or deletes background work iterates ``OBLIGATIONS``: the follow-up
after an append (``service.usecases.background``), the workers' reconciler, the index
rebuild (``service.usecases.reconciling``), the work index's kinds and retention (given
``KINDS`` by the bootstrap). A new kind of owed work is one more ``Owed`` class in the
domain, one more row here and the command it names, and nothing else.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from domain.aggregate import Aggregate, is_due
from domain.match import BotTurn, DeadlineDue, Owed, StepDue
from domain.tournaments.tournament import RatingsDue, TournamentDue
from service.ports import StoredEvent
from service.usecases.commands import Command, PlayBot, RunStep, TimeOut
from service.usecases.errors import NotFound
from service.usecases.runner import CommandRunner, Outcome
from service.usecases.tournament_progress import Advance, RateResults

OwedT = TypeVar("OwedT", bound=Owed | TournamentDue | RatingsDue)

MAX_PAYMENTS = 8
"""Commands run at most for one kind in one go: more than a match usually owes of one kind
in a row (a hand's score, then the match's bonuses; a clock's draw, then its discard; a
bot's draw, melds and discard), and a bound should a bug make a payment repeat. Whatever
is still due then was scheduled again by each payment's own follow-up, so a long run of
bot moves goes on through the work index, other matches' work in between."""


@dataclass(frozen=True)
class Obligation(Generic[OwedT]):
    """One row of the table: a kind of owed work, and how it is scheduled and paid."""

    owed: type[OwedT]
    mark_ahead_s: float
    """Real mode marks the match in the work index this far ahead *before* an append that
    will leave it owing this kind: should the process die before its mark after the
    append, the reconciler still looks at the match then."""
    command: Callable[[OwedT, float], Command[Any]]
    """The command that pays ``owed`` at ``now``; run through the ``CommandRunner``, so a
    payment that comes twice, or late, appends nothing more."""
    aggregate: str = "match"
    """The kind of aggregate that owes it (``AggregateKind.name``): whose runner pays."""
    looks_again_s: float | None = None
    """For work that waits on other aggregates (a tournament on its matches): it stays
    due while it waits, and a look that changes nothing comes again this much later (in
    real mode the reconciler's lease, ``workers.reconciler.LEASE_S``, spaces the looks
    the same way)."""

    @property
    def kind(self) -> str:
        """The kind's name in the work index (``{prefix}:work:<kind>``)."""
        return self.owed.kind


OBLIGATIONS: dict[str, Obligation[Any]] = {row.kind: row for row in (
    Obligation(StepDue, 1.0, lambda owed, now: RunStep()),
    Obligation(DeadlineDue, 5.0, lambda owed, now: TimeOut(owed.turn_version, now)),
    Obligation(BotTurn, 1.0, lambda owed, now: PlayBot(owed.seat, owed.version)),
    Obligation(TournamentDue, 1.0, lambda owed, now: Advance(now), aggregate="tournament",
               looks_again_s=2.0),
    Obligation(RatingsDue, 1.0, lambda owed, now: RateResults(), aggregate="tournament"),
)}
"""Every kind of owed work, by its name. The step's and the bot's marks ahead fall due by
when their append has made them due (at once, or after the bot's think time: a look that
comes early reschedules it), or the process died in between (or lost its race); the
clock's is when the reconciler looks at a clocked match whose exact deadline was never
indexed. A tournament's progress is the tournaments' runner's to pay: it is due while a
round is open, so a look that finds its matches still playing leaves it due, and the
reconciler looks again once its lease ends."""

KINDS = tuple(OBLIGATIONS)
"""The work index's kinds, in the table's order (``domain.match.OWED``'s: a test holds the
table to one row per kind)."""


@dataclass(frozen=True)
class Paid:
    """What paying one kind did: the aggregate after it and the events appended."""

    aggregate: Aggregate
    appended: tuple[StoredEvent, ...] = ()

    def next_due(self, kind: str, now: float) -> float | None:
        """When it is next due for ``kind`` (``now`` or earlier: still due, unpaid); None
        when it owes none of it any more."""
        return next((owed.due(now) for owed in self.aggregate.owed() if owed.kind == kind),
                    None)


class Obligations:
    """Pays what aggregates owe, one kind at a time, through each aggregate kind's command
    runner (``runners``, by ``AggregateKind.name``)."""

    def __init__(self, runners: Mapping[str, CommandRunner[Any]],
                 clock: Callable[[], float] = time.time) -> None:
        self.runners = dict(runners)
        self._clock = clock

    def load(self, kind: str, ids: Sequence[str]) -> dict[str, Aggregate | NotFound]:
        """The aggregates that may owe ``kind``, read at once (``Repository.get_many``), to
        be paid with ``pay``'s ``loaded``: a batch costs one round trip, not one each."""
        return self.runners[OBLIGATIONS[kind].aggregate].repository.get_many(ids)

    def pay(self, match_id: str, kind: str, now: float | None = None,
            loaded: Aggregate | None = None) -> Paid:
        """Run the command of what the aggregate ``match_id`` (a match, or a tournament for
        a tournament's kind) owes of ``kind`` while it is due at ``now`` (the clock's now
        by default); what it owes when it stops. One that owes nothing due of ``kind``
        (paid already, or not yet due) is left as it is. ``loaded``: the aggregate as
        ``load`` has just read it (else it is read here); a first command decided on a
        version that moved meanwhile is decided again on the newer one."""
        now = self._clock() if now is None else now
        runner = self.runners[OBLIGATIONS[kind].aggregate]
        match = loaded if loaded is not None else runner.repository.get(match_id)
        return self._pay_on(match_id, kind, now, match, MAX_PAYMENTS)

    def pay_many(self, kind: str, loaded: Mapping[str, Aggregate],
                 now: float | None = None) -> dict[str, Paid | Exception]:
        """``pay`` each of the aggregates ``load`` read: their first commands run together
        (``CommandRunner.run_many``: one round trip for the batch's appends), what one
        owes after that is paid on its own. Each id's answer is what ``pay`` would have
        returned, or the error it would have raised."""
        now = self._clock() if now is None else now
        row = OBLIGATIONS[kind]
        runner = self.runners[row.aggregate]
        answers: dict[str, Paid | Exception] = {}
        commands = []
        for match_id, aggregate in loaded.items():
            owed = _due(aggregate, kind, now)
            if owed is None:
                answers[match_id] = Paid(aggregate)
            else:
                commands.append((match_id, row.command(owed, now), aggregate))
        for match_id, outcome in runner.run_many(commands).items():
            answers[match_id] = self._paid_first(match_id, kind, now, outcome)
        return answers

    def _paid_first(self, match_id: str, kind: str, now: float,
                    outcome: Outcome[Any] | Exception) -> Paid | Exception:
        """After a batch's first command: what the aggregate still owes, paid alone."""
        if isinstance(outcome, Exception):
            return outcome
        if not outcome.appended:
            return Paid(outcome.aggregate)
        try:
            more = self._pay_on(match_id, kind, max(now, self._clock()), outcome.aggregate,
                                MAX_PAYMENTS - 1)
        except Exception as exc:  # noqa: BLE001 - as pay would have raised it
            return exc
        return Paid(more.aggregate, outcome.appended + more.appended)

    def _pay_on(self, match_id: str, kind: str, now: float, match: Aggregate,
                payments: int) -> Paid:
        row = OBLIGATIONS[kind]
        runner = self.runners[row.aggregate]
        appended: list[StoredEvent] = []
        for _ in range(payments):
            owed = _due(match, kind, now)
            if owed is None:
                break
            outcome = runner.run(match_id, row.command(owed, now), loaded=match)
            match = outcome.aggregate
            if not outcome.appended:
                break
            appended += outcome.appended
            now = max(now, self._clock())  # what it owes next may be due from the append's time
        return Paid(match, tuple(appended))


def _due(aggregate: Aggregate, kind: str, now: float) -> Any:
    """What ``aggregate`` owes of ``kind`` that is due at ``now``, if anything."""
    return next((o for o in aggregate.owed() if o.kind == kind and is_due(o, now)), None)
