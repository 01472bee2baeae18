"""How soon an entry on a Redis Cluster reaches the stream hub's subscribers, per master.

    python bench/cluster_fanout.py [--keys 12] [--entries 60] [--masters 3]

Starts a cluster of its own (``tests.cluster``: ``redis-server`` on free ports, stopped at
the end), builds one stream hub on the cluster client as the server does, subscribes
``--keys`` stream keys spread over the masters, then appends ``--entries`` entries in
turn over the keys, each announced on its key's channel as every writer does, and waits
for its subscriber to get it before the next. Prints JSON: per master, the median and
the largest time from the append to the delivery (ms).

With one listener per master the delivery is a few milliseconds whichever master holds
the key; redis-py's cluster pub/sub, which the hub used before, polled the masters one
after another, each with the hub's wait (1 s), so an entry waited 1 to 2 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.adapters.fanout import StreamHub, notify  # noqa: E402
from service.bootstrap import _cluster  # noqa: E402
from tests.cluster import disconnect, running_cluster  # noqa: E402


def measure(url: str, keys: int, entries: int) -> dict[str, dict[str, float]]:
    events = _cluster(url)
    hub = StreamHub(events, "bench:{wake}", idle_ms=1000)
    try:
        names = [f"bench:{{m{n}}}:events" for n in range(keys)]
        subs = {name: hub.subscribe({name: "0-0"}, idle_s=30.0) for name in names}
        time.sleep(1.0)  # every channel subscribed and confirmed
        waited: dict[str, list[float]] = {}
        for n in range(1, entries + 1):
            name = names[n % keys]
            began = time.monotonic()
            events.xadd(name, {"n": str(n)}, id=f"{n}-0")
            notify(events, name)
            while not subs[name].get():
                pass
            waited.setdefault(events.get_node_from_key(name).name, []).append(
                time.monotonic() - began)
        return {master: {"median_ms": round(statistics.median(times) * 1000, 1),
                         "max_ms": round(max(times) * 1000, 1), "entries": len(times)}
                for master, times in sorted(waited.items())}
    finally:
        hub.close()
        time.sleep(1.5)  # the shard readers end before the cluster stops
        disconnect(events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=12)
    parser.add_argument("--entries", type=int, default=60)
    parser.add_argument("--masters", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory, \
            running_cluster(Path(directory), options.masters) as cluster:
        print(json.dumps(measure(cluster.url, options.keys, options.entries), indent=2))


if __name__ == "__main__":
    main()
