"""Embedded mode's analysis process: the decisions of a finished log, as the worker's
in-process analysis gives them; and no analysis goes on once its server is gone."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from domain.gin import GIN
from service.adapters.analyst import ChildAnalyst
from service.bootstrap import ANALYSIS_CHILD
from service.usecases.analyses import analyse_records
from tests.conftest import ROOT
from tests.playouts import bots, new_match, steps


def finished_log() -> list[dict[str, Any]]:
    """A gin match to 1 point between basic bots, as ``type``, ``data`` and ``schema``."""
    rng = random.Random(3)
    state, log, secrets = new_match(rng, 2, GIN, target=1)
    for _, events in steps(rng, state, secrets, GIN, policy=bots("basic", "basic")):
        log.extend(events)
    return [{"type": e.type, "data": dict(e.data), "schema": e.schema} for e in log]


def test_the_child_answers_as_the_analysis_in_process_does():
    records = finished_log()
    answered = ChildAnalyst(ANALYSIS_CHILD, 60)("gin", records, "s", 2, 8)
    assert answered and answered == analyse_records("gin", records, "s", 2, 8)


def gone(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    try:
        return "State:\tZ" in status.read_text()
    except FileNotFoundError:
        return True


def test_a_child_whose_server_is_gone_stops_analysing(tmp_path):
    asked = tmp_path / "asked.json"  # minutes of work
    asked.write_text(json.dumps({"variant": "gin", "records": finished_log(), "seed": "s",
                                 "budget_ms": 2000, "samples": 1000}))
    server = ("import os, subprocess, sys; child = subprocess.Popen("
              f"[*{list(ANALYSIS_CHILD)!r}, '--parent', str(os.getpid())], "
              f"stdin=open({str(asked)!r}, 'rb'), stdout=subprocess.DEVNULL, "
              "stderr=subprocess.DEVNULL); print(child.pid, flush=True); os._exit(0)")
    done = subprocess.run([sys.executable, "-c", server], cwd=ROOT, capture_output=True,
                          timeout=30, env={**os.environ, "PYTHONPATH": str(ROOT)})
    pid = int(done.stdout)
    deadline = time.monotonic() + 10
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gone(pid), "the orphaned analysis went on"
