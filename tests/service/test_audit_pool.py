"""Uploaded logs are verified in child processes, a few at a time
(``service.adapters.audit_pool``): the API process holds the spool on disk and waits, the
child does the work and gives its memory back when it exits; a full pool makes a request
wait, then answers 503 ``audits_busy`` with ``Retry-After``; a child that runs too long is
killed."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from service.adapters.audit_pool import AuditPool
from service.bootstrap import AUDIT_CHILD, bootstrap
from service.config import Settings
from service.ports import VerifierBusy, VerifierFailed
from service.usecases.log_upload import MAX_LOG_BYTES
from service.usecases.uploaded_logs import answer_parts, audit_records
from tests.usecases.test_uploaded_logs import packed

GOLDEN = Path(__file__).parents[1] / "fixtures" / "golden" / "gin-2p-schema1.ndjson"


def child(code: str) -> list[str]:
    """A stand-in for the verifier's process: ``code`` run by this interpreter."""
    return [sys.executable, "-c", code]


def verified(pool: AuditPool, body: bytes, states_bytes: int | None = None) -> bytes:
    with pool.spool() as spool:
        for line in body.splitlines():
            spool.write(line)
        return b"".join(pool.verify(spool, states_bytes).parts())


def test_the_childs_answer_is_the_verifiers_own():
    pool = AuditPool(AUDIT_CHILD, size=2)
    records = [json.loads(line) for line in GOLDEN.read_bytes().splitlines()]
    for states in (None, 10**6):
        expected = "".join(answer_parts(audit_records(records, states))).encode()
        assert verified(pool, GOLDEN.read_bytes(), states) == expected


def test_a_refusal_of_the_child_is_the_answers_refusal():
    refuses = child("import sys; sys.stdout.write('{\"code\": \"unverifiable_log\", "
                    "\"message\": \"no\"}'); sys.exit(3)")
    with AuditPool(refuses, size=1).spool() as spool:
        outcome = AuditPool(refuses, size=1).verify(spool, None)
    assert outcome.answer is None and outcome.refusal == ("unverifiable_log", "no")


def test_a_child_that_dies_is_a_failed_verification():
    with pytest.raises(VerifierFailed, match="status 1"):
        verified(AuditPool(child("import sys; sys.exit(1)"), size=1), b"{}")


def test_a_child_that_runs_too_long_is_killed():
    pool = AuditPool(child("import time; time.sleep(60)"), size=1, timeout_s=0.5)
    began = time.monotonic()
    with pytest.raises(VerifierFailed, match="more than 0.5 s"):
        verified(pool, b"{}")
    assert time.monotonic() - began < 5
    assert pool.slots.acquire(timeout=0), "the slot is free again"


def test_a_full_pool_makes_the_next_wait_then_refuses_it():
    pool = AuditPool(child("import time; time.sleep(1.5)"), size=1, wait_s=0.3)
    first = threading.Thread(target=verified, args=(pool, b"{}"))
    first.start()
    time.sleep(0.2)
    began = time.monotonic()
    with pytest.raises(VerifierBusy) as busy:
        verified(pool, b"{}")
    assert 0.25 < time.monotonic() - began < 1.0 and busy.value.retry_after_s == 1
    first.join(10)


def rss_growth_kib(action) -> int:
    """The peak resident set of this process during ``action``, less its resident set
    before (Linux: VmHWM is reset by writing 5 to clear_refs)."""
    Path("/proc/self/clear_refs").write_text("5")
    before = status_kib("VmRSS")
    action()
    return status_kib("VmHWM") - before


def status_kib(field: str) -> int:
    line = next(line for line in Path(f"/proc/{os.getpid()}/status").read_text().splitlines()
                if line.startswith(field + ":"))
    return int(line.split()[1])


def test_the_api_process_does_not_grow_with_what_an_audit_verifies(client):
    body = packed(MAX_LOG_BYTES)  # 145 MiB of objects when parsed in this process
    client.post("/v1/audits", data=GOLDEN.read_bytes())  # warm
    answers = []
    growth = rss_growth_kib(lambda: answers.append(client.post("/v1/audits", data=body)))
    assert answers[0].status_code == 200, answers[0].json
    assert growth < 40 * 1024, f"grew {growth // 1024} MiB"


def test_a_full_pool_is_a_503_audits_busy_with_retry_after(app):
    pool = app.extensions["rummy"].uploads.verifier
    pool.wait_s = 0.1
    taken = [pool.slots.acquire(timeout=0) for _ in range(pool.size)]
    try:
        answer = app.test_client().post("/v1/audits", data=GOLDEN.read_bytes())
    finally:
        for _ in filter(None, taken):
            pool.slots.release()
    assert (answer.status_code, answer.json["code"]) == (503, "audits_busy")
    assert answer.headers["Retry-After"] == "1"
    assert app.test_client().post("/v1/audits", data=GOLDEN.read_bytes()).status_code == 200


def test_the_pool_is_sized_from_the_environment(monkeypatch):
    monkeypatch.setenv("RUMMY_AUDIT_PROCESSES", "3")
    wiring = bootstrap(Settings.from_env(redis_url=None))
    try:
        assert wiring.uploads.verifier.size == 3
    finally:
        wiring.close()
    monkeypatch.setenv("RUMMY_AUDIT_PROCESSES", "0")
    with pytest.raises(ValueError, match="RUMMY_AUDIT_PROCESSES"):
        Settings.from_env()
