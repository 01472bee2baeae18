"""What one ``POST /v1/audits`` costs: real exported logs, the largest upload the limits
let through, and the adversarial uploads of issue 16 (finding 5).

    python bench/audits.py [--logs DIR] [--events N] [--only NAME,...]

First plays real matches through the API (in-process, fakeredis, jobs inline) and exports
them: a default gin match, a long one (target 500), a 4-player gin, 6-player rummy and
rami, 3-player gem; plus a gin match made of many short hands (``knock_limit`` 100), the
log whose tables grow fastest. It prints each log's events, bytes, bytes per event,
longest line and the size of its ``states=true`` answer: the measurements the limits in
service/usecases/uploaded_logs.py are chosen from. ``--logs DIR`` keeps the logs there and
reuses them on the next run (playing the long ones takes a few minutes).

Then it times uploads, each in a fresh child process (forked after a warm-up request):
CPU seconds, wall seconds and peak memory growth (the child's peak resident set less its
resident set before the request), with the answer's status, code and size; where the
server verifies in a process of its own, that process's CPU seconds and peak resident set
too (``child_cpu_s``, ``child_peak_mib``). The cases:
- ``finding-{}``: 8 MiB of ``{}`` lines, the upload of the finding;
- ``junk-at-limit``: records of the right shape whose ``data`` holds as many empty objects
  as the byte limit allows, the most objects a body that passes every line check can make;
- ``long-rummy``, ``long-gin``: a real 6-player rummy match (100 rounds, about 12,000
  events) and 3,000 events of a real gin match of short hands, cut at ``--events`` events
  (default: the line limit), with and without ``states=true``;
- ``no-commands``: the long rummy log with as many moves without their command as the
  limit allows (the verifier searches the legal actions for each; logs of the first
  release have no commands), and ``no-commands-at-all``: none of its moves with one.
Prints JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fakeredis  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402

from domain.bots.policies import ENDERS, PLACEMENTS, discarding, keen, of_type  # noqa: E402
from service.api.app import create_app  # noqa: E402
from service.config import Settings  # noqa: E402
from service.usecases import uploaded_logs  # noqa: E402

try:
    from service.usecases import log_upload  # noqa: E402
except ImportError:  # the code before issue 16: the limits were in uploaded_logs
    log_upload = uploaded_logs  # type: ignore[assignment]

ADMIN = "bench-admin"
GOLDEN = ROOT / "tests" / "fixtures" / "golden" / "gin-2p-schema1.ndjson"
REAL = {"gin-2p": ("gin", 2, {}), "gin-2p-target-500": ("gin", 2, {"target": 500}),
        "gin-4p": ("gin", 4, {}), "gem-3p": ("gem", 3, {}), "rummy-6p": ("rummy", 6, {}),
        "rami-6p": ("rami", 6, {})}
LONG = {"long-rummy": (("rummy", 6, {"rounds": 100}), 10**9),
        "long-gin": (("gin", 2, {"target": 100000, "knock_limit": 100}), 3000)}
"""The longest rummy match its options allow (about 12,000 events), and 3,000 events of a
gin match of short hands (a knock at once every hand: the tables grow fastest; playing
it longer takes long, as every view repeats the finished hands)."""


def app_client() -> FlaskClient:
    settings = Settings(redis_url="redis://bench", admin_token=ADMIN, key_prefix="bench")
    return create_app(settings, client=fakeredis.FakeRedis(), jobs_inline=True).test_client()


def play(client: FlaskClient, variant: str, players: int, options: dict[str, Any],
         rng: random.Random, events: int) -> str:
    """A match played by beginners (they meld and knock when they can, else throw a best
    discard) until it completes or holds ``events`` events; its id."""
    match = client.post("/v1/matches", json={
        "variant": variant, "players": [{"name": f"Player {n}"} for n in range(players)],
        "options": options}).json
    path = f"/v1/matches/{match['id']}"
    while True:
        public = client.get(path).json
        if public["version"] >= events or public["phase"] == "complete":
            return str(match["id"])
        token = {"Authorization": f"Bearer {match['seats'][public['turn']]['token']}"}
        view = client.get(path, headers=token).json
        best = view.get("best_discard", {}).get("cards", ())
        action = keen(rng, view["legal_actions"], (of_type(*ENDERS, *PLACEMENTS), 1.0),
                      (discarding(best), 1.0))
        client.post(f"{path}/actions", json=action, headers=token)


def exported(logs: Path | None, name: str, spec: tuple[str, int, dict[str, Any]],
             events: int = 10**9) -> bytes:
    """The full export of a match played to ``spec``, from ``logs`` when it is there."""
    kept = logs / f"{name}.ndjson" if logs else None
    if kept is not None and kept.exists():
        return kept.read_bytes()
    client = app_client()
    match_id = play(client, *spec, rng=random.Random(name), events=events)
    body = client.get(f"/v1/matches/{match_id}/export",
                      headers={"Authorization": f"Bearer {ADMIN}"}).get_data()
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_bytes(body)
    return body


def describe(body: bytes, states: bool = True) -> dict[str, Any]:
    """What the limits are chosen from: events, bytes, the longest line, the tables."""
    lines = body.splitlines()
    found = {"events": len(lines), "bytes": len(body),
             "bytes_per_event": len(body) // len(lines), "longest_line": max(map(len, lines))}
    if states:
        answer = app_client().post("/v1/audits?states=true", data=body,
                                   content_type="application/x-ndjson")
        found.update(status=answer.status_code, states_answer_bytes=len(answer.get_data()),
                     states_drawn=len((answer.json or {}).get("states") or ()))
    return found


def cut(body: bytes, events: int) -> bytes:
    """The first ``events`` events of a log: an unfinished match, still a valid log."""
    return b"".join(line + b"\n" for line in body.splitlines()[:events])


def without_commands(body: bytes, moves: int) -> bytes:
    """The log with the commands of its first ``moves`` seat events left out, as the first
    release wrote none: the verifier searches the legal actions for those moves."""
    records = [json.loads(line) for line in body.splitlines()]
    for record in [r for r in records if isinstance(r.get("command"), dict)][:moves]:
        del record["command"]
    return b"".join(json.dumps(record).encode() + b"\n" for record in records)


def junk(limit: int) -> bytes:
    """Lines a shape check lets through, their ``data`` as full of objects as a line may
    be, up to ``limit`` bytes."""
    line_limit = getattr(log_upload, "MAX_LINE_BYTES", 128 * 1024)
    head = b'{"version": 1, "type": "MatchCreated", "schema": 1, "ts": 0, "prev_hash": "", ' \
           b'"hash": "", "data": {"x": ['
    line = head + b",".join([b"{}"] * ((line_limit - len(head) - 8) // 3)) + b"]}}\n"
    return line * (limit // len(line))


def measured(body: bytes, states: bool) -> dict[str, Any]:
    """One upload's cost, measured in a fresh interpreter (``--measure``): a process that
    has played matches holds freed memory that an upload would reuse unseen."""
    with tempfile.NamedTemporaryFile(suffix=".ndjson") as file:
        file.write(body)
        file.flush()
        argv = [sys.executable, __file__, "--measure", file.name] + (["--states"] * states)
        done = subprocess.run(argv, capture_output=True, check=True, cwd=ROOT)
    return dict(json.loads(done.stdout))


def measure_upload(path: Path, states: bool) -> dict[str, Any]:
    """In the fresh interpreter: a warm-up audit, then the upload of ``path``, timed, with
    its peak memory growth (the peak resident set, reset before it, less the resident set
    before it)."""
    client = app_client()
    client.post("/v1/audits?states=true", data=GOLDEN.read_bytes())
    body = path.read_bytes()
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current VmRSS
    before = _status_kib("VmRSS")
    cpu, wall, children = time.process_time(), time.perf_counter(), _children_cpu()
    answer = client.post(f"/v1/audits?states={str(states).lower()}", data=body,
                         content_type="application/x-ndjson")
    size = len(answer.get_data())
    result = {"cpu_s": round(time.process_time() - cpu, 2),
              "wall_s": round(time.perf_counter() - wall, 2),
              "peak_mib": round((_status_kib("VmHWM") - before) / 1024, 1),
              "status": answer.status_code, "answer_bytes": size}
    if _children_cpu() > children:  # verified in a child process (issue 24's audit pool)
        result.update(child_cpu_s=round(_children_cpu() - children, 2),
                      child_peak_mib=round(resource.getrusage(
                          resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1))
    if answer.status_code != 200:
        result["code"] = answer.json["code"]
    return result


def _children_cpu() -> float:
    """CPU seconds of this process's ended children (the verifier's processes)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return float(usage.ru_utime + usage.ru_stime)


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cases(logs: Path | None, events: int) -> dict[str, tuple[bytes, bool]]:
    limit = log_upload.MAX_LOG_BYTES
    guessed = getattr(log_upload, "MAX_GUESSED_MOVES", 1500)
    rummy, gin = (cut(exported(logs, name, *LONG[name]), events) for name in LONG)
    return {
        "finding-{}": (b"{}\n" * (8 * 1024 * 1024 // 3), False),
        "finding-{}-states": (b"{}\n" * (8 * 1024 * 1024 // 3), True),
        "{}-at-limit": (b"{}\n" * (limit // 3), True),
        "junk-at-limit": (junk(limit), False),
        "long-rummy": (rummy, False), "long-rummy-states": (rummy, True),
        "long-gin": (gin, False), "long-gin-states": (gin, True),
        "no-commands": (without_commands(rummy, guessed), False),
        "no-commands-at-all": (without_commands(rummy, len(rummy)), False),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=None,
                        help="keep the played logs here and reuse them")
    parser.add_argument("--events", type=int,
                        default=getattr(log_upload, "MAX_LOG_LINES", 20000),
                        help="cut the long logs at this many events (default: the limit)")
    parser.add_argument("--only", default="", help="measure only these cases (comma-separated)")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child's part
    parser.add_argument("--states", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure_upload(args.measure, args.states)))
        return
    real = {name: describe(exported(args.logs, name, spec)) for name, spec in REAL.items()}
    real.update({name: describe(exported(args.logs, name, *LONG[name]), states=False)
                 for name in LONG})
    chosen = set(filter(None, args.only.split(",")))
    uploads = {}
    for name, (body, states) in cases(args.logs, args.events).items():
        if not chosen or name in chosen:
            uploads[name] = {"bytes": len(body), **measured(body, states)}
            print(name, uploads[name], file=sys.stderr, flush=True)
    limits = {name: getattr(module, name) for module in (uploaded_logs, log_upload)
              for name in dir(module) if name.startswith("MAX_")}
    print(json.dumps({"limits": limits, "real_logs": real, "uploads": uploads}, indent=2))


if __name__ == "__main__":
    main()
