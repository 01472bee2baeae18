"""Event store adapter: one Redis stream per match, appended atomically and conditionally.

Key layout (docs/architecture.md "Events and the store"), hash-tagged by match id so every key of a
match lives in one Redis Cluster slot and one Lua script can touch them all:

- ``{prefix}:{<match_id>}:events`` stream; entry id ``<version>-0``, so XRANGE by version and
  SSE ``Last-Event-ID`` map directly onto it. Every entry has the same seven fields, so
  Redis keeps their names once per stream node: type, schema, data (canonical JSON), ts
  (integer milliseconds), hash (``domain.chain.event_hash``, 43 characters of base64),
  cmd (the command id; empty when none) and command (the seat's action as canonical JSON,
  on the first event it caused; else empty). Data and command keep their commonest pieces
  as one control character each, and a fresh command id its hex as base64
  (``entry_fields``). The previous hash is not stored: it is the hash of the entry before
  (the genesis hash before version 1), so a read from version n+1 fetches entry n too
  (``read_from``, ``decode_after``), and the stream hub's entries chain from the hashes
  this process last read or wrote (``decode``). Readers see hex hashes, float times and
  the previous hash exactly as before; only the stored bytes changed (181-194 an
  event against 395-429). Entries of the first form (every field spelled out, ``prev``
  and ``hash`` in hex, ``ts`` a float's repr, ``cmd`` and ``command`` absent when none)
  still read as written: the ``prev`` field tells them apart.
- ``{prefix}:{<match_id>}:meta`` hash: caller metadata plus the head of the chain
  (``_version``, ``_last_hash``) that the append script checks, and the nonce of the
  append that wrote it (``_last_append``: an append sent twice answers as the first).
- ``{prefix}:{<match_id>}:idem`` hash: idempotency key -> ``"<version>|<fingerprint>"``.
- ``{prefix}:matches`` sorted set (score = creation time): a derived index, written with a
  plain command outside the per-match script because a cluster-safe script may only touch
  one slot. If it is lost it can be rebuilt from the meta keys.

Tournaments are a second kind of stream in the same layout (``{prefix}:{<tournament_id>}:
events``, ``:meta``, ``:idem``), written by a second store over the same client whose
creations join ``{prefix}:tournaments`` (the ``index`` it is given) instead.

Lua has no sha256, so the client hashes: it reads the head, chains the new events from it,
and the script refuses when the head moved in between. Nothing is ever rewritten; only the
embedded mode deletes, whole finished matches (service/adapters/retention.py).
"""

from __future__ import annotations

import binascii
import functools
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from json.scanner import make_scanner
from typing import Any, cast

import redis
from redis.cluster import RedisCluster

from domain.chain import GENESIS_HASH, canonical_json, hash_of_encoded
from service.adapters import store_scripts as scripts
from service.adapters.presence import KEY_TTL_MS as LIVE_KEY_TTL_MS
from service.adapters.presence import LIVE_MAXLEN
from service.adapters.replica_acks import NO_REPLICA_ACKS, ReplicaAcks, ReplicasBehind
from service.adapters.slot_moves import SlotMoveScript
from service.adapters.store_scripts import CONFLICT, EXISTS, KEY_REUSED, OK, REPLAYED, UNKNOWN
from service.ports import (
    STARTED,
    UNMEASURED,
    Appending,
    AppendResult,
    IdempotencyKeyReused,
    IdempotencyRecord,
    Loaded,
    LobbyReply,
    MatchExists,
    MatchStart,
    Metrics,
    NewEvent,
    Reading,
    SeatClaim,
    StoredEvent,
    StoreError,
    UnknownMatch,
    VersionConflict,
)

# Meta fields owned by the store; callers may neither set nor see them through meta().
_VERSION_FIELD = "_version"
_LAST_HASH_FIELD = "_last_hash"
_LAST_APPEND_FIELD = "_last_append"
"""The nonce of the append that wrote the head, so that append sent twice knows itself."""
_RESERVED_META = frozenset({_VERSION_FIELD, _LAST_HASH_FIELD, _LAST_APPEND_FIELD})
# Idempotency: refusals share the ``idem`` hash under this prefix (a seat's keys start with
# a digit); claims of keys in flight are short-lived keys of the match's own slot.
_REFUSED = "refused:"
_CLAIM = "claim:"

# redis-py 8 defaults socket_timeout to 5 s and retries a timed-out read, so one XREAD BLOCK
# longer than the socket timeout hangs and then fails. wait() blocks in slices below both.
_MAX_BLOCK_SLICE_MS = 1000
_REMEMBERED = 8192
"""Entries' hashes a store keeps (``_remember``): a few of each match followed here."""



