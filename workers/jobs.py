"""RQ job functions: the verification of a match's log, and the step jobs of earlier releases.

Jobs take ids and run use cases through the process's wiring (``workers.context``).
Exceptions reach RQ, so failures land in RQ's failed-job registry. System steps are not
jobs any more (``workers.reconciler`` runs them from the work index); ``run_scoring`` and
``run_bonuses`` only drain jobs an earlier release queued before an upgrade.
"""

from __future__ import annotations

from domain.steps import pending_step
from service.usecases.audit import run_verification
from service.usecases.commands import RunStep
from workers.context import wiring_for

MAX_STEPS = 4
"""A step may leave the match awaiting another (the last hand's score, then its bonuses)."""


def run_replay(match_id: str, verification_id: str, prefix: str = "rummy") -> bool:
    """Rebuild the match from its whole log, verify it (``domain.audit``), file the report."""
    return run_verification(wiring_for(prefix).repository, match_id, verification_id)


def run_scoring(match_id: str, prefix: str = "rummy", inline: bool = False) -> int:
    """A step job queued by an earlier release: run the steps the match awaits, if any."""
    runner = wiring_for(prefix).runner
    appended = 0
    for _ in range(MAX_STEPS):
        outcome = runner.run(match_id, RunStep())
        appended += len(outcome.appended)
        if pending_step(outcome.match.variant, outcome.match.state) is None:
            break
    return appended


run_bonuses = run_scoring
