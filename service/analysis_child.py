"""The process that analyses one finished match: ``python -m service.analysis_child
[--cpu-seconds N]``.

Started by ``service.adapters.analyst`` for each analysis of embedded mode: its standard
input is ``{"variant", "records", "seed", "budget_ms", "samples"}`` (the log's events as
``type``, ``data`` and ``schema``), its standard output the decisions' JSON
(``service.usecases.analyses.analyse_records``). It runs at the lowest priority (nice 19)
so the API's greenlets and the bots get the CPU first, within ``--cpu-seconds`` of CPU
(``RLIMIT_CPU``; the bootstrap gives the analyses' time limit). A log that is not a
finished match's exits 1 with the reason on its standard error.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys

NICENESS = 19


def main() -> int:
    # imported here, after ``lower_priority``: importing the rules costs some 0.3 s of CPU
    from service.usecases.analyses import analyse_records

    asked = json.load(sys.stdin.buffer)
    decisions = analyse_records(asked["variant"], asked["records"], asked["seed"],
                                asked["budget_ms"], asked["samples"])
    sys.stdout.write(json.dumps(decisions))
    sys.stdout.flush()
    return 0


def lower_priority(argv: list[str] | None = None) -> None:
    """Run behind the API, within ``--cpu-seconds`` of CPU."""
    parser = argparse.ArgumentParser(description="Analyse one finished match")
    parser.add_argument("--cpu-seconds", type=int, default=None)
    args = parser.parse_args(argv)
    os.nice(NICENESS)
    if args.cpu_seconds is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (args.cpu_seconds, args.cpu_seconds + 1))


if __name__ == "__main__":
    lower_priority()
    sys.exit(main())