def _text(value: Any) -> str:
    """Replies are bytes or str depending on the client's decode_responses."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, str):
        return value
    raise StoreError(f"unexpected reply {value!r}")


def _check_new_event(event: NewEvent) -> None:
    """Refuse what could not be read back as the same fact."""
    if not isinstance(event.type, str) or not event.type:
        raise ValueError(f"event type must be a non-empty string, got {event.type!r}")
    if isinstance(event.schema, bool) or not isinstance(event.schema, int) or event.schema < 1:
        raise ValueError(f"event schema must be a positive int, got {event.schema!r}")
    if not isinstance(event.data, Mapping):
        raise TypeError(f"event data must be a mapping, got {type(event.data).__name__}")


_PLAIN = json.JSONEncoder(allow_nan=False)
"""What ``json.dumps(..., allow_nan=False)`` builds anew at each call, kept."""


@dataclass(frozen=True)
class _Chained:
    """New events numbered and hashed, and the script's ARGV that stores them."""

    events: list[StoredEvent]
    argv: list[str]


def _chain(
    events: Sequence[NewEvent], after: int, prev_hash: str, command_id: str | None, ts: float,
    command: Mapping[str, Any] | None = None,
) -> _Chained:
    """Number and hash new events after (after, prev_hash), and encode them for the script.

    Data is hashed as JSON gives it back (``_as_read``), so the hash covers exactly what
    read() will return (tuples become lists, int keys become strings) and the returned
    events equal the read ones. The canonical JSON that is hashed is the one stored
    (encoded once: a worker appends a whole deck with every hand it deals).
    """
    if command_id == "":
        raise ValueError("a command id is None or a non-empty string (empty is stored as none)")
    chained, argv = [], []
    for offset, event in enumerate(events, start=1):
        _check_new_event(event)
        data, data_json = _as_read(event.data)
        version = after + offset
        sent, sent_json = _as_read(command) if (
            command is not None and offset == 1) else (None, None)
        digest = hash_of_encoded(version, event.type, event.schema, data_json, command_id, ts,
                                 prev_hash, sent_json)
        stored = StoredEvent(version, event.type, event.schema, data, command_id, ts,
                             prev_hash, digest, sent)
        chained.append(stored)
        argv += _encoded(stored, data_json, sent_json)
        prev_hash = digest
    return _Chained(chained, argv)


