"""Verifying a stored match: its whole log rebuilt and checked (``domain.audit``).

Run by the ``replays`` job in real mode and in-process in embedded mode; the report is
filed with the match (``VerificationReports``) for ``GET .../verifications/{id}``.
"""

from __future__ import annotations

from domain.audit import duplicate_deals, verify
from domain.variants import VARIANTS
from service.adapters.store import VerificationReports
from service.usecases.repository import Repository


def run_verification(repository: Repository, match_id: str, verification_id: str) -> bool:
    """Verify the match (and its duplicate partner's deals, if any); file the report."""
    reports = VerificationReports(repository.store)
    reports.save(match_id, verification_id, {"status": "running"})
    records = [event.to_dict() for event in repository.stored(match_id)]
    verdict = verify(records, VARIANTS)
    partner = (repository.meta(match_id) or {}).get("duplicate_partner")
    if partner:
        partner_records = [event.to_dict() for event in repository.stored(partner)]
        check = duplicate_deals(records, partner_records, partner)
        verdict.checks[check.name] = check
    report = verdict.to_dict()
    reports.save(match_id, verification_id, {"status": "finished", "report": report})
    return bool(report["ok"])
