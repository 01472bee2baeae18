"""The hash chain over a match's events: how each event's hash is computed.

Pure and public, so an auditor recomputes it with no server (``rummy verify``):

    hash = SHA-256( canonical JSON of {version, type, schema, data, command_id, ts,
                                       prev_hash[, command]} )

Canonical JSON: keys sorted, separators "," and ":", UTF-8 (not ASCII-escaped), no
NaN/Infinity. ``command`` (the seat's action as sent) is hashed only when present, so
events stored before it existed keep their hashes. The first event's ``prev_hash`` is
64 zeros.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

GENESIS_HASH = "0" * 64


def canonical_json(value: Any) -> str:
    """The one JSON form that is hashed and stored; NaN/Infinity are refused, not hashed."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def event_hash(
    version: int,
    type: str,  # shadows the builtin on purpose: it is the public keyword auditors use
    schema: int,
    data: Mapping[str, Any],
    command_id: str | None,
    ts: float,
    prev_hash: str,
    command: Mapping[str, Any] | None = None,
) -> str:
    """sha256 of the canonical JSON of an event."""
    body = {
        "version": version,
        "type": type,
        "schema": schema,
        "data": dict(data),
        "command_id": command_id,
        "ts": ts,
        "prev_hash": prev_hash,
    }
    if command is not None:
        body["command"] = dict(command)
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()
