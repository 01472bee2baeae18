"""A refused upload under a real gunicorn (``live_server``: the gevent worker, configured by
service/gunicorn_conf.py as every deployment is) is answered as soon as it is refused, and
its connection is closed rather than read on (issue 16, finding 5).

The client sends a body that never ends, chunked or under a huge ``Content-Length``, from
a thread, as fast as the server takes it, and reads the answer meanwhile. gunicorn used to
read the rest of a refused body for its 2-second keep-alive timeout, hundreds of
megabytes of it; now it reads at most 64 KiB more (service/gunicorn_bodies.py).
"""

from __future__ import annotations

import json
import socket
import threading
from urllib.parse import urlsplit

import pytest

from service.usecases.uploaded_logs import MAX_LOG_BYTES

BUFFERS = 64 * 1024 * 1024
"""What the kernel may take from the sender without the server reading it: the sender's
send buffer (64 KiB, set below) and the server's receive buffer (tcp_rmem, up to 32 MiB)."""
BLANK = b" " * 1000 + b"\n"
"""A blank line: nothing to refuse in it but its size."""


class EndlessUpload:
    """A POST whose body never ends: ``first``, then ``filler`` until the server hangs up."""

    def __init__(self, url: str, path: str, framing: str, first: bytes, filler: bytes) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
        length = "Transfer-Encoding: chunked" if framing == "chunked" else \
            f"Content-Length: {10 ** 12}"
        self.head = (f"POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: "
                     f"application/x-ndjson\r\n{length}\r\n\r\n").encode()
        self.first, self.filler, self.framing = first, filler * 64, framing
        self.sent = 0

    def frame(self, data: bytes) -> bytes:
        return b"%x\r\n%s\r\n" % (len(data), data) if self.framing == "chunked" else data

    def send(self) -> None:
        try:
            self.sock.sendall(self.head + (self.frame(self.first) if self.first else b""))
            chunk = self.frame(self.filler)
            while True:
                self.sock.sendall(chunk)
                self.sent += len(self.filler)
        except OSError:
            return  # the server hung up: what we wanted

    def answer(self) -> tuple[int, dict[str, str]]:
        """The status and JSON body, read while the sender sends; then until the server
        closes the connection."""
        sender = threading.Thread(target=self.send, daemon=True)
        sender.start()
        received = b""
        try:
            while chunk := self.sock.recv(65536):
                received += chunk
        except ConnectionResetError:
            pass  # closed with the client's bytes unread: a reset, after the answer
        sender.join(30)
        self.sock.close()
        assert not sender.is_alive(), "the server never hung up"
        head, _, body = received.partition(b"\r\n\r\n")
        return int(head.split()[1]), json.loads(body)


@pytest.mark.parametrize("path, framing, first, status, code, read", [
    ("/v1/audits", "chunked", b"", 413, "payload_too_large", MAX_LOG_BYTES),
    ("/v1/audits", "chunked", b"not json\n", 400, "not_a_log", 0),
    ("/v1/audits", "length", b"", 413, "payload_too_large", 0),
    ("/v1/matches", "chunked", b"", 400, "invalid_request", 0),  # no JSON: left unread
])
def test_a_refused_upload_is_answered_at_once_and_its_connection_closed(
        live_server, path, framing, first, status, code, read):
    upload = EndlessUpload(live_server, path, framing, first, BLANK)
    answered, error = upload.answer()
    assert (answered, error["code"]) == (status, code), error
    assert upload.sent <= read + BUFFERS, f"the server read on: {upload.sent} bytes"
