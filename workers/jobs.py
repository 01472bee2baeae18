"""RQ job functions: the verification of a match's log or a tournament's export, the analysis
of a finished match, and the step jobs of earlier releases.

Jobs take ids and run use cases through the process's wiring (``workers.context``).
Exceptions reach RQ, so failures land in RQ's failed-job registry. System steps are not
jobs any more (``workers.reconciler`` runs them from the work index); ``run_scoring`` and
``run_bonuses`` only drain jobs an earlier release queued before an upgrade.
"""

from __future__ import annotations

from domain.match import StepDue
from workers.context import wiring_for


def run_replay(match_id: str, verification_id: str, prefix: str = "rummy") -> bool:
    """Rebuild the match from its whole log, verify it (``domain.audit``), file the report."""
    return wiring_for(prefix).audits.run(match_id, verification_id)


def run_tournament_replay(tournament_id: str, verification_id: str,
                          prefix: str = "rummy") -> bool:
    """Verify the tournament's export (``domain.tournaments.audit``), file the report."""
    return wiring_for(prefix).tournament_audits.run(tournament_id, verification_id)


def run_analysis(match_id: str, analysis_id: str, prefix: str = "rummy") -> bool:
    """Weigh every decision of the finished match (``domain.bots.analysis``), file them."""
    return wiring_for(prefix).analyses.run(match_id, analysis_id)


def run_scoring(match_id: str, prefix: str = "rummy", inline: bool = False) -> int:
    """A step job queued by an earlier release: run the steps the match awaits, if any."""
    return len(wiring_for(prefix).obligations.pay(match_id, StepDue.kind).appended)


run_bonuses = run_scoring