def _as_read(value: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """A mapping as a read will give it back, and its canonical JSON.

    Plain JSON data (the domain's events) is encoded once: what decoding gives back then
    equals it, and its canonical JSON is the one just written. Anything else (tuples, int
    keys: equal to nothing JSON gives back) is encoded again from what JSON made of it,
    since the canonical order of keys that were ints is the order of strings. Keys of
    mixed types cannot even be sorted before JSON turns them into strings: those are
    made plain JSON first."""
    plain = value if type(value) is dict else dict(value)
    try:
        encoded = canonical_json(plain)
    except TypeError:
        as_read = _json(_PLAIN.encode(plain))
        return as_read, canonical_json(as_read)
    as_read = _json(encoded)
    return as_read, encoded if as_read == plain else canonical_json(as_read)


_ENTRY_FIELDS = 7
"""Every entry written has the same fields in the same order, so the stream's listpack
stores their names once per node (an entry whose fields equal its node's first entry's
is flagged and written without them)."""


def _encoded(event: StoredEvent, data_json: str, command_json: str | None) -> list[str]:
    """One event in the script's ARGV layout: id, field count, field/value pairs."""
    fields = entry_fields(event, data_json, command_json)
    return [f"{event.version}-0", str(_ENTRY_FIELDS),
            *(item for pair in fields.items() for item in pair)]


def entry_fields(event: StoredEvent, data_json: str | None = None,
                 command_json: str | None = None) -> dict[str, str]:
    """The stream entry's fields of an event (its data and command as canonical JSON when
    the caller has them already).

    What can be derived is not stored: the previous hash is the previous entry's hash
    (the first event's is the genesis hash). The hash is kept as base64, the time as
    integer milliseconds, the command id shorter (``_stored_command_id``), the data and
    the command with their commonest pieces one character each (``_FRAGMENTS``); an
    absent command id or command is an empty string."""
    if data_json is None:
        data_json = canonical_json(event.data)
    if command_json is None and event.command is not None:
        command_json = canonical_json(event.command)
    return {
        "type": event.type,
        "schema": str(event.schema),
        "data": _packed_json(data_json),
        "ts": _stored_ts(event.ts),
        "hash": _short_hash(event.hash),
        "cmd": _stored_command_id(event.command_id),
        "command": _packed_json(command_json or ""),
    }


_FRAGMENTS = (
    ',"seat":',
    '{"card":"',
    '{"action":',
    ',"type":"',
    'discard"',
    ',"source":"',
    '{"source":"',
    ',"represents":[',
    '"cards":[',
    'draw"}',
    'stock"',
    ',"kind":"',
    '],"depth":',
    ',"meld":',
    ',"represents":"',
    ',"unmatched":[',
    ',"result":{',
    '],"id":',
    ',"points":',
    '{"deadwood":',
    '{"melds":[',
    ',"result":"',
    'run"',
    ',"defender_deadwood":',
    '],"layoffs":[',
    'lay_off"}',
    ',"knocker_deadwood":',
    'set"',
    '"melds":[',
    ',"hand_number":',
    ']}],"opening":',
)
"""The commonest pieces of the events' canonical JSON (data and commands), measured on
played matches of every variant; each is stored as one control character, ``chr(1)`` for
the first. Canonical JSON escapes every control character, so none stands for itself and
the substitution is undone exactly. The table is part of the stored form: a different one
would be a new form, told apart by new field names."""
_EXPAND = {index: fragment for index, fragment in enumerate(_FRAGMENTS, start=1)}


def _packed_json(canonical: str) -> str:
    """Canonical JSON with each of ``_FRAGMENTS`` replaced by its control character."""
    for index, fragment in enumerate(_FRAGMENTS, start=1):
        if fragment in canonical:
            canonical = canonical.replace(fragment, chr(index))
    return canonical


@functools.lru_cache(maxsize=4096)
def _unpacked_json(stored: str) -> str:
    """``_packed_json`` undone. Kept for the strings seen last: a move's data and command
    recur across matches (a card drawn from the stock by seat 1), and a hit costs a tenth
    of the translation."""
    return stored.translate(_EXPAND)


_HEX_ID = re.compile(r"(.*):([0-9a-f]{32})", re.DOTALL)


def _stored_command_id(command_id: str | None) -> str:
    """A command id as stored: empty for none; an id that ends in 32 lowercase hex digits
    (a fresh id's uuid) marked ``~`` with them as 22 base64 characters; an id that
    starts with a marker (``~``, ``=``) escaped with ``=``; any other as it is."""
    if command_id is None:
        return ""
    hex_id = _HEX_ID.fullmatch(command_id)
    if hex_id is not None:
        short = binascii.b2a_base64(bytes.fromhex(hex_id[2]), newline=False).decode()[:22]
        return f"~{hex_id[1]}:{short}"
    return "=" + command_id if command_id[:1] in ("~", "=") else command_id


def _read_command_id(stored: str) -> str | None:
    """The command id ``_stored_command_id`` kept."""
    if not stored:
        return None
    if stored[0] == "~":
        prefix, _, short = stored[1:].rpartition(":")
        return f"{prefix}:{binascii.a2b_base64(short + '==').hex()}"
    return stored[1:] if stored[0] == "=" else stored


def _stored_ts(ts: float) -> str:
    """Integer milliseconds when they give back exactly this float (the store's clock
    rounds to the millisecond, so always for its own events), else the float's repr."""
    millis = round(ts * 1000)
    return str(millis) if millis / 1000 == ts else repr(ts)


def _read_ts(stored: str) -> float:
    """The float ``_stored_ts`` kept: a repr has a dot or an exponent, an int never."""
    try:
        return int(stored) / 1000
    except ValueError:
        return float(stored)


def _short_hash(hex_hash: str) -> str:
    """The 32 bytes of a SHA-256 hex digest as 43 characters of unpadded base64 (the
    standard alphabet: binascii reads it back fastest)."""
    return binascii.b2a_base64(bytes.fromhex(hex_hash), newline=False).decode()[:43]


def _hex_hash(stored: str) -> str:
    """A stored hash as the hex every reader sees (entries written before the short form
    hold the hex itself)."""
    if len(stored) == 64:
        return stored
    return binascii.a2b_base64(stored + "=").hex()


def _fields(raw: Mapping[Any, Any]) -> dict[str, str]:
    """An entry's fields as text. A client that does not decode replies gives bytes only:
    those are decoded inline, which halves the cost of reading a long log."""
    if raw and isinstance(next(iter(raw)), bytes):
        return {key.decode(): value.decode() for key, value in raw.items()}
    return {_text(key): _text(value) for key, value in raw.items()}


def _entry_version(entry_id: Any) -> int:
    return int(_text(entry_id).split("-", 1)[0])


_SCAN: Callable[[str, int], tuple[Any, int]] = make_scanner(
    cast(Any, json.JSONDecoder()))  # typeshed types the argument as the scanner itself


def _json(text: str) -> Any:
    """``json.loads`` of the store's own JSON, by the C scanner ``json.loads`` ends in: its
    checks and whitespace handling cost twice the parse on an event's short data. Text the
    scanner does not read whole goes to ``json.loads``, which refuses it as before."""
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


def _decode(entry_id: Any, fields: Mapping[str, str], prev_hash: str) -> StoredEvent:
    """Rebuild a StoredEvent from one entry's fields; ``prev_hash`` is the hash of the
    entry before it, which entries in the compact form do not repeat. Entries written
    before it (they hold a ``prev`` field) are read as they were written."""
    if "prev" in fields:
        return _decode_verbose(entry_id, fields)
    command = fields["command"]
    return StoredEvent(
        version=_entry_version(entry_id),
        type=fields["type"],
        schema=int(fields["schema"]),
        data=_json(_unpacked_json(fields["data"])),
        command_id=_read_command_id(fields["cmd"]),
        ts=_read_ts(fields["ts"]),
        prev_hash=prev_hash,
        hash=_hex_hash(fields["hash"]),
        command=_json(_unpacked_json(command)) if command else None,
    )


def _decode_verbose(entry_id: Any, fields: Mapping[str, str]) -> StoredEvent:
    """An entry of the first form: every field spelled out, ``prev`` and ``hash`` in hex,
    ``ts`` a float's repr, ``cmd`` and ``command`` absent when there were none."""
    return StoredEvent(
        version=_entry_version(entry_id),
        type=fields["type"],
        schema=int(fields["schema"]),
        data=_json(fields["data"]),
        command_id=fields.get("cmd"),
        ts=float(fields["ts"]),
        prev_hash=fields["prev"],
        hash=fields["hash"],
        command=_json(fields["command"]) if "command" in fields else None,
    )


def decode_after(after: int, entries: Sequence[Any]) -> list[StoredEvent]:
    """The events of an XRANGE that started at version ``after`` itself (``read_from``):
    that entry only lends its hash, the previous hash of the first event returned. From
    version 1 (``after`` 0) the chain starts at the genesis hash."""
    return _decoded_after(after, entries)[0]


def _decoded_after(after: int, entries: Sequence[Any]) -> tuple[list[StoredEvent], str | None]:
    """``decode_after``'s events, and the hash of the last entry read (None: none read)."""
    prev_hash, last_hash = GENESIS_HASH, None
    events: list[StoredEvent] = []
    for entry_id, raw in entries:
        if raw and b"hash" in raw and b"prev" not in raw:
            version = int(entry_id.split(b"-", 1)[0])
            if version <= after:
                prev_hash = last_hash = _hex_hash(raw[b"hash"].decode())
                continue
            event = _decode_compact(version, raw, prev_hash)
        else:
            fields = _fields(raw or {})
            if _entry_version(entry_id) <= after:
                prev_hash = last_hash = _hex_hash(fields["hash"])
                continue
            event = _decode(entry_id, fields, prev_hash)
        events.append(event)
        prev_hash = last_hash = event.hash
    return events, last_hash


def _decode_compact(version: int, raw: Mapping[bytes, bytes], prev_hash: str) -> StoredEvent:
    """``_decode`` of an entry of the compact form as a client that does not decode replies
    reads it (bytes): each value decoded where it lies, without a dict of decoded fields
    first, which costs a third of reading a cold match's log."""
    cmd, command = raw[b"cmd"], raw[b"command"]
    return StoredEvent(
        version, raw[b"type"].decode(), int(raw[b"schema"]),
        _json(_unpacked_bytes(raw[b"data"])),
        _read_command_id(cmd.decode()) if cmd else None, _read_ts(raw[b"ts"].decode()),
        prev_hash, _hex_hash(raw[b"hash"].decode()),
        _json(_unpacked_bytes(command)) if command else None)


@functools.lru_cache(maxsize=4096)
def _unpacked_bytes(stored: bytes) -> str:
    """``_unpacked_json`` of a value as read (bytes), kept as that one is."""
    return stored.decode("utf-8").translate(_EXPAND)


def read_from(after: int) -> str:
    """The first entry id to read for the events after version ``after``: the entry at
    ``after`` too, whose hash the next event's previous hash is (``decode_after``)."""
    return f"{max(after, 1)}-0"


def _caller_meta(raw: Mapping[Any, Any] | None) -> dict[str, str] | None:
    """A meta hash as callers see it (store-internal fields left out); None when empty."""
    if not raw:
        return None
    fields = {_text(key): _text(value) for key, value in raw.items()}
    return {key: value for key, value in fields.items() if key not in _RESERVED_META}


def _check_meta(fields: Mapping[str, str]) -> list[str]:
    """Validate caller metadata and flatten it into field/value pairs."""
    pairs: list[str] = []
    for key, value in fields.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"meta fields and values must be str, got {key!r}: {value!r}")
        if key in _RESERVED_META:
            raise ValueError(f"meta field {key!r} is reserved by the event store")
        pairs += [key, value]
    return pairs


