"""A real Redis Cluster of its own for the tests: three masters (no replicas unless asked:
``replicas=1`` gives each master one) started from ``redis-server`` on free ports in a
temporary directory, joined by ``redis-cli --cluster create``. Only its own processes are
stopped at the end.

The session fixture ``redis_cluster`` (tests/conftest.py) gives one to the store contract
suite and the API tests on a cluster; a test that kills a master starts a small one of
its own (``ClusterProcesses``)."""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from redis import Redis
from redis.cluster import RedisCluster

MASTERS = 3
START_S = 20.0


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_ports(count: int) -> list[int]:
    """``count`` ports that are free with their cluster bus ports (port + 10000), below the
    kernel's ephemeral range so no outgoing connection takes one meanwhile."""
    ports: list[int] = []
    while len(ports) < count:
        port = random.randint(20000, 29999)
        if port not in ports and _bindable(port) and _bindable(port + 10000):
            ports.append(port)
    return ports


def missing() -> str | None:
    """Why no cluster can be started here (None: it can)."""
    for program in ("redis-server", "redis-cli"):
        if shutil.which(program) is None:
            return f"{program} is not on PATH"
    return None


class ClusterProcesses:
    """The redis-server processes of one cluster, and their ports."""

    def __init__(self, directory: Path, masters: int = MASTERS, replicas: int = 0) -> None:
        self.directory = directory
        self.replicas = replicas
        self.ports = cluster_ports(masters * (1 + replicas))
        self.processes: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        """Any node's URL (the first's)."""
        return f"redis://127.0.0.1:{self.ports[0]}"

    def masters(self) -> list[int]:
        """The ports of the live masters."""
        roles = {}
        for port in self.processes:
            with self.node(port) as node:
                roles[port] = node.info("replication")["role"]
        return [port for port, role in roles.items() if role == "master"]

    def start(self) -> None:
        for port in self.ports:
            node = self.directory / str(port)
            node.mkdir(parents=True, exist_ok=True)
            log = (node / "redis.log").open("ab")
            self.processes[port] = subprocess.Popen(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                 "--cluster-enabled", "yes", "--cluster-config-file", str(node / "nodes.conf"),
                 "--cluster-node-timeout", "1000", "--save", "", "--appendonly", "no",
                 "--dir", str(node)],
                stdout=log, stderr=subprocess.STDOUT)
            log.close()
        for port in self.ports:
            self._wait(lambda port=port: self._ping(port), f"redis-server on {port}")
        subprocess.run(["redis-cli", "--cluster", "create",
                        *(f"127.0.0.1:{port}" for port in self.ports),
                        "--cluster-replicas", str(self.replicas), "--cluster-yes"],
                       check=True, capture_output=True, timeout=START_S)
        self._wait(self.ok, "cluster_state:ok on every node")
        self._wait(self.replicas_synced, "every replica in sync with its master")

    def replicas_synced(self) -> bool:
        """Whether every replica's link to its master is up (a full sync done)."""
        for port in self.processes:
            with self.node(port) as node:
                info = node.info("replication")
            if info["role"] == "slave" and info.get("master_link_status") != "up":
                return False
        return True

    def _ping(self, port: int) -> bool:
        return subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True,
                              timeout=5).stdout.strip() == b"PONG"

    def _info(self, port: int) -> str:
        return subprocess.run(["redis-cli", "-p", str(port), "cluster", "info"],
                              capture_output=True, timeout=5).stdout.decode()

    def ok(self) -> bool:
        return all("cluster_state:ok" in self._info(port) for port in self.processes)

    def _wait(self, ready: object, what: str) -> None:
        deadline = time.monotonic() + START_S
        while not ready():  # type: ignore[operator]
            for port, process in self.processes.items():
                if process.poll() is not None:
                    raise RuntimeError(f"redis-server on {port} exited: see {self.directory}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the test cluster is not ready: {what}")
            time.sleep(0.05)

    def client(self, **options: object) -> RedisCluster:
        return RedisCluster.from_url(self.url, **options)  # type: ignore[arg-type]

    def node(self, port: int) -> Redis:
        """A plain client of one node (close it)."""
        return Redis(host="127.0.0.1", port=port)

    def ids(self) -> dict[int, str]:
        """Each node's cluster id, by port."""
        ids = {}
        for port in self.processes:
            with self.node(port) as node:
                ids[port] = node.execute_command("CLUSTER", "MYID").decode()
        return ids

    def owner(self, slot: int) -> int:
        """The port of the master serving ``slot``, as the first live node sees it."""
        with self.node(next(iter(self.processes))) as node:
            nodes = node.execute_command("CLUSTER", "NODES").decode()
        for line in nodes.splitlines():
            fields = line.split()
            for served in fields[8:]:
                low, _, high = served.partition("-")
                if low.isdigit() and int(low) <= slot <= int(high or low):
                    return int(fields[1].split(":")[1].split("@")[0])
        raise LookupError(f"no master serves slot {slot}")

    def move_slot(self, slot: int, to_port: int, batch: int = 10, pause_s: float = 0.0) -> int:
        """Move ``slot`` and its keys to the master on ``to_port`` as ``redis-cli --cluster
        reshard`` does: the target IMPORTING, the source MIGRATING, the keys MIGRATEd
        ``batch`` at a time (``pause_s`` between batches widens the window in which a
        command meets the slot half moved), then the new owner told to every master.
        Returns the keys moved."""
        ids = self.ids()
        from_port = self.owner(slot)
        if from_port == to_port:
            return 0
        with self.node(to_port) as target, self.node(from_port) as source:
            target.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", ids[from_port])
            source.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", ids[to_port])
            moved = 0
            while keys := source.execute_command("CLUSTER", "GETKEYSINSLOT", slot, batch):
                source.execute_command("MIGRATE", "127.0.0.1", to_port, "", 0, 5000,
                                       "KEYS", *keys)
                moved += len(keys)
                time.sleep(pause_s)
            target.execute_command("CLUSTER", "SETSLOT", slot, "NODE", ids[to_port])
            source.execute_command("CLUSTER", "SETSLOT", slot, "NODE", ids[to_port])
        for port in self.processes:
            if port not in (from_port, to_port):
                with self.node(port) as other:
                    other.execute_command("CLUSTER", "SETSLOT", slot, "NODE", ids[to_port])
        return moved

    def errors(self) -> dict[str, int]:
        """The error replies every node gave so far, by kind (``INFO errorstats``:
        MOVED, ASK, TRYAGAIN, ...), summed over the nodes."""
        total: dict[str, int] = {}
        for port in self.processes:
            with self.node(port) as node:
                for name, stats in node.info("errorstats").items():
                    kind = name.removeprefix("errorstat_")
                    total[kind] = total.get(kind, 0) + int(stats["count"])
        return total

    def kill(self, port: int) -> None:
        """Kill one node (its own process only) and wait for it to be gone."""
        process = self.processes.pop(port)
        process.kill()
        process.wait(timeout=10)

    def stop(self) -> None:
        for port in list(self.processes):
            self.kill(port)


def disconnect(client: object) -> None:
    """Close a cluster client's sockets: ``RedisCluster.close`` leaves the pools of a
    client made ``from_url`` (the server's) connected."""
    if isinstance(client, RedisCluster):
        for node in client.get_nodes():
            if node.redis_connection is not None:
                node.redis_connection.connection_pool.disconnect()
    client.close()  # type: ignore[attr-defined]


@contextmanager
def running_cluster(directory: Path, masters: int = MASTERS,
                    replicas: int = 0) -> Iterator[ClusterProcesses]:
    """A cluster of ``masters`` masters, each with ``replicas`` replicas, until the block
    ends; stopped however it ends."""
    cluster = ClusterProcesses(directory, masters, replicas)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
