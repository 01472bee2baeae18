"""Verifying a stored match: its whole log rebuilt and checked (``domain.audit``).

``Audits`` files a request and hands it to background work; ``run_verification`` is the
work, run by the ``replays`` job in real mode and in-process in embedded mode; the report
is filed with the match (``Reports``) for ``GET .../verifications/{id}``. A tournament's
verification (``service.usecases.tournament_audits``) files and runs the same way
(``open_verification``, ``file_verdict``).

Anybody who may see a match may ask (a log is public once its match ends, and anyone may
check a provably fair deal), so what asking costs is bounded here and at the API: a
request while a verification of the same log version is queued or running answers that
one instead of queueing another job (the API also limits requests per address and per
match), and every record expires.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from domain.audit import Report, duplicate_deals, verify
from domain.match import Match
from domain.variants import VARIANTS
from service.ports import Reports
from service.usecases.errors import NotFound, storable
from service.usecases.queries import MatchQueries
from service.usecases.repository import Repository

REPORT_TTL_S = 24 * 3600
"""How long a verification's record is kept after its last change (a finished report: a
day after it finished). A report is a snapshot of the log as it was read then; a client
that wants one later asks again (or runs ``rummy verify`` on the export), so keeping it
longer would only keep what anybody can recompute."""
IN_FLIGHT_TTL_S = 3600
"""How long a verification counts as queued or running unless it finishes: past a replay
job's worst case (3 attempts of at most 600 s and 35 s of backoff, ``adapters.jobs``) and
a queue's wait, so a lost job holds its log version back for an hour at most."""


def open_verification(reports: Reports, aggregate_id: str, version: int,
                      verify_later: Callable[[str, str], None]) -> str:
    """File a request to verify ``aggregate_id``'s log at ``version`` and hand it to
    background work; or, while a verification of that version is queued or running,
    nothing: its id is the answer."""
    asked = uuid.uuid4().hex
    record = {"status": "queued", "requested_at": round(time.time(), 3), "version": version}
    verification_id = reports.open(aggregate_id, version, asked, record)
    if verification_id == asked:
        verify_later(aggregate_id, verification_id)
    return verification_id


def file_verdict(reports: Reports, aggregate_id: str, verification_id: str,
                 verdict: Callable[[], Report]) -> bool:
    """Do a requested verification: mark it running, reach the ``verdict``, file it
    finished (its log version is free to verify again); whether it verified."""
    asked = reports.get(aggregate_id, verification_id) or {}
    reports.save(aggregate_id, verification_id, {**asked, "status": "running"})
    report = verdict().to_dict()
    reports.finish(aggregate_id, verification_id, asked.get("version"),
                   {**asked, "status": "finished", "report": report})
    return bool(report["ok"])


def run_verification(repository: Repository[Match], reports: Reports, match_id: str,
                     verification_id: str) -> bool:
    """Verify the match (and its duplicate partner's deals, if any); file the report."""

    def verdict() -> Report:
        records = [event.to_dict() for event in repository.stored(match_id)]
        checked = verify(records, VARIANTS)
        partner = (repository.meta(match_id) or {}).get("duplicate_partner")
        if partner:
            partner_records = [event.to_dict() for event in repository.stored(partner)]
            check = duplicate_deals(records, partner_records, partner)
            checked.checks[check.name] = check
        return checked

    return file_verdict(reports, match_id, verification_id, verdict)


class Audits:
    """Requests for a match's verification, and their reports."""

    def __init__(self, queries: MatchQueries, reports: Reports,
                 verify_later: Callable[[str, str], None]) -> None:
        self.queries = queries
        self._reports = reports
        self._verify_later = verify_later

    def request_verification(self, match_id: str, token: str | None) -> dict[str, Any]:
        """Queue a replay job that verifies the whole log as it stands, or answer the
        verification of this log version that is queued or running already."""
        self.queries.access.viewer(match_id, token)
        version = self.queries.load(match_id).version
        verification_id = open_verification(self._reports, match_id, version,
                                            self._verify_later)
        return self.verification(match_id, verification_id, token)

    def verification(self, match_id: str, verification_id: str,
                     token: str | None) -> dict[str, Any]:
        self.queries.access.viewer(match_id, token)
        record = self._reports.get(match_id, verification_id) if storable(match_id) else None
        if record is None:
            raise NotFound("verification_not_found",
                           f"no verification {verification_id!r} of match {match_id!r} "
                           "(or it expired)")
        return {"id": verification_id, "match_id": match_id, **record}

    def run(self, match_id: str, verification_id: str) -> bool:
        """Do a requested verification now (the ``replays`` job)."""
        return run_verification(self.queries.repository, self._reports, match_id,
                                verification_id)
