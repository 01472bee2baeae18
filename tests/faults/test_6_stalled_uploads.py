"""Stalled audit uploads against real processes: gunicorn's gevent worker (two workers,
service/gunicorn_conf.py, the default deadlines) on the harness's redis-server, with the
abuse limits on.

Twelve uploads from one address each declare a body just under 6 MiB of lines that pass
every line check but pack as many small objects as a line may (parsed and kept, about 24
bytes of Python objects per body byte), send all of it but the last bytes, and wait. The
workers used to keep every parsed record (about 140 MiB an upload, 900 MB a worker) for as
long as the client waited. Now a worker holds the line it checks, the spool is on disk,
and the body's deadline closes each connection: the workers' resident memory stays within
``RSS_BOUND_MIB`` of what it was (docs/audit-and-replay.md), every other
request is served meanwhile, and every stalled upload is answered 408 ``body_timeout`` and
its connection closed.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from pathlib import Path

from service.config import Deadlines
from service.usecases.log_upload import MAX_LOG_BYTES
from tests.faults.conftest import (
    ROOT,
    Http,
    Stack,
    gevent_api,
    group_pids,
)
from tests.service.test_matches_api import DECK
from tests.usecases.test_uploaded_logs import packed

UPLOADS = 12
HELD_BACK = 100
"""Bytes of each body never sent."""
RSS_BOUND_MIB = 40
"""How much any worker's resident memory may grow while the uploads are held, and after."""
CUT_AFTER_S = Deadlines().grace_s + 64 * 1024 / Deadlines().min_rate
"""When the default deadlines cut a body that went silent: a grace and one read's time."""
CUT_SLACK_S = 10.0
"""How late a cut may come: the server's timers run seconds late when the 2 cores are busy
(23.5 s for an 18 s deadline was seen under a doubled load), and any slack far short of the
120 s cap still tells a cut by the rate deadline from one by the cap."""
SERVED_WITHIN_S = 2.0


def workers_rss_mib(master: int) -> dict[int, float]:
    """Each gunicorn worker's resident memory (children of ``master``), MiB."""
    found = {}
    for pid in group_pids(master) - {master}:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[1]) != master or b"gunicorn" not in Path(
                    f"/proc/{pid}/cmdline").read_bytes():
                continue
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
        found[pid] = int(line.split()[1]) / 1024
    return found


class Sampler(threading.Thread):
    """The workers' largest resident memory seen, every 0.2 s, until stopped."""

    def __init__(self, master: int) -> None:
        super().__init__(daemon=True)
        self.master, self.peak, self.stopped = master, {}, threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.2):
            for pid, mib in workers_rss_mib(self.master).items():
                self.peak[pid] = max(self.peak.get(pid, 0.0), mib)


class StalledUpload:
    """A POST /v1/audits that sends all its body but ``HELD_BACK`` bytes, then waits."""

    def __init__(self, port: int, body: bytes) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=CUT_AFTER_S + 30)
        self.body, self.sent_at, self.closed_at = body, 0.0, 0.0
        self.received = b""

    def send(self) -> None:
        self.sock.sendall(f"POST /v1/audits HTTP/1.1\r\nHost: test\r\nContent-Type: "
                          f"application/x-ndjson\r\nContent-Length: {len(self.body)}\r\n\r\n"
                          .encode() + self.body[:-HELD_BACK])
        self.sent_at = time.monotonic()

    def wait_closed(self) -> None:
        try:
            while chunk := self.sock.recv(65536):
                self.received += chunk
        except ConnectionResetError:
            pass
        self.closed_at = time.monotonic()
        self.sock.close()

    def answer(self) -> tuple[int, str]:
        head, _, body = self.received.partition(b"\r\n\r\n")
        return int(head.split()[1]), json.loads(body)["code"]


def audit(port: int, log: bytes) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/v1/audits", log, {"Content-Type": "application/x-ndjson"})
        answer = conn.getresponse()
        answer.read()
        return answer.status
    finally:
        conn.close()


def served(http: Http, match: dict, token: str) -> list[float]:
    """A health check, a match view and an action: each must be answered, in seconds."""
    health = http.request("GET", "/healthz", timeout=10)
    view = http.request("GET", f"/v1/matches/{match['id']}", timeout=10)
    moved = http.request("POST", f"/v1/matches/{match['id']}/actions", {"type": "pass"},
                         token=token, timeout=10)
    assert (health.status, view.status, moved.status) == (200, 200, 200), moved.body
    return [health.seconds, view.seconds, moved.seconds]


def test_twelve_stalled_uploads_from_one_address_cost_little_and_are_cut(stack: Stack):
    proc, http = gevent_api(stack, "uploads", 2)
    assert proc.pid is not None
    uploads: list[StalledUpload] = []
    sampler = Sampler(proc.pid)
    try:
        created = http.request("POST", "/v1/matches", {
            "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
            "options": {"first_dealer": 0}, "deck": DECK}, token=stack.admin)
        assert created.status == 201, created.body
        match, golden = created.body, (ROOT / "tests/fixtures/golden/gin-2p-schema1.ndjson")
        for _ in range(4):  # both workers have verified a log and served views
            assert http.request("GET", f"/v1/matches/{match['id']}").status == 200
            assert audit(http.port, golden.read_bytes()) == 200
        before = workers_rss_mib(proc.pid)
        assert len(before) == 2, before
        sampler.start()

        body = packed(MAX_LOG_BYTES - 1000)
        assert MAX_LOG_BYTES - 200_000 < len(body) < MAX_LOG_BYTES
        uploads = [StalledUpload(http.port, body) for _ in range(UPLOADS)]
        senders = [threading.Thread(target=upload.send) for upload in uploads]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join(30)
        assert all(upload.sent_at for upload in uploads), "an upload could not be sent"
        time.sleep(2)  # the workers have read what was sent

        seconds = served(http, match, match["seats"][1]["token"])
        assert max(seconds) < SERVED_WITHIN_S, seconds
        held = workers_rss_mib(proc.pid)

        closers = [threading.Thread(target=upload.wait_closed) for upload in uploads]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join(CUT_AFTER_S + 30)
        sampler.stopped.set()
        after = workers_rss_mib(proc.pid)
        assert http.request("GET", "/healthz").status == 200
    finally:
        sampler.stopped.set()
        for upload in uploads:
            upload.sock.close()
        proc.stop(grace=10)

    print(f"\n[faults] workers' RSS MiB before {before}, held {held}, peak {sampler.peak}, "
          f"after {after}; other requests took {seconds} s")
    for pid, mib in before.items():
        assert sampler.peak.get(pid, mib) - mib < RSS_BOUND_MIB, (pid, sampler.peak, before)
        assert after[pid] - mib < RSS_BOUND_MIB, (pid, after, before)
    assert [upload.answer() for upload in uploads] == [(408, "body_timeout")] * UPLOADS
    waited = [upload.closed_at - upload.sent_at for upload in uploads]
    assert max(waited) < CUT_AFTER_S + CUT_SLACK_S, waited
