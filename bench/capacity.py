"""What one Redis master and one API core carry: the figures docs/capacity.md rests on.

    python bench/capacity.py [--matches 40] [--processes 2] [--variants gin,rummy]

Starts a ``redis-server`` of its own on a free port (nothing else writes to it), then
``--processes`` processes play ``--matches`` whole matches each through the use cases
(the composition root in real mode, scoring steps paid in-process as ``make serve`` does),
each seat posting one of its legal actions in turn, read two ways (``--reads``): ``views``,
a front end that polls (the public view, then the seat's, before every move), and
``streams``, one fed by its live stream, which asks nothing before a move (the stream's
own cost, one read per event per API process, is bench/streams.py's). What the master
spent is read from the server itself, so other load on the machine changes it little:

- ``redis_cpu_us_per_event``: Redis's own CPU (``INFO cpu``, user + system) per stored
  event, every read and write the play made included; ``events_per_s_per_master`` is one
  core's worth of it (Redis runs commands on one thread);
- ``commands_per_action``: Redis commands per action (``INFO stats``), the reads of its
  views included, and ``busiest_commands``: the commands that took most of the master's
  time (``INFO commandstats``), per action;
- ``bytes_per_event`` and ``kib_per_match``: ``MEMORY USAGE`` of a finished match's keys,
  over its events, and in all;
- ``app_cpu_ms_per_action``: the playing processes' CPU per action (decide, evolve,
  render the views, the Redis client): the API's work without HTTP, a floor for
  ``bench/api_cpu.py``'s figure.

Prints JSON, one object per variant.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from domain.bots.policies import ENDERS, PLACEMENTS, discarding, keen, of_type  # noqa: E402
from service.bootstrap import bootstrap  # noqa: E402
from service.config import Settings  # noqa: E402

ADMIN = "bench-admin"
MATCHES = {"gin": (2, {"target": 100}), "gem": (2, {"target": 100}),
           "rummy": (4, {"rounds": 4}), "rami": (4, {"rounds": 4})}
"""Players and options of a typical match of each variant."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_redis(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    server = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1",
                               "--save", "", "--appendonly", "no", "--dir", str(workdir)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port)
    for _ in range(200):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    client.close()
    return server, f"redis://127.0.0.1:{port}/0"


def polled(wiring: Any, match_id: str, tokens: list[str]) -> tuple[str, str | None, dict]:
    """What a polling front end reads before a move: the public view, then the seat's."""
    public = wiring.queries.view(match_id, None)
    if public["phase"] in ("complete", "aborted") or public["turn"] is None:
        return public["phase"], None, {}
    token = tokens[public["turn"]]
    return public["phase"], token, wiring.queries.view(match_id, token)


def streamed(wiring: Any, match_id: str, tokens: list[str]) -> tuple[str, str | None, dict]:
    """What a front end fed by its stream knows before a move without asking: the match as
    the events it received made it (here: the repository's copy, brought up to date)."""
    match = wiring.queries.load(match_id)
    state, variant = match.state, match.variant
    if state.phase in ("complete", "aborted") or state.turn is None:
        return state.phase, None, {}
    return state.phase, tokens[state.turn], {
        "legal_actions": variant.legal_actions(state, state.turn),
        "best_discard": variant.best_discard(state, state.turn) or {}}


READS = {"views": polled, "streams": streamed}


def play_match(wiring: Any, variant: str, rng: random.Random,
               reads: str) -> tuple[str, int]:
    """One whole match, each seat reading what ``reads`` says before it acts; its id and
    actions."""
    players, options = MATCHES[variant]
    created = wiring.creation.create(
        {"variant": variant, "players": [{"name": f"P{n}"} for n in range(players)],
         "options": options}, ADMIN)
    match_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    actions = 0
    while True:
        phase, token, view = READS[reads](wiring, match_id, tokens)
        if phase in ("complete", "aborted"):
            return match_id, actions
        if token is None:
            continue
        best = view.get("best_discard", {}).get("cards", ())
        action = keen(rng, view["legal_actions"], (of_type(*ENDERS, *PLACEMENTS), 1.0),
                      (discarding(best), 1.0))
        wiring.play.act(match_id, token, action)
        actions += 1


