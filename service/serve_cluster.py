"""The cluster deployment on one machine, without docker (``make serve-cluster``): three
cluster masters and a job Redis (``redis-server``) in a temporary directory, the cluster
created, then the API under gunicorn and one worker; Ctrl-C stops every process it
started. docs/operations.md "Redis Cluster" has the docker compose equivalent.

    python -m service.serve_cluster [--port 8000] [--redis-port 7000] [--replica-acks 0]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MASTERS = 3


def _redis(directory: Path, port: int, cluster: bool) -> subprocess.Popen[bytes]:
    node = directory / str(port)
    node.mkdir()
    argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node),
            "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]
    if cluster:
        argv += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
    return subprocess.Popen(argv, stdout=(node / "redis.log").open("ab"),
                            stderr=subprocess.STDOUT)


def _answers(port: int) -> bool:
    done = subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True)
    return done.stdout.strip() == b"PONG"


def _cluster_ok(port: int) -> bool:
    done = subprocess.run(["redis-cli", "-p", str(port), "cluster", "info"],
                          capture_output=True)
    return b"cluster_state:ok" in done.stdout


def _until(ready: object, what: str, wait_s: float = 20.0) -> None:
    deadline = time.monotonic() + wait_s
    while not ready():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit(f"serve-cluster: {what} did not happen within {wait_s} s")
        time.sleep(0.1)


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    for stopping in (signal.SIGINT, signal.SIGTERM):  # also when started in the background
        signal.signal(stopping, _interrupted)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--redis-port", type=int, default=7000,
                        help="the first cluster master's; the others and the job Redis follow")
    parser.add_argument("--replica-acks", default=os.environ.get("RUMMY_REPLICA_ACKS", "0"))
    options = parser.parse_args()
    masters = [options.redis_port + index for index in range(MASTERS)]
    jobs = options.redis_port + MASTERS
    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="rummy-cluster-") as directory:
        try:
            processes += [_redis(Path(directory), port, True) for port in masters]
            processes.append(_redis(Path(directory), jobs, False))
            for port in [*masters, jobs]:
                _until(lambda port=port: _answers(port), f"redis-server on {port}")
            subprocess.run(["redis-cli", "--cluster", "create",
                            *(f"127.0.0.1:{port}" for port in masters),
                            "--cluster-replicas", "0", "--cluster-yes"],
                           check=True, capture_output=True)
            _until(lambda: all(_cluster_ok(port) for port in masters), "cluster_state:ok")
            env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{masters[0]}/0",
                   "RUMMY_REDIS_CLUSTER": "true", "RQ_REDIS_URL": f"redis://127.0.0.1:{jobs}/0",
                   "RUMMY_RATE_LIMIT_STORAGE": f"redis://127.0.0.1:{jobs}/0",
                   "RUMMY_REPLICA_ACKS": options.replica_acks}
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf",
                 "service.api.app:wsgi()", "--bind", f"{options.host}:{options.port}"],
                env=env))
            processes.append(subprocess.Popen([sys.executable, "-m", "workers"], env=env))
            print(f"serve-cluster: API on http://{options.host}:{options.port}, cluster "
                  f"masters {masters}, jobs on {jobs}; Ctrl-C stops all", flush=True)
            while all(process.poll() is None for process in processes):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for process in reversed(processes):
                process.terminate()
            for process in processes:
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()


if __name__ == "__main__":
    main()
