"""Auditing a log somebody brings (``POST /v1/audits``): an exported NDJSON file that may
come from another server, or have been edited.

The verdict is ``domain.audit.verify``, the code ``rummy verify`` runs. The table at each
step is the log folded event by event as the server folds a stored match, rendered for the
public, and in full once the file reveals a hand's seed (``HandIndex``, like ``/state``):
the server shows nothing the file does not make public.

Anybody may upload, so the work is bounded: the log is read within the limits of
``log_upload`` (bytes, lines, line length), and the tables are drawn only up to
``MAX_STATES_BYTES`` of JSON. Each table repeats the match's finished hands, so the tables
of a long match grow with the square of its length: a gin match to 500 draws 76 MB of
them, one of many short hands gigabytes.

The verification takes up to a second of CPU and 150 MiB for the largest logs the limits
let through, so it never runs where requests are served: ``UploadedLogs`` checks the lines
as they arrive and spools them, and the ``LogVerifier`` (a child process each, a few at a
time: ``service.adapters.audit_pool``) runs ``audit_records`` on the spool and writes the
answer (``answer_parts``) to a file the API streams.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from domain.audit import verify
from domain.bot_seats import show_bots
from domain.match import Match
from domain.variant import Variant
from domain.variants import VARIANTS
from domain.viewer import Viewer
from service.codec import to_recorded
from service.ports import LogVerifier, StoredEvent, Verification, VerifierBusy, VerifierFailed
from service.usecases.errors import Busy, Rejected
from service.usecases.log_upload import MAX_LOG_BYTES, spool_records
from service.usecases.queries import HandIndex

__all__ = ["MAX_LOG_BYTES", "MAX_STATES_BYTES", "Audit", "UploadedLogs", "audit_records",
           "answer_parts"]

MAX_STATES_BYTES = 16 * 1024 * 1024
"""The tables' JSON at most: every table of a gin match to 100 (6.4 MB) or of a 6-player
rummy match (4.8 MB), with room to spare; a longer match is drawn up to here."""
FAILED_RETRY_S = 10
"""``Retry-After`` of a verification that did not finish (its process died or ran long)."""


@dataclass(frozen=True)
class Audit:
    """The answer: the report and, when asked for, each table as JSON text (compact, keys
    sorted) and why the tables stop short of the log's end (None when they do not)."""

    report: dict[str, Any]
    states: list[str] | None = None
    states_note: str | None = None


class UploadedLogs:
    """``POST /v1/audits``: the log checked line by line as it arrives and spooled, then
    verified by the ``LogVerifier`` away from the request loop."""

    def __init__(self, verifier: LogVerifier) -> None:
        self.verifier = verifier

    def audit(self, chunks: Iterable[bytes], with_states: bool) -> Verification:
        """The answer to the log arriving in ``chunks``: the verifier's report and, with
        ``with_states``, the table after each event (``states[i]`` after version ``i + 1``)
        as far as the file can be replayed. The log is refused as soon as it breaks a rule
        of ``log_upload``; a 503 when no verifier is free in time (``audits_busy``) or the
        verification did not finish (``audit_failed``), with when to retry."""
        with self.verifier.spool() as spool:
            spool_records(chunks, spool)
            try:
                verified = self.verifier.verify(spool, MAX_STATES_BYTES if with_states
                                                else None)
            except VerifierBusy as exc:
                raise Busy("audits_busy", "every verifier of this server is busy: retry "
                           f"after {exc.retry_after_s} s", exc.retry_after_s) from exc
            except VerifierFailed as exc:
                raise Busy("audit_failed", f"the verification did not finish ({exc}): retry "
                           "later, or verify the log offline with `rummy verify FILE`",
                           FAILED_RETRY_S) from exc
        if verified.refusal is not None:
            raise Rejected(*verified.refusal)
        return verified