def player(url: str, prefix: str, variant: str, reads: str, matches: int, seed: int,
           out: Any) -> None:
    settings = Settings(redis_url=url, admin_token=ADMIN, key_prefix=prefix)
    wiring = bootstrap(settings, redis.Redis.from_url(url), in_process=True)
    rng = random.Random(seed)
    started = time.process_time()
    played = [play_match(wiring, variant, rng, reads) for _ in range(matches)]
    out.put({"cpu_s": time.process_time() - started, "actions": sum(n for _, n in played),
             "match_ids": [m for m, _ in played]})
    wiring.close()


def redis_cpu_s(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def match_bytes(client: redis.Redis, match_id: str) -> tuple[int, int]:
    """(bytes of the match's event stream, bytes of every key of the match)."""
    stream = sum(client.memory_usage(key, samples=0) or 0
                 for key in client.scan_iter(match=f"*{{{match_id}}}*events*", count=1000))
    every = sum(client.memory_usage(key, samples=0) or 0
                for key in client.scan_iter(match=f"*{{{match_id}}}*", count=1000))
    return stream, every


def command_stats(client: redis.Redis) -> dict[str, tuple[int, float]]:
    """Per command: (calls, microseconds) so far."""
    return {name.removeprefix("cmdstat_"): (int(stat["calls"]), float(stat["usec"]))
            for name, stat in client.info("commandstats").items()}


def busiest(before: dict[str, tuple[int, float]], after: dict[str, tuple[int, float]],
            actions: int) -> dict[str, dict[str, float]]:
    """The commands that took most of the master's time, per action."""
    spent = {name: (calls - before.get(name, (0, 0.0))[0], usec - before.get(name, (0, 0.0))[1])
             for name, (calls, usec) in after.items()}
    top = sorted(spent.items(), key=lambda item: -item[1][1])[:6]
    return {name: {"calls_per_action": round(calls / actions, 2),
                   "us_per_action": round(usec / actions, 1)} for name, (calls, usec) in top}


def measure(url: str, variant: str, reads: str, matches: int,
            processes: int) -> dict[str, Any]:
    client = redis.Redis.from_url(url)
    prefix = f"cap{uuid.uuid4().hex[:6]}"
    cpu_before = redis_cpu_s(client)
    commands_before = int(client.info("stats")["total_commands_processed"])
    stats_before = command_stats(client)
    started = time.perf_counter()
    out: Any = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=player, args=(url, prefix, variant, reads,
                                                            matches, seed, out))
               for seed in range(processes)]
    for worker in workers:
        worker.start()
    results = [out.get() for _ in workers]
    for worker in workers:
        worker.join()
    wall_s = time.perf_counter() - started
    redis_s = redis_cpu_s(client) - cpu_before
    commands = int(client.info("stats")["total_commands_processed"]) - commands_before
    stats_after = command_stats(client)
    match_ids = [m for result in results for m in result["match_ids"]]
    actions = sum(result["actions"] for result in results)
    events = 0
    stream_bytes = every_bytes = 0
    for match_id in match_ids:
        events += int(client.xlen(f"{prefix}:{{{match_id}}}:events"))
        stream, every = match_bytes(client, match_id)
        stream_bytes, every_bytes = stream_bytes + stream, every_bytes + every
    client.close()
    return {
        "variant": variant, "reads": reads, "matches": len(match_ids), "actions": actions,
        "events": events,
        "events_per_match": round(events / len(match_ids), 1),
        "redis_cpu_us_per_event": round(redis_s / events * 1e6, 1),
        "events_per_s_per_master": round(events / redis_s),
        "commands_per_action": round(commands / actions, 1),
        "busiest_commands": busiest(stats_before, stats_after, actions),
        "bytes_per_event": round(stream_bytes / events),
        "kib_per_match": round(every_bytes / len(match_ids) / 1024, 1),
        "app_cpu_ms_per_action": round(sum(r["cpu_s"] for r in results) / actions * 1000, 2),
        "wall_s": round(wall_s, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40, help="matches per process")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--variants", default="gin,rummy")
    parser.add_argument("--reads", default="views,streams",
                        help="views: a front end that polls its views; streams: one fed by "
                             "its stream, reading nothing before a move")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        server, url = start_redis(Path(workdir))
        try:
            results = [measure(url, variant, reads, args.matches, args.processes)
                       for variant in args.variants.split(",")
                       for reads in args.reads.split(",")]
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(json.dumps({"redis_py": redis.__version__, "results": results}, indent=2))


if __name__ == "__main__":
    main()
