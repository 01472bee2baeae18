"""Auditing a log somebody brings (``POST /v1/audits``): an exported NDJSON file that may
come from another server, or have been edited.

The verdict is ``domain.audit.verify``, the code ``rummy verify`` runs. The table at each
step is the log folded event by event as the server folds a stored match, rendered for the
public, and in full once the file reveals a hand's seed (``HandIndex``, like ``/state``):
the server shows nothing the file does not make public.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from domain.audit import verify
from domain.clocks import Clock, track
from domain.events import CLOCK_SET
from domain.fairness import UNFOLDED_EVENTS
from domain.variant import Variant
from domain.variants import VARIANTS
from domain.viewer import Viewer
from service.adapters.codec import to_domain
from service.adapters.store import StoredEvent
from service.usecases.errors import Invalid, Rejected
from service.usecases.matches import HandIndex

MAX_LOG_BYTES = 8 * 1024 * 1024
"""The largest log accepted: a long rummy match exports a few hundred kilobytes."""
MAX_STATES = 3000
"""Tables rendered at most; a longer log is verified, and drawn up to here."""


def audit_log(body: bytes, with_states: bool) -> dict[str, Any]:
    """The verifier's report on ``body`` and, with ``with_states``, the table after each
    event (``states[i]`` after version ``i + 1``) as far as the file can be replayed."""
    records = read_log(body)
    answer: dict[str, Any] = {"report": verdict(records)}
    if with_states:
        answer["states"], answer["states_note"] = replay_states(records)
    return answer


def read_log(body: bytes) -> list[dict[str, Any]]:
    """The records of an NDJSON export; anything else is a 400 ``not_a_log``."""
    try:
        records = [json.loads(line, parse_constant=_no_constant)
                   for line in body.decode("utf-8").splitlines() if line.strip()]
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        # json.JSONDecodeError is a ValueError; so is an integer past Python's digit limit.
        raise Invalid("not_a_log", f"not an NDJSON log: {exc}") from exc
    if not records or not all(isinstance(record, dict) for record in records):
        raise Invalid("not_a_log", "not an NDJSON log: one JSON object per line, at least one")
    return records


def _no_constant(name: str) -> Any:
    """NaN and Infinity are not JSON: no log holds them, and no browser could read them back."""
    raise ValueError(f"{name} is not a JSON value")


def verdict(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``rummy verify``'s report. A log so malformed that the verifier cannot even walk it
    is refused as such (422 ``unverifiable_log``), never a server error."""
    try:
        return verify(records, VARIANTS).to_dict()
    except Exception as exc:  # any crash on untrusted input is a refusal, not a 500
        raise Rejected("unverifiable_log",
                       f"the log cannot be verified: {type(exc).__name__}: {exc}") from exc


def replay_states(records: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """The table after each event, up to the first event that cannot be folded: one the
    export redacted, or one the rules cannot apply (the note says which and why)."""
    data = records[0].get("data")
    variant = VARIANTS.get(data.get("variant", "")) if isinstance(data, dict) else None
    if variant is None:
        return [], "the log does not start with a known variant's MatchCreated"
    stored: list[StoredEvent] = []
    note = f"tables are drawn for the first {MAX_STATES} events only" \
        if len(records) > MAX_STATES else None
    for record in records[:MAX_STATES]:
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


def _fold(variant: Variant, stored: list[StoredEvent]) -> tuple[list[dict[str, Any]], str | None]:
    hands = HandIndex(stored)
    state: Any = variant.initial_state()
    clock: Clock | None = None
    states: list[dict[str, Any]] = []
    for event in stored:
        try:
            domain_event = to_domain(event)
            if event.type not in UNFOLDED_EVENTS:
                state = variant.evolve(state, domain_event)
            if clock is not None or domain_event.type == CLOCK_SET.name:
                clock = track(clock, domain_event, event.ts, event.version, state.turn,
                              len(state.players))
            states.append(_table(variant, state, clock, event.version,
                                 hands.viewer_of(event.version, Viewer.public())))
        except Exception as exc:  # a forged event may break the fold anywhere
            return states, f"version {event.version} cannot be replayed: {exc}"
    return states, None


def _table(variant: Variant, state: Any, clock: Clock | None, version: int,
           viewer: Viewer) -> dict[str, Any]:
    view = variant.view(state, viewer)
    view["version"] = version
    if clock is not None:
        view["clock"] = clock.to_view()
    return view
