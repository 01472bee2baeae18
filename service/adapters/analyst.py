"""Analyses in a child process (``service.ports.Analyst``), for embedded mode.

An analysis is up to a minute of CPU at its defaults (``service.usecases.analyses``). On
the gevent worker of ``make serve`` that minute would stall every request and every bot
of the process (a thread would not help: it holds the GIL), so each analysis is a child
process (``command``, the bootstrap's: ``python -m service.analysis_child``) that reads
the log and the parameters as JSON on its standard input and writes the decisions on its
standard output, at the lowest priority; the waiting thread only waits for it to exit
(gevent's ``subprocess`` waits cooperatively). Real mode's workers analyse in their own
process instead: a worker is there for such jobs.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

from service.ports import AnalysisFailed


class ChildAnalyst:
    """``ports.Analyst``: one child process per analysis, killed past ``timeout_s``, and
    ending by itself should this process end first (``--parent``)."""

    def __init__(self, command: Sequence[str], timeout_s: float) -> None:
        self.command = list(command)
        self.timeout_s = timeout_s

    def __call__(self, variant: str, records: Sequence[Mapping[str, Any]], seed: str,
                 budget_ms: int, samples: int) -> list[dict[str, Any]]:
        asked = json.dumps({"variant": variant, "records": list(records), "seed": seed,
                            "budget_ms": budget_ms, "samples": samples}).encode()
        try:
            done = subprocess.run([*self.command, "--parent", str(os.getpid())], input=asked,
                                  capture_output=True, timeout=self.timeout_s, check=False)
        except subprocess.TimeoutExpired as exc:
            raise AnalysisFailed(f"the analysis took more than {self.timeout_s:g} s") from exc
        except OSError as exc:
            raise AnalysisFailed(f"the analysis could not start: {exc}") from exc
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip().splitlines()
            raise AnalysisFailed(f"the analysis exited with status {done.returncode}"
                                 + (f": {said[-1]}" if said else ""))
        return list(json.loads(done.stdout))
