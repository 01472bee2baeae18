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
import math
from collections.abc import Mapping
from typing import Any

GENESIS_HASH = "0" * 64


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                              allow_nan=False)
"""``json.dumps`` with these options builds a new encoder each call; one kept encoder gives
the same text for a fraction of the cost on the small values an event's hash encodes."""


def canonical_json(value: Any) -> str:
    """The one JSON form that is hashed and stored; NaN/Infinity are refused, not hashed."""
    return _CANONICAL.encode(value)


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
    return hash_of_encoded(version, type, schema, canonical_json(dict(data)), command_id, ts,
                           prev_hash, None if command is None else canonical_json(dict(command)))


def hash_of_encoded(
    version: int, type: str, schema: int, data_json: str, command_id: str | None, ts: float,
    prev_hash: str, command_json: str | None = None,
) -> str:
    """``event_hash`` of an event whose data (and command) are already canonical JSON: the
    same bytes, since canonical JSON of the whole event is its fields' canonical JSON in
    sorted key order, written out here in that order. The store encodes an event's data
    once, for its hash and for its record."""
    head = "{" if command_json is None else '{"command":' + command_json + ","
    body = (f'{head}"command_id":{canonical_json(command_id)},"data":{data_json},'
            f'"prev_hash":{canonical_json(prev_hash)},"schema":{_number_json(schema)},'
            f'"ts":{_number_json(ts)},"type":{canonical_json(type)},'
            f'"version":{_number_json(version)}}}')
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _number_json(value: Any) -> str:
    """``canonical_json`` of a number: an int or a finite float is written with its type's
    own repr, as the encoder writes it, without building the encoder's state for one
    number (three of them an event); anything else goes to the encoder."""
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    return canonical_json(value)
