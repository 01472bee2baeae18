"""schemathesis over the whole API finds nothing (issue 12, part 2).

Its CLI runs, as a developer would run it, against an API process of its own (gunicorn with
the deployed gevent config, embedded mode, rate limits off) with the repository's
schemathesis.toml: every check, every phase (examples, coverage, fuzzing, stateful), every
operation but the two it says why it skips (the live streams), the
rules beyond the schema held to their codes (tests/schemathesis_hooks.py). Bounded for
``make test``: a fixed seed, ``EXAMPLES`` cases per operation, one worker, about 40 s
on two cores. On failure its report is printed; schemathesis.toml says how to rerun it by
hand with the same seed.

Its own server, not ``live_server``: schemathesis registers webhooks, organisers and
hundreds of matches, and ends some, whose deliveries would run in the server the other
tests share.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, gunicorn_argv, server_env, serving_api
from tests.spec_check import spec

pytestmark = pytest.mark.slow

ADMIN = "schemathesis-admin"
EXAMPLES = 40
SEED = 12
SKIPPED = {"GET /v1/matches/{match_id}/stream", "GET /v1/feed"}
"""The operations schemathesis.toml turns off (it says why)."""


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # RUMMY_WEBHOOK_PRIVATE=allow: the endpoints it registers go to a closed local port
    # (tests/schemathesis_hooks.py), never out to the hosts it draws
    env = server_env(RUMMY_ADMIN_TOKEN=ADMIN, RUMMY_RATE_LIMITS="off",
                     RUMMY_WEBHOOK_PRIVATE="allow")
    with serving_api("schemathesis-api", gunicorn_argv, env,
                     tmp_path_factory.mktemp("schemathesis") / "api.log") as url:
        yield url


def run(url: str, workdir: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """The CLI's run over ``url``: its output and its JSON report."""
    config = workdir / "schemathesis.toml"  # the repository's, without the replay cache
    config.write_text((ROOT / "schemathesis.toml").read_text() + "\n[cache]\nenabled = false\n")
    report = workdir / "report.json"
    command = [str(Path(sys.executable).parent / "schemathesis"), "--config-file", str(config),
               "run", f"{url}/openapi.json", "--header", f"Authorization: Bearer {ADMIN}",
               "--checks", "all", "--max-examples", str(EXAMPLES), "--seed", str(SEED),
               "--workers", "1", "--generation-database", "none", "--no-color",
               "--report", "json", "--report-json-path", str(report)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert report.exists(), done.stdout + done.stderr
    return done, json.loads(report.read_text())


def operations() -> set[str]:
    return {f"{method.upper()} {path}" for path, item in spec()["paths"].items()
            for method in item if method in {"get", "post", "put", "patch", "delete"}}


def test_schemathesis_finds_nothing(api: str, tmp_path: Path) -> None:
    done, report = run(api, tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and report["exit_code"] == 0, output
    assert report["failures"] == [] and report["errors"] == [], output
    assert report["complete"] and report["stop_reason"] == "completed", output
    tested = len(operations() - SKIPPED)
    assert report["operations"] == {"total": len(operations()), "selected": tested,
                                    "tested": tested, "errored": 0, "skipped": 0,
                                    "skip_reasons": []}, output
    assert {phase: result["status"] for phase, result in report["phases"].items()} == {
        "examples": "success", "coverage": "success", "fuzzing": "success",
        "stateful": "success"}, output
    # Every pattern of the spec is one schemathesis (and its Rust validator) can read: an
    # unreadable one is silently dropped, and then checks nothing.
    assert report["warnings"]["unsupported_regex"] == [], output
    assert report["test_cases"]["generated"] > 1000, output
