"""Reading an uploaded log (``POST /v1/audits``) line by line as it arrives, within limits.

Anybody may upload, so one upload must cost a bounded, small amount of work and memory
(8 MiB of ``{}`` lines took a core for seconds; a stalled upload of small objects held
140 MiB of them). Each line is checked the moment it is complete and written to a spool
(a file, ``ports.Spool``), and the first line that is not a record ends the reading: the
rest of the body is never read. The verifier reads the spool once the body has ended.

The limits are chosen from real exports (``bench/audits.py``, docs/audit-and-replay.md):
a 6-player rummy match at the most rounds its options allow is about 12,000
events, 5.3 MB, lines of at most 2.5 KB; a gin match to 500 about 3,000 events. Longer
logs are verified offline, ``rummy verify FILE``, without limits.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from service.ports import Spool
from service.usecases.errors import Invalid, Rejected, TooLarge

MAX_LOG_BYTES = 6 * 1024 * 1024
"""The largest body read: the longest real log (rummy, 100 rounds, 6 players) is 5.3 MB."""
MAX_LOG_LINES = 15_000
"""Lines at most (one event a line; blank lines count too, so they cost nothing either):
the longest real log has about 12,000."""
MAX_LINE_BYTES = 128 * 1024
"""The longest line: a real event is at most a few kilobytes (2.5 KB measured)."""
MAX_GUESSED_MOVES = 1_500
"""Seats' moves recorded without their command (the exports of the first release), at
most: the verifier finds each such move by trying every legal action (a third of a
millisecond a move in 6-player rummy, measured). The golden logs of the first release
have 243 and 262."""

FIELDS: dict[str, tuple[type, ...]] = {
    "version": (int,), "type": (str,), "schema": (int,), "ts": (int, float),
    "prev_hash": (str,), "hash": (str,), "data": (dict,)}
"""What the verifier reads of every record (``domain.audit``), and its JSON type."""
OPTIONAL: dict[str, tuple[type, ...]] = {
    "command_id": (str, type(None)), "command": (dict, type(None)), "redacted": (bool,)}
"""Fields a record may lack (older exports have no command), of these types when present."""


def spool_records(chunks: Iterable[bytes], spool: Spool) -> int:
    """Check each line of the NDJSON log arriving in ``chunks`` and write it to ``spool``;
    the number of records. Read only as far as needed, and nothing kept but the line being
    read and what the next line's checks need (the previous record's command id): the
    memory an upload holds while it arrives does not grow with it.

    Refused as soon as it is known, naming the line: a line that is not a JSON object is
    a 400 ``not_a_log``; a record without a field the verifier needs a 422
    ``unverifiable_log``; a body, a line or a log past its limit a 413
    (``payload_too_large``, ``line_too_long``, ``log_too_long``: too many lines, or too
    many moves without their command).
    """
    records = guessed = 0
    previous: object = NO_RECORD
    for number, line in _lines(chunks):
        if not line.strip():
            continue
        previous, move = _checked(number, line, previous)
        guessed += move
        if guessed > MAX_GUESSED_MOVES:
            raise TooLarge("log_too_long", f"line {number}: more than "
                           f"{MAX_GUESSED_MOVES} moves recorded without their command "
                           "(an export of the first release), each of which the "
                           "verifier must search for: verify it with `rummy verify FILE`")
        spool.write(line)
        records += 1
    if not records:
        raise Invalid("not_a_log", "not an NDJSON log: one JSON object per line, at least one")
    return records


def _checked(number: int, line: bytes, previous: object) -> tuple[object, bool]:
    """Line ``number``'s command id, and whether it begins a move recorded without its
    command; the parsed record goes when this returns, so a reading that waits for the
    network holds none (one line can hold 3 MiB of objects)."""
    record = _record(number, line)
    return record.get("command_id"), _guessed(previous, record)


NO_RECORD = object()
"""The command id "before" the first record: none at all, unlike a record's null."""


def _guessed(previous: object, record: dict[str, Any]) -> bool:
    """Whether the verifier must search the legal actions for the seat's move ``record``
    begins (``domain.audit``: ``_inferred_action``): the first event of a move carries its
    command, the others (a rebuilt stock, an ended hand) never do. ``previous`` is the
    previous record's command id."""
    command_id = record.get("command_id")
    return (str(command_id or "").startswith("seat")
            and (previous is NO_RECORD or previous != command_id)
            and not isinstance(record.get("command"), dict) and not record.get("redacted"))


def refuse_declared(length: int | None) -> None:
    """Refuse a body whose declared ``Content-Length`` is past the limit, unread."""
    if length is not None and length > MAX_LOG_BYTES:
        raise _too_large()


def _too_large() -> TooLarge:
    return TooLarge("payload_too_large", f"the log is larger than {MAX_LOG_BYTES} bytes, "
                    "this server's limit: verify it with `rummy verify FILE`")


def _lines(chunks: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """Each line with its number (from 1) as soon as it is complete."""
    pending, number, total = b"", 0, 0
    for chunk in chunks:
        total += len(chunk)
        if total > MAX_LOG_BYTES:
            raise _too_large()
        *complete, pending = (pending + chunk).split(b"\n")
        for line in complete:
            number += 1
            yield _counted(number), _short(number, line)
        _short(number + 1, pending)  # a line still arriving: refused once it is too long
    if pending:
        yield _counted(number + 1), pending


def _counted(number: int) -> int:
    if number > MAX_LOG_LINES:
        raise TooLarge("log_too_long", f"the log has more than {MAX_LOG_LINES} lines (one "
                       "event a line), this server's limit: verify it with `rummy verify FILE`")
    return number


def _short(number: int, line: bytes) -> bytes:
    if len(line) > MAX_LINE_BYTES:
        raise TooLarge("line_too_long", f"line {number} is longer than {MAX_LINE_BYTES} "
                       "bytes: no event of a log is")
    return line


def _record(number: int, line: bytes) -> dict[str, Any]:
    """Line ``number`` as a record the verifier can walk, or the reason it is not one."""
    try:
        record = json.loads(line.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        # json.JSONDecodeError is a ValueError; so is an integer past Python's digit limit.
        raise Invalid("not_a_log", f"not an NDJSON log: line {number}: {exc}") from exc
    if not isinstance(record, dict):
        raise Invalid("not_a_log", f"not an NDJSON log: line {number} is not a JSON object")
    wrong = _wrong_field(record)
    if wrong is not None:
        raise Rejected("unverifiable_log", f"the log cannot be verified: line {number}: "
                                           f"{wrong}")
    return record


def _wrong_field(record: dict[str, Any]) -> str | None:
    for name, types in FIELDS.items():
        if name not in record:
            return f"no {name!r}"
        if not _typed(record[name], types):
            return f"{name!r} is not {_kind(types)}"
    for name, types in OPTIONAL.items():
        if name in record and not _typed(record[name], types):
            return f"{name!r} is not {_kind(types)}"
    return None


def _typed(value: Any, types: tuple[type, ...]) -> bool:
    """Of one of ``types``; a JSON true or false is a boolean, never a number."""
    return isinstance(value, types) and (bool in types or not isinstance(value, bool))


def _kind(types: tuple[type, ...]) -> str:
    names = {int: "an integer", float: "a number", str: "a string", dict: "an object",
             bool: "a boolean", type(None): "null"}
    return " or ".join(names[kind] for kind in types)


def _no_constant(name: str) -> Any:
    """NaN and Infinity are not JSON: no log holds them, and no browser could read them back."""
    raise ValueError(f"{name} is not a JSON value")