class RedisEventStore:
    """Event store over redis-py; works on Redis, Redis Cluster key layout and fakeredis."""

    def __init__(
        self, client: redis.Redis, prefix: str = "rummy", clock: Callable[[], float] = time.time,
        index: str = "matches", metrics: Metrics = UNMEASURED,
        acks: ReplicaAcks = NO_REPLICA_ACKS,
    ) -> None:
        """``metrics`` counts every round trip to Redis by operation (``_trip``); ``acks``
        says how many replicas confirm each write script before it returns."""
        if not prefix or "{" in prefix or "}" in prefix:
            raise ValueError(f"prefix must be non-empty and brace-free, got {prefix!r}")
        self._client = client
        self._prefix = prefix
        self._index = index
        self._clock = clock
        self._metrics = metrics
        self._acks = acks
        self._create_script = SlotMoveScript(client, scripts.CREATE, acks)
        self._append_script = SlotMoveScript(client, scripts.APPEND, acks)
        self._claim_script = SlotMoveScript(client, scripts.CLAIM, acks)
        self._rotate_script = SlotMoveScript(client, scripts.ROTATE, acks)
        self._leave_script = SlotMoveScript(client, scripts.LEAVE, acks)
        self._abandon_script = SlotMoveScript(client, scripts.ABANDON, acks)
        self._recent: dict[tuple[str, int], str] = {}
        self._recent_lock = threading.Lock()

    # -- keys -------------------------------------------------------------------------------

    def _key(self, match_id: str, suffix: str) -> str:
        """Per-match key; the {match_id} hash tag keeps a match in one Cluster slot."""
        if not isinstance(match_id, str) or not match_id or "{" in match_id or "}" in match_id:
            raise ValueError(f"match id must be a non-empty, brace-free string: {match_id!r}")
        return f"{self._prefix}:{{{match_id}}}:{suffix}"

    def _index_key(self) -> str:
        """The creation-time index this store's streams join (one per aggregate kind)."""
        return f"{self._prefix}:{self._index}"

    def _trip(self, operation: str) -> None:
        """One round trip to Redis for ``operation`` (a script call, a command)."""
        self._metrics.store_round_trip(self._index, operation)

    def _now(self) -> float:
        """Server time in epoch seconds, millisecond precision, always a float.

        A float (never an int) so that the value hashed equals the value read back.
        """
        return round(float(self._clock()), 3)

    # -- writes -----------------------------------------------------------------------------

    def decode(self, match_id: str, entry_id: str, fields: Mapping[Any, Any]) -> StoredEvent:
        """An events-key entry as the stream hub delivered it. Its previous hash is the
        hash of the entry before it, which this process has nearly always just read or
        written (``_remember``); else it reads that one entry."""
        found = _fields(fields)
        version = _entry_version(entry_id)
        if "prev" in found:
            event = _decode_verbose(entry_id, found)
        else:
            event = _decode(entry_id, found, self._hash_before(match_id, version))
        self._remember(match_id, [(event.version, event.hash)])
        return event

    @staticmethod
    def first_entry(after: int) -> str:
        """The first entry id a read of the events after ``after`` asks for (``read_from``)."""
        return read_from(after)

    def decode_read(self, match_id: str, after: int, entries: Sequence[Any]) -> list[StoredEvent]:
        """The events after ``after`` of an XRANGE from ``read_from(after)`` (the stream
        hub's first read of a match goes through here too)."""
        events, last_hash = _decoded_after(after, entries)
        if last_hash is not None:
            self._remember(match_id, [(_entry_version(entries[-1][0]), last_hash)])
        return events

    def _hash_before(self, match_id: str, version: int) -> str:
        """The hash of the entry before ``version``, remembered or read."""
        if version <= 1:
            return GENESIS_HASH
        with self._recent_lock:
            known = self._recent.get((match_id, version - 1))
        if known is not None:
            return known
        entry = f"{version - 1}-0"
        self._trip("read")
        entries = self._client.xrange(self._key(match_id, "events"), entry, entry) or []
        if not entries:
            raise StoreError(f"match {match_id!r} has no event {version - 1} before {version}")
        return _hex_hash(_fields(entries[0][1] or {})["hash"])

    def _wrote(self, match_id: str, stored: Sequence[StoredEvent]) -> None:
        """Remember what an append wrote, and the hash it chained from: the stream hub
        delivers those entries to this process's streams next."""
        if stored:
            self._remember(match_id, [(stored[0].version - 1, stored[0].prev_hash),
                                      *((event.version, event.hash) for event in stored)])

    def _remember(self, match_id: str, hashes: Sequence[tuple[int, str]]) -> None:
        """Keep the newest entries' hashes read or written here, which the stream hub's
        next entries of the match chain from (a bounded, first-in first-out memory)."""
        with self._recent_lock:
            for version, digest in hashes:
                self._recent[(match_id, version)] = digest
            while len(self._recent) > _REMEMBERED:
                del self._recent[next(iter(self._recent))]

    def answers(self) -> bool:
        """Whether Redis answers (readiness; ``unready`` says why not)."""
        return self.unready() is None

    def unready(self) -> str | None:
        """Why the store cannot serve now, or None when it can: a plain Redis must answer a
        ping; on a Redis Cluster every master must answer ``CLUSTER INFO`` with
        ``cluster_state:ok`` (a master down leaves its slots unserved, and the others say
        ``fail`` once they notice)."""
        client: Any = self._client
        try:
            if not isinstance(client, RedisCluster):
                return None if client.ping() else "Redis does not answer"
            infos = cast(dict[str, dict[str, str]],  # one INFO per master, by node name
                         client.cluster_info(target_nodes=RedisCluster.PRIMARIES))
        except redis.RedisError as exc:
            return f"Redis does not answer: {exc}"
        failing = sorted(node for node, info in infos.items()
                         if info.get("cluster_state") != "ok")
        if failing:
            return f"cluster_state is not ok on {', '.join(failing)}"
        return None

    def create(
        self,
        match_id: str,
        events: Sequence[NewEvent],
        meta: Mapping[str, str],
        *,
        command_id: str | None = None,
    ) -> AppendResult:
        """Atomically write a new match's meta and first events (versions 1..n).

        No events is allowed (the match then starts at version 0); the id joins the index.
        """
        keys = [self._key(match_id, "events"), self._key(match_id, "meta")]
        pairs = _check_meta(meta)
        now = self._now()
        chained = _chain(events, 0, GENESIS_HASH, command_id, now)
        stored = chained.events
        last_hash = stored[-1].hash if stored else GENESIS_HASH
        args = [str(len(stored)), last_hash, str(len(pairs) // 2), *pairs, str(len(stored))]
        self._trip("create")
        reply = self._create_script(keys=keys, args=args + chained.argv)
        if int(reply[0]) == EXISTS:
            raise MatchExists(match_id)
        # Derived index, outside the per-match script (cluster-safe); rebuildable if lost.
        self._trip("index")
        self._client.zadd(self._index_key(), {match_id: now})
        self._wrote(match_id, stored)
        return AppendResult(version=len(stored), events=tuple(stored))

    def claim_seat(
        self,
        match_id: str,
        seat: int,
        token_hash: str,
        fields: Mapping[str, str],
        lobby_ttl_s: int,
        start: MatchStart | None = None,
    ) -> SeatClaim:
        """Claim an open seat of a waiting match (its ``lobby`` hash) in one script.

        ``start`` (the first events and the meta) is sent by a caller who read this seat as
        the last open one: the match is then created in the same script, with every seat's
        token hash taken from the lobby, and the lobby is deleted. A claim that turns out
        to be the last without ``start``, or with one decided from an older revision of the
        lobby, changes nothing and says ``NEED_START``.
        """
        keys = [self._key(match_id, suffix) for suffix in ("lobby", "events", "meta")]
        args = [str(seat), token_hash, str(lobby_ttl_s), str(len(fields)),
                *(item for pair in fields.items() for item in pair)]
        stored: list[StoredEvent] = []
        if start is None:
            args.append("0")
        else:
            pairs = _check_meta(start.meta)
            chained = _chain(start.events, 0, GENESIS_HASH, f"create:{match_id}", self._now())
            stored = chained.events
            last_hash = stored[-1].hash if stored else GENESIS_HASH
            args += ["1", start.revision, str(len(stored)), last_hash, str(len(pairs) // 2), *pairs,
                     str(len(stored)), *chained.argv]
        self._trip("claim_seat")
        reply = self._claim_script(keys=keys, args=args)
        status = int(reply[0])
        if status == STARTED:
            self._trip("index")
            self._client.zadd(self._index_key(), {match_id: stored[0].ts if stored else 0})
            self._wrote(match_id, stored)
            return SeatClaim(status, version=len(stored), events=tuple(stored))
        if status == EXISTS:
            raise MatchExists(match_id)
        return SeatClaim(status, open_seats=int(reply[1]) if len(reply) > 1 else None)

    def rotate_seat_token(self, match_id: str, seat: int, token_hash: str) -> str | None:
        """Replace a seat's token hash (in the meta, or the lobby of a waiting match) and
        announce the old one revoked to the match's live streams; returns the old hash,
        None when the seat has no token (open, or no such seat)."""
        keys = [self._key(match_id, "lobby"), self._key(match_id, "meta"),
                self._key(match_id, "live")]
        self._trip("rotate_seat_token")
        old = _text(self._rotate_script(keys=keys, args=[str(seat), token_hash, LIVE_MAXLEN,
                                                         LIVE_KEY_TTL_MS]))
        return old or None

    def leave_seat(self, match_id: str, seat: int, token_hash: str,
                   reply: LobbyReply | None = None) -> SeatClaim:
        """Give back an open seat the holder of ``token_hash`` claimed, while the match
        waits (``store_scripts.LEAVE``): ``LEFT`` with the open seats now, or why not.
        ``reply``: where the outcome is kept for retries, in the same step."""
        keys = [self._key(match_id, "lobby"), self._key(match_id, "live")]
        self._trip("leave_seat")
        done = self._leave_script(keys=keys, args=[str(seat), token_hash, LIVE_MAXLEN,
                                                   LIVE_KEY_TTL_MS, *_reply_args(reply)])
        return SeatClaim(int(done[0]), open_seats=int(done[1]) if len(done) > 1 else None)

    def abandon_waiting(self, match_id: str, reason: str, by: str,
                        reply: LobbyReply | None = None) -> bool | None:
        """Call off a match that waits for players (``store_scripts.ABANDON``): True when
        this call did, False when it was called off already, None when no such match
        waits (it started, expired, or never was). ``reply`` as for ``leave_seat``."""
        keys = [self._key(match_id, "lobby"), self._key(match_id, "live")]
        self._trip("abandon_waiting")
        done = self._abandon_script(keys=keys, args=[reason, by, repr(self._now()),
                                                     LIVE_MAXLEN, LIVE_KEY_TTL_MS,
                                                     *_reply_args(reply)])
        status = int(done[0])
        return None if status == 10 else status == 0

    def append(
        self,
        match_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        command_id: str | None = None,
        idempotency_key: str | None = None,
        fingerprint: str = "",
        prev_hash: str | None = None,
        command: Mapping[str, Any] | None = None,
    ) -> AppendResult:
        """Append events if the match is still at expected_version (one atomic script).

        A known idempotency key with the same fingerprint replays the first result and appends
        nothing; with another fingerprint it raises IdempotencyKeyReused. ``prev_hash``, the
        hash of the event at expected_version when the caller has read it, saves a round
        trip; the script refuses a wrong one like a moved version. ``command``, the action
        that caused the events, is stored (and hashed) with the first of them.
        """
        keys, args, stored = self._appending(
            Appending(match_id, expected_version, tuple(events), command_id, prev_hash,
                      command), idempotency_key, fingerprint)
        self._trip("append")
        reply = self._append_script(keys=keys, args=args)
        return self._append_outcome(match_id, expected_version, idempotency_key, reply, stored)

    def append_many(self, appends: Sequence[Appending]) -> list[AppendResult | Exception]:
        """Many matches' ``append``s (no idempotency key) in one pipeline: a worker writes
        what it decided for its batch at once. Each script touches one match's keys, so
        every call stays in one slot; a Redis Cluster, whose pipelines take no scripts
        here, gets them one by one, and so do appends that replicas must confirm
        (``RUMMY_REPLICA_ACKS``: each with its own ``WAIT``). Each answer is its append's
        result or the error it raised (``VersionConflict``, ``UnknownMatch``,
        ``ReplicasBehind``), in order."""
        if isinstance(self._client, RedisCluster) or len(appends) < 2 or self._acks.asked:
            return [self._append_or_error(each) for each in appends]
        prepared = [self._appending(each, None, "") for each in appends]
        self._trip("append_many")
        replies = self._append_script.many([(keys, args) for keys, args, _ in prepared])
        results: list[AppendResult | Exception] = []
        for each, (_, _, stored), reply in zip(appends, prepared, replies, strict=True):
            if isinstance(reply, Exception):  # this match's script failed, not the others'
                results.append(StoreError(str(reply)))
                continue
            try:
                results.append(self._append_outcome(each.match_id, each.expected_version,
                                                    None, reply, stored))
            except StoreError as refused:
                results.append(refused)
        return results

    def _append_or_error(self, each: Appending) -> AppendResult | Exception:
        """One append of a batch; a refusal, or replicas that did not confirm it, is that
        append's answer rather than the batch's (the others were written)."""
        try:
            return self.append(each.match_id, each.expected_version, each.events,
                               command_id=each.command_id, prev_hash=each.prev_hash,
                               command=each.command)
        except (StoreError, ReplicasBehind) as refused:
            return refused

    def _appending(self, each: Appending, idempotency_key: str | None,
                   fingerprint: str) -> tuple[list[str], list[str], list[StoredEvent]]:
        """The append script's keys and arguments, and the events as they will be stored."""
        if not each.events:
            raise ValueError("append needs at least one event")
        keys = [self._key(each.match_id, suffix) for suffix in ("events", "meta", "idem")]
        head_hash = each.prev_hash if each.prev_hash is not None else self._last_hash(keys[1])
        chained = _chain(each.events, each.expected_version, head_hash, each.command_id,
                         self._now(), each.command)
        stored = chained.events
        args = [
            str(each.expected_version), head_hash,
            "0" if idempotency_key is None else "1", idempotency_key or "", fingerprint,
            str(stored[-1].version), stored[-1].hash, str(len(stored)), secrets.token_hex(8),
            *chained.argv,
        ]  # fmt: skip
        return keys, args, stored

    def _last_hash(self, meta_key: str) -> str:
        """Hash to chain from; the script refuses if it (or the version) moved since."""
        self._trip("head")
        last_hash = self._client.hget(meta_key, _LAST_HASH_FIELD)
        return GENESIS_HASH if last_hash is None else _text(last_hash)

    def _append_outcome(
        self,
        match_id: str,
        expected_version: int,
        idempotency_key: str | None,
        reply: Sequence[Any],
        stored: list[StoredEvent],
    ) -> AppendResult:
        """Turn the script's status code into a result or the matching StoreError."""
        status = int(reply[0])
        if status == OK:
            self._wrote(match_id, stored)
            return AppendResult(version=int(reply[1]), events=tuple(stored))
        if status == REPLAYED:
            return AppendResult(version=int(reply[1]), events=(), replayed=True)
        if status == UNKNOWN:
            raise UnknownMatch(match_id)
        if status == KEY_REUSED:
            raise IdempotencyKeyReused(
                f"idempotency key {idempotency_key!r} of match {match_id!r} was used "
                "by a different request"
            )
        if status == CONFLICT:
            raise VersionConflict(expected_version, int(reply[1]))
        raise StoreError(f"unexpected append script reply {reply!r}")

    def read(self, match_id: str, after: int = 0, until: int | None = None) -> list[StoredEvent]:
        """Events with after < version <= until (to the end when until is None)."""
        after = max(after, 0)
        if until is not None and until <= after:
            return []
        high = "+" if until is None else f"{until}-0"
        self._trip("read")
        entries = self._client.xrange(self._key(match_id, "events"), read_from(after), high)
        return self.decode_read(match_id, after, entries or [])

    def meta(self, match_id: str) -> dict[str, str] | None:
        """Caller metadata of a match (store-internal fields left out); None when unknown."""
        self._trip("meta")
        return _caller_meta(self._client.hgetall(self.meta_key(match_id)))

    def meta_key(self, match_id: str) -> str:
        """The match's meta hash, for a reader that reads it beside other keys of the match
        (presence's ``with_meta_and_events``); ``decode_meta`` reads what it holds."""
        return self._key(match_id, "meta")

    @staticmethod
    def decode_meta(raw: Mapping[Any, Any] | None) -> dict[str, str] | None:
        """``meta``'s answer from the hash as read."""
        return _caller_meta(raw)

    def read_many(self, reads: Sequence[Reading]) -> list[Loaded]:
        """Many logs' newer events (and metas) in one pipeline: a worker loads the batch of
        matches it claimed at once. Each command reads one key, so on a Redis Cluster the
        pipeline splits by node and stays cluster-safe."""
        if not reads:
            return []
        with self._client.pipeline(transaction=False) as pipe:
            for reading in reads:
                if reading.with_meta:
                    pipe.hgetall(self._key(reading.match_id, "meta"))
                pipe.xrange(self._key(reading.match_id, "events"), read_from(reading.after))
            self._trip("read_many")
            replies = iter(pipe.execute())
        loaded = []
        for reading in reads:
            meta = _caller_meta(next(replies)) if reading.with_meta else None
            events = self.decode_read(reading.match_id, max(reading.after, 0), next(replies) or [])
            loaded.append(Loaded(events, meta))
        return loaded

    def add_meta(self, match_id: str, fields: Mapping[str, str]) -> None:
        """Add caller metadata to an existing log (a tournament entrant's token hash: kept
        before the event that names it, so the event never points at nothing)."""
        pairs = _check_meta(fields)
        self._trip("add_meta")
        self._client.hset(self._key(match_id, "meta"),
                          mapping=dict(zip(pairs[::2], pairs[1::2], strict=True)))

    def match_ids(self, offset: int = 0, limit: int = 100) -> list[str]:
        """Match ids, newest first, from the derived index."""
        if limit <= 0:
            return []
        start = max(offset, 0)
        self._trip("ids")
        ids = self._client.zrevrange(self._index_key(), start, start + limit - 1)
        return [_text(match_id) for match_id in ids]

    def idempotency_outcome(self, match_id: str, key: str) -> IdempotencyRecord | None:
        """What the first request with this key ended in: events appended, or a refusal."""
        self._trip("idempotency")
        appended, refused = self._client.hmget(self._key(match_id, "idem"), key,
                                               _REFUSED + key)
        if appended is not None:
            version, _, fingerprint = _text(appended).partition("|")
            return IdempotencyRecord(fingerprint, version=int(version))
        if refused is not None:
            fingerprint, _, body = _text(refused).partition("|")
            return IdempotencyRecord(fingerprint, refusal=json.loads(body))
        return None

    def record_refusal(self, match_id: str, key: str, fingerprint: str,
                       refusal: Mapping[str, Any]) -> None:
        """Keep the refusal a key's first request got, so its retries get it too."""
        self._trip("idempotency")
        self._client.hsetnx(self._key(match_id, "idem"), _REFUSED + key,
                            f"{fingerprint}|{canonical_json(dict(refusal))}")

    def claim_idempotency(self, match_id: str, key: str, ttl_ms: int) -> bool:
        """Take the key for one request in flight; False when another holds it. The claim
        lapses after ``ttl_ms``, so a request that died frees its key."""
        self._trip("idempotency")
        return bool(self._client.set(self._key(match_id, _CLAIM + key), "1", nx=True,
                                     px=ttl_ms))

    def release_idempotency(self, match_id: str, key: str) -> None:
        self._trip("idempotency")
        self._client.delete(self._key(match_id, _CLAIM + key))

    @property
    def client(self) -> redis.Redis:
        """The Redis connection (health checks, job queue)."""
        return self._client

    @property
    def prefix(self) -> str:
        return self._prefix

    def events_key(self, match_id: str) -> str:
        """The match's event stream key, for readers that block on it (the stream hub)."""
        return self._key(match_id, "events")

    def key(self, match_id: str, suffix: str) -> str:
        """A per-match key for data derived from the match (same Cluster slot)."""
        if suffix in ("events", "meta", "idem"):
            raise ValueError(f"{suffix!r} belongs to the event store")
        return self._key(match_id, suffix)


def _reply_args(reply: LobbyReply | None) -> list[str]:
    return ["", ""] if reply is None else [reply.field, reply.fingerprint]


def block_slice_ms(client: redis.Redis) -> int:
    """Longest single XREAD BLOCK that stays well inside the client's socket timeout."""
    return _block_slice_ms(client)


def _block_slice_ms(client: redis.Redis) -> int:
    """Longest single XREAD BLOCK that stays well inside the client's socket timeout."""
    kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", {})
    socket_timeout = kwargs.get("socket_timeout")
    if not socket_timeout:
        return _MAX_BLOCK_SLICE_MS
    return max(1, min(_MAX_BLOCK_SLICE_MS, int(socket_timeout * 1000 / 2)))
