"""The process that analyses one finished match: ``python -m service.analysis_child
[--cpu-seconds N] [--parent PID]``.

Started by ``service.adapters.analyst`` for each analysis of embedded mode: its standard
input is ``{"variant", "records", "seed", "budget_ms", "samples"}`` (the log's events as
``type``, ``data`` and ``schema``), its standard output the decisions' JSON
(``service.usecases.analyses.analyse_records``). It runs at the lowest priority (nice 19)
so the API's greenlets and the bots get the CPU first, within ``--cpu-seconds`` of CPU
(``RLIMIT_CPU``; the bootstrap gives the analyses' time limit), and ends as soon as its
``--parent`` is gone (an orphan would analyse for nobody). A log that is not a
finished match's exits 1 with the reason on its standard error.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import threading
import time

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


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Analyse one finished match")
    parser.add_argument("--cpu-seconds", type=int, default=None)
    parser.add_argument("--parent", type=int, default=None,
                        help="the process waiting for the answer (default: the parent)")
    return parser.parse_args(argv)


def lower_priority(cpu_seconds: int | None) -> None:
    """Run behind the API, within ``cpu_seconds`` of CPU."""
    os.nice(NICENESS)
    if cpu_seconds is not None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))


def die_with_parent(parent: int | None, every_s: float = 1.0) -> None:
    """Exit once the process waiting for the answer has gone (a stopped server): it is
    given, since it may be gone before this process could ask who its parent is."""
    expected = os.getppid() if parent is None else parent

    def watch() -> None:
        while os.getppid() == expected:
            time.sleep(every_s)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


if __name__ == "__main__":
    given = options()
    die_with_parent(given.parent)
    lower_priority(given.cpu_seconds)
    sys.exit(main())
