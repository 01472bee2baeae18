"""An event's hash is the same whether its data is encoded by the hash or handed over
already encoded (the store's way), with a command or without, in any script."""

from __future__ import annotations

import hashlib
import json

import pytest

from domain.chain import GENESIS_HASH, canonical_json, event_hash, hash_of_encoded

DATA = {"deck": ["AS", "2C"], "seed": "ab", "fixed": {}, "name": "Zoë 🂡", "n": 3, "x": 0.5}


def _by_the_definition(body: dict) -> str:
    """The formula an auditor follows (domain.chain's docstring), written out."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("command", [None, {"type": "knock", "discard": "5S"}])
@pytest.mark.parametrize("command_id", [None, "play:1"])
def test_an_encoded_event_hashes_as_its_fields_do(command, command_id):
    body = {"version": 7, "type": "HandDealt", "schema": 2, "data": DATA,
            "command_id": command_id, "ts": 1700000000.123, "prev_hash": GENESIS_HASH}
    if command is not None:
        body["command"] = command
    expected = _by_the_definition(body)
    assert event_hash(7, "HandDealt", 2, DATA, command_id, 1700000000.123, GENESIS_HASH,
                      command) == expected
    assert hash_of_encoded(7, "HandDealt", 2, canonical_json(DATA), command_id, 1700000000.123,
                           GENESIS_HASH,
                           None if command is None else canonical_json(command)) == expected
