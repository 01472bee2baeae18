"""Acknowledged appends lost when a Redis Cluster master is killed and its replica
promoted, with and without ``RUMMY_REPLICA_ACKS=1``, and what WAIT costs an append.

    .venv/bin/python bench/failover.py [--runs 3] [--threads 8]

Prints JSON: per setting, the appends acknowledged, lost, refused (retried), the median
append latency in ms, and the seconds to promotion (tests/faults/failover.py)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.faults.failover import run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    options = parser.parse_args()
    figures: dict[str, list[dict[str, float]]] = {"replica_acks_0": [], "replica_acks_1": []}
    for _ in range(options.runs):
        for acks in (0, 1):
            with tempfile.TemporaryDirectory() as directory:
                outcome = run(Path(directory), acks, options.threads)
            figures[f"replica_acks_{acks}"].append({
                "acknowledged": outcome.acknowledged, "lost": outcome.lost,
                "refused": outcome.refused, "median_append_ms": round(outcome.median_ms(), 2),
                "promoted_s": round(outcome.promoted_s, 2)})
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
