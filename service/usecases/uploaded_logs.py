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
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.audit import verify
from domain.match import Match
from domain.variant import Variant
from domain.variants import VARIANTS
from domain.viewer import Viewer
from service.codec import to_recorded
from service.ports import StoredEvent
from service.usecases.errors import Rejected
from service.usecases.log_upload import MAX_LOG_BYTES, read_records
from service.usecases.queries import HandIndex

__all__ = ["MAX_LOG_BYTES", "MAX_STATES_BYTES", "Audit", "audit_log"]

MAX_STATES_BYTES = 16 * 1024 * 1024
"""The tables' JSON at most: every table of a gin match to 100 (6.4 MB) or of a 6-player
rummy match (4.8 MB), with room to spare; a longer match is drawn up to here."""


@dataclass(frozen=True)
class Audit:
    """The answer: the report and, when asked for, each table as JSON text (compact, keys
    sorted) and why the tables stop short of the log's end (None when they do not)."""

    report: dict[str, Any]
    states: list[str] | None = None
    states_note: str | None = None


def audit_log(chunks: Iterable[bytes], with_states: bool) -> Audit:
    """The verifier's report on the log arriving in ``chunks`` and, with ``with_states``,
    the table after each event (``states[i]`` after version ``i + 1``) as far as the file
    can be replayed. The log is refused as soon as it breaks a rule of ``log_upload``."""
    records = read_records(chunks)
    report = verdict(records)
    if not with_states:
        return Audit(report)
    return Audit(report, *replay_states(records))


def verdict(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``rummy verify``'s report. A log so malformed that the verifier cannot even walk it
    is refused as such (422 ``unverifiable_log``), never a server error."""
    try:
        return verify(records, VARIANTS).to_dict()
    except Exception as exc:  # any crash on untrusted input is a refusal, not a 500
        raise Rejected("unverifiable_log",
                       f"the log cannot be verified: {type(exc).__name__}: {exc}") from exc


def replay_states(records: Sequence[dict[str, Any]]) -> tuple[list[str], str | None]:
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
    states, fold_note = _fold(variant, stored)
    return states, fold_note or note


def _stored(record: dict[str, Any]) -> StoredEvent:
    if not isinstance(record["data"], dict):
        raise TypeError("data is not an object")
    return StoredEvent(int(record["version"]), str(record["type"]), int(record["schema"]),
                       record["data"], record.get("command_id"), float(record["ts"]),
                       str(record["prev_hash"]), str(record.get("hash", "")),
                       record.get("command"))


def _fold(variant: Variant, stored: list[StoredEvent]) -> tuple[list[str], str | None]:
    tables = _Tables(variant, stored)
    states: list[str] = []
    size = 0
    for event in stored:
        try:
            table = tables.after(event)
        except Exception as exc:  # a forged event may break the fold anywhere
            return states, f"version {event.version} cannot be replayed: {exc}"
        size += len(table) + 1
        if size > MAX_STATES_BYTES:
            return states, (f"tables are drawn for the first {len(states)} events only: "
                            f"together they would pass {MAX_STATES_BYTES} bytes, this "
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
    view = match.variant.view(match.state, viewer)
    view["version"] = match.version
    if match.clock is not None:
        view["clock"] = match.clock.to_view()
    return view
