"""Driving a match through the system steps it awaits (``domain.steps``), for workers.

One step may leave the match awaiting another: the last hand's score, then the match's
bonuses. Each step goes through the command runner, so a step that ran already appends
nothing.
"""

from __future__ import annotations

from domain.match import Match
from service.usecases.commands import RunStep
from service.usecases.runner import CommandRunner

MAX_STEPS = 4
"""More than a match can await in a row; a bound, should a bug make a step repeat."""


def run_due_steps(runner: CommandRunner, match_id: str) -> tuple[Match, int]:
    """Run every step the match awaits; (the match after them, events appended)."""
    appended = 0
    for _ in range(MAX_STEPS):
        outcome = runner.run(match_id, RunStep())
        appended += len(outcome.appended)
        if outcome.match.step_owed is None:
            break
    return outcome.match, appended
