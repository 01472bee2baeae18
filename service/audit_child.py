"""The process that verifies one uploaded log: ``python -m service.audit_child [--states N]``.

Started by ``service.adapters.audit_pool`` for each ``POST /v1/audits`` whose lines have
all passed their checks: its standard input is the spool (one checked record a line), its
standard output the answer's file. It exits 0 with the answer's JSON written, or
``REFUSED`` with ``{"code", "message"}`` of a log the verifier cannot walk.

Verifying the largest accepted logs takes up to a second of CPU and 150 MiB; here it
stalls no request (the API process only waits for this one to exit), and its memory goes
back to the system when it exits. It runs at the lowest priority (nice 19), its start-up
included (the rules are imported after that), so the API's greenlets get the CPU first;
the CPU it may use is capped (``RLIMIT_CPU``): a log that would take longer is killed,
not served.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys

REFUSED = 3
"""The exit status of a refused log."""
NICENESS = 19
"""The lowest priority: behind the API, yet never starved as ``SCHED_IDLE`` would be on a
busy machine (the verification has a deadline, ``AuditPool.timeout_s``)."""
CPU_LIMIT_S = 60
"""The most CPU one verification may use: some 30 times the costliest accepted log's."""


def main(argv: list[str] | None = None) -> int:
    """Verify the spool on standard input; the exit status."""
    parser = argparse.ArgumentParser(description="Verify one spooled upload")
    parser.add_argument("--states", type=int, default=None,
                        help="also draw the tables, up to this many bytes of JSON")
    args = parser.parse_args(argv)
    # imported here, after ``lower_priority``: importing the rules costs some 0.3 s of CPU
    from service.usecases.errors import AppError
    from service.usecases.uploaded_logs import answer_parts, audit_records

    source, out = sys.stdin.buffer, sys.stdout.buffer
    records = [json.loads(line) for line in source if line.strip()]
    try:
        audit = audit_records(records, args.states)
    except AppError as exc:
        out.write(json.dumps({"code": exc.code, "message": exc.message}).encode())
        return REFUSED
    for part in answer_parts(audit):
        out.write(part.encode())
    out.flush()
    return 0


def lower_priority() -> None:
    """Run behind the API, within ``CPU_LIMIT_S``."""
    os.nice(NICENESS)
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S + 1))


if __name__ == "__main__":
    lower_priority()
    sys.exit(main())
