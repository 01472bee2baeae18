"""``make serve``: run the API under gunicorn.

Embedded mode (no REDIS_URL) keeps fakeredis inside the process, so it runs one worker
process with threads; with REDIS_URL set, ``WEB_CONCURRENCY`` processes share the Redis.
Every open live stream holds one thread, hence the generous ``THREADS`` default.
"""

from __future__ import annotations

import argparse
import os
import sys


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the rummy API")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", default=os.environ.get("PORT", "8000"))
    args = parser.parse_args(argv)
    embedded = not os.environ.get("REDIS_URL")
    workers = "1" if embedded else os.environ.get("WEB_CONCURRENCY", "2")
    if embedded:
        print("rummy: EMBEDDED MODE - in-process fakeredis, jobs in-process; "
              "data is in memory only and lost on exit (set REDIS_URL for a real Redis)",
              file=sys.stderr, flush=True)
    command = [
        sys.executable, "-m", "gunicorn", "service.api.app:wsgi()",
        "--bind", f"{args.host}:{args.port}", "--workers", workers,
        "--worker-class", "gthread", "--threads", os.environ.get("THREADS", "64"),
        "--timeout", "60", "--access-logfile", "-",
    ]
    os.execv(sys.executable, command)


if __name__ == "__main__":
    main()
