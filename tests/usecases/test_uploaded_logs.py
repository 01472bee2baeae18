"""An uploaded log (``POST /v1/audits``) is checked line by line as it arrives and spooled:
nothing but the line being read is held, however large the body; the verifier (a port)
gets the spool once the body has ended, and its refusals and failures become the API's."""

from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from service.ports import Verification, VerifierBusy, VerifierFailed
from service.usecases.errors import Busy, Invalid, Rejected
from service.usecases.log_upload import MAX_LINE_BYTES, MAX_LOG_BYTES, spool_records
from service.usecases.uploaded_logs import UploadedLogs, answer_parts, audit_records

GOLDEN = Path(__file__).parents[1] / "fixtures" / "golden" / "gin-2p-schema1.ndjson"


class Spool:
    """Counts what is written; keeps nothing (``keep``: keeps the lines)."""

    def __init__(self, keep: bool = False) -> None:
        self.lines: list[bytes] = []
        self.written, self.keep = 0, keep

    def write(self, line: bytes) -> None:
        self.written += len(line) + 1
        if self.keep:
            self.lines.append(line)


class Verifier:
    """A ``LogVerifier`` in the test's hands: runs ``audit_records`` in this process, or
    raises what it is told to."""

    def __init__(self, fails: Exception | None = None) -> None:
        self.fails, self.spools = fails, []

    @contextmanager
    def spool(self) -> Iterator[Spool]:
        self.spools.append(Spool(keep=True))
        yield self.spools[-1]

    def verify(self, spool: Spool, states_bytes: int | None) -> Verification:
        if self.fails is not None:
            raise self.fails
        records = [json.loads(line) for line in spool.lines]
        answer = "".join(answer_parts(audit_records(records, states_bytes))).encode()
        return Verification(io.BytesIO(answer), len(answer))


def chunked(body: bytes, size: int = 64 * 1024) -> Iterator[bytes]:
    for start in range(0, len(body), size):
        yield body[start:start + size]


def packed(limit: int) -> bytes:
    """Records of the right shape whose ``data`` holds as many empty objects as a line may:
    the upload that held 24 bytes of Python objects per byte while it arrived."""
    head = (b'{"version": 1, "type": "MatchCreated", "schema": 1, "ts": 0, "prev_hash": "", '
            b'"hash": "", "data": {"x": [')
    line = head + b",".join([b"{}"] * ((MAX_LINE_BYTES - len(head) - 8) // 3)) + b"]}}\n"
    return line * (limit // len(line))


def test_every_checked_line_is_spooled_and_blank_lines_are_not():
    body = GOLDEN.read_bytes()
    spool = Spool(keep=True)
    lines = body.splitlines()
    with_blanks = b"\n".join(lines[:3]) + b"\n\n   \n" + b"\n".join(lines[3:]) + b"\n"
    assert spool_records(chunked(with_blanks, 1000), spool) == len(lines)
    assert spool.lines == lines


def test_spooling_holds_only_the_line_being_read_however_large_the_body():
    body = packed(MAX_LOG_BYTES)
    assert len(body) > MAX_LOG_BYTES - MAX_LINE_BYTES
    spool = Spool()
    tracemalloc.start()
    try:
        spool_records(chunked(body), spool)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert spool.written == len(body)
    # one parsed line of it is about 3 MiB of objects (6 MiB at the peak, measured); all
    # of them were 144 MiB when every record was kept until the body ended
    assert peak < 16 * 1024 * 1024, f"{peak / 2**20:.0f} MiB held while the body arrived"


def test_an_upload_waiting_for_its_next_bytes_holds_no_parsed_record():
    """What a stalled upload costs: the memory held while the reading waits for the
    network, measured each time it asks for the next chunk."""
    body = packed(MAX_LOG_BYTES // 4)
    held: list[int] = []

    def arriving() -> Iterator[bytes]:
        for chunk in chunked(body):
            held.append(tracemalloc.get_traced_memory()[0])
            yield chunk

    tracemalloc.start()
    try:
        spool_records(arriving(), Spool())
    finally:
        tracemalloc.stop()
    # a line still arriving (up to 128 KiB) and the chunk before it; a parsed line was 3 MiB
    assert max(held) < 512 * 1024, f"{max(held) / 2**20:.1f} MiB held between two chunks"


def test_a_refused_line_ends_the_reading_and_nothing_is_verified():
    verifier = Verifier()
    body = b"".join(GOLDEN.read_bytes().splitlines(keepends=True)[:5]) + b"not json\n"
    with pytest.raises(Invalid) as refused:
        UploadedLogs(verifier).audit(chunked(body), with_states=False)
    assert refused.value.code == "not_a_log" and "line 6" in refused.value.message
    assert len(verifier.spools[0].lines) == 5


def test_the_answer_is_the_verifiers():
    verified = UploadedLogs(Verifier()).audit(chunked(GOLDEN.read_bytes()), with_states=True)
    answer = json.loads(b"".join(verified.parts()))
    assert answer["report"]["ok"] and len(answer["states"]) == answer["report"]["events"]
    assert verified.size == len(json.dumps(answer, separators=(",", ":"), sort_keys=True))


@pytest.mark.parametrize("fails, code, retry", [
    (VerifierBusy(7), "audits_busy", 7),
    (VerifierFailed("the verifier took more than 90 s"), "audit_failed", 10),
])
def test_a_busy_or_failed_verifier_is_a_503_with_when_to_retry(fails, code, retry):
    with pytest.raises(Busy) as refused:
        UploadedLogs(Verifier(fails)).audit(chunked(GOLDEN.read_bytes()), with_states=False)
    assert (refused.value.code, refused.value.retry_after_s) == (code, retry)


def test_a_log_the_verifier_refuses_is_a_422():
    class Refusing(Verifier):
        def verify(self, spool: Spool, states_bytes: int | None) -> Verification:
            return Verification(None, refusal=("unverifiable_log", "the log cannot be verified"))

    with pytest.raises(Rejected) as refused:
        UploadedLogs(Refusing()).audit(chunked(GOLDEN.read_bytes()), with_states=False)
    assert refused.value.code == "unverifiable_log"
