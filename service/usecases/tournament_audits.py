"""Verifying a tournament the server hosts: its export checked on the server
(``domain.tournaments.audit``), the checks ``rummy verify`` makes of it offline.

``TournamentAudits`` files a request and hands it to background work;
``run_tournament_verification`` is the work, run by the ``replays`` job
``run_tournament_replay`` in real mode and in-process in embedded mode. It reads what
``GET /v1/tournaments/{id}/export`` serves (``HostedTournaments.export``: the tournament's
log, then each recorded table's match log) and files the report with the tournament
(``Reports``, in the tournament's own hash slot) for
``GET /v1/tournaments/{id}/verifications/{vid}``.

A tournament is public, so anybody may ask, no token needed; what asking costs is bounded
as for a match (``service.usecases.audit``): while a verification of the tournament's
present log version is queued or running, asking again answers that one; the API limits
requests per address and per tournament; every record expires (``REPORT_TTL_S``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.audit import parse_ndjson
from domain.tournaments.audit import verify_tournament
from domain.variants import VARIANTS
from service.ports import Reports
from service.usecases.audit import file_verdict, open_verification
from service.usecases.errors import NotFound
from service.usecases.hosted_tournaments import HostedTournaments, tournament_not_found


def run_tournament_verification(hosted: HostedTournaments, reports: Reports,
                                tournament_id: str, verification_id: str) -> bool:
    """Verify the tournament's export as it stands; file the report."""
    return file_verdict(reports, tournament_id, verification_id, lambda: verify_tournament(
        parse_ndjson(hosted.export(tournament_id)), VARIANTS))


class TournamentAudits:
    """Requests for a tournament's verification, and their reports."""

    def __init__(self, hosted: HostedTournaments, reports: Reports,
                 verify_later: Callable[[str, str], None]) -> None:
        self.hosted = hosted
        self._reports = reports
        self._verify_later = verify_later

    def request_verification(self, tournament_id: str) -> dict[str, Any]:
        """Queue a replay job that verifies the tournament as it stands, or answer the
        verification of its present log version that is queued or running already."""
        version = self.hosted.repository.get(tournament_id).version
        verification_id = open_verification(self._reports, tournament_id, version,
                                            self._verify_later)
        return self.verification(tournament_id, verification_id)

    def verification(self, tournament_id: str, verification_id: str) -> dict[str, Any]:
        if self.hosted.repository.meta(tournament_id) is None:
            raise tournament_not_found(tournament_id)
        record = self._reports.get(tournament_id, verification_id)
        if record is None:
            raise NotFound("verification_not_found",
                           f"no verification {verification_id!r} of tournament "
                           f"{tournament_id!r} (or it expired)")
        return {"id": verification_id, "tournament_id": tournament_id, **record}

    def run(self, tournament_id: str, verification_id: str) -> bool:
        """Do a requested verification now (the ``replays`` job)."""
        return run_tournament_verification(self.hosted, self._reports, tournament_id,
                                           verification_id)
