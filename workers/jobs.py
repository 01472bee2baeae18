"""RQ job functions: the system step a match awaits, and the verification of a match's log.

Jobs take ids and run use cases through the process's wiring (``workers.context``). A step
runs through the command runner, so running it twice, or after the reconciler did it,
appends nothing the second time. Exceptions reach RQ, so failures land in RQ's failed-job
registry (and the reconciler re-drives the match).
"""

from __future__ import annotations

from domain.steps import pending_step
from service.usecases.audit import run_verification
from service.usecases.commands import RunStep
from workers.context import wiring_for

MAX_STEPS = 4
"""A step may leave the match awaiting another (the last hand's score, then its bonuses)."""


def run_step(match_id: str, prefix: str = "rummy") -> int:
    """Run the system steps the match awaits; the number of events appended."""
    runner = wiring_for(prefix).runner
    appended = 0
    for _ in range(MAX_STEPS):
        outcome = runner.run(match_id, RunStep())
        appended += len(outcome.appended)
        if pending_step(outcome.match.family, outcome.match.state) is None:
            break
    return appended


def run_scoring(match_id: str, prefix: str = "rummy", inline: bool = False) -> int:
    """A scoring job queued by an earlier release: the same as ``run_step``."""
    return run_step(match_id, prefix)


run_bonuses = run_scoring


def run_replay(match_id: str, verification_id: str, prefix: str = "rummy") -> bool:
    """Rebuild the match from its whole log, verify it (``domain.audit``), file the report."""
    return run_verification(wiring_for(prefix).repository, match_id, verification_id)