def audit_records(records: Sequence[dict[str, Any]], states_bytes: int | None) -> Audit:
    """The verifier's report on ``records`` and, unless ``states_bytes`` is None, the table
    after each event, up to ``states_bytes`` of JSON. Run by the verifier's process."""
    report = verdict(records)
    if states_bytes is None:
        return Audit(report)
    return Audit(report, *replay_states(records, states_bytes))


def answer_parts(audit: Audit) -> Iterator[str]:
    """The ``AuditSchema`` answer as JSON text, in parts. The tables are JSON already (their
    length is what ``states_bytes`` bounds), so they are joined as they are, not parsed
    and written again."""
    yield '{"report":' + _json(audit.report)
    if audit.states is not None:
        yield ',"states":['
        for index, table in enumerate(audit.states):
            yield ("," if index else "") + table
        yield '],"states_note":' + _json(audit.states_note)
    yield "}"


def verdict(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``rummy verify``'s report. A log so malformed that the verifier cannot even walk it
    is refused as such (422 ``unverifiable_log``), never a server error."""
    try:
        return verify(records, VARIANTS).to_dict()
    except Exception as exc:  # any crash on untrusted input is a refusal, not a 500
        raise Rejected("unverifiable_log",
                       f"the log cannot be verified: {type(exc).__name__}: {exc}") from exc


def replay_states(records: Sequence[dict[str, Any]],
                  budget: int = MAX_STATES_BYTES) -> tuple[list[str], str | None]:
    """The table after each event, up to the first event that cannot be folded: one the
    export redacted, or one the rules cannot apply (the note says which and why)."""
    data = records[0].get("data")
    variant = VARIANTS.get(data.get("variant", "")) if isinstance(data, dict) else None
    if variant is None:
        return [], "the log does not start with a known variant's MatchCreated"
    stored: list[StoredEvent] = []
    note = None
    for record in records:
        if record.get("redacted"):
            note = (f"version {record.get('version')} is redacted in this export (a hand not "
                    "yet revealed to its exporter): later tables cannot be drawn")
            break
        try:
            stored.append(_stored(record))
        except (KeyError, TypeError, ValueError) as exc:
            note = f"version {record.get('version')!r} is not a stored event: {exc!r}"
            break
    states, fold_note = _fold(variant, stored, budget)
    return states, fold_note or note


def _stored(record: dict[str, Any]) -> StoredEvent:
    if not isinstance(record["data"], dict):
        raise TypeError("data is not an object")
    return StoredEvent(int(record["version"]), str(record["type"]), int(record["schema"]),
                       record["data"], record.get("command_id"), float(record["ts"]),
                       str(record["prev_hash"]), str(record.get("hash", "")),
                       record.get("command"))


def _fold(variant: Variant, stored: list[StoredEvent],
          budget: int) -> tuple[list[str], str | None]:
    tables = _Tables(variant, stored)
    states: list[str] = []
    size = 0
    for event in stored:
        try:
            table = tables.after(event)
        except Exception as exc:  # a forged event may break the fold anywhere
            return states, f"version {event.version} cannot be replayed: {exc}"
        size += len(table) + 1
        if size > budget:
            return states, (f"tables are drawn for the first {len(states)} events only: "
                            f"together they would pass {budget} bytes, this "
                            "server's limit")
        states.append(table)
    return states, None


class _Tables:
    """The log folded event by event as the server folds a stored match; the public
    table after each event, in full for hands the log reveals."""

    def __init__(self, variant: Variant, stored: list[StoredEvent]) -> None:
        self.hands = HandIndex(stored)
        self.match = Match.new(variant)

    def after(self, event: StoredEvent) -> str:
        self.match = self.match.apply(to_recorded([event]))
        viewer = self.hands.viewer_of(event.version, Viewer.public())
        return _json(_table(self.match, viewer))


def _json(value: Any) -> str:
    """JSON text as the API writes it (compact, keys sorted): its length is its cost."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _table(match: Match, viewer: Viewer) -> dict[str, Any]:
    view = show_bots(match.variant.view(match.state, viewer), match.bots)
    view["version"] = match.version
    if match.clock is not None:
        view["clock"] = match.clock.to_view()
    return view
