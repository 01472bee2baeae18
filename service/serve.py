"""``make serve``: run the API under gunicorn's gevent worker (service/gunicorn_conf.py).

Embedded mode (no REDIS_URL) keeps fakeredis inside the process, so it runs one worker
process; with REDIS_URL set, ``WEB_CONCURRENCY`` processes share the Redis. An open live
stream costs a greenlet and a socket, so a worker holds as many streams as its open-file
limit allows: this process raises its own limit before it starts gunicorn, and sizes
``--worker-connections`` from it.
"""

from __future__ import annotations

import argparse
import os
import sys

from service.gunicorn_conf import raise_fd_limit, stream_capacity


def command(host: str, port: str, embedded: bool, fd_limit: int) -> list[str]:
    """The gunicorn command line ``make serve`` runs."""
    workers = "1" if embedded else os.environ.get("WEB_CONCURRENCY", "2")
    return [
        sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf",
        "service.api.app:wsgi()", "--bind", f"{host}:{port}", "--workers", workers,
        "--worker-class", "gevent", "--worker-connections", str(stream_capacity(fd_limit)),
        "--timeout", "60", "--access-logfile", "-",
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the rummy API")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", default=os.environ.get("PORT", "8000"))
    args = parser.parse_args(argv)
    embedded = not os.environ.get("REDIS_URL")
    if embedded:
        print("rummy: EMBEDDED MODE - in-process fakeredis, jobs in-process; "
              "data is in memory only and lost on exit (set REDIS_URL for a real Redis)",
              file=sys.stderr, flush=True)
    fd_limit = raise_fd_limit()
    print(f"rummy: open-file limit {fd_limit}: up to {stream_capacity(fd_limit)} live "
          "streams per worker", file=sys.stderr, flush=True)
    os.execv(sys.executable, command(args.host, args.port, embedded, fd_limit))


if __name__ == "__main__":
    main()
