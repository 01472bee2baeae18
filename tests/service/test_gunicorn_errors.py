"""gunicorn's own refusals are JSON in the API's error shape (service/gunicorn_errors.py).

A real gunicorn (``live_server``, configured by service/gunicorn_conf.py as every deployment
wires the hook) gets a request line past its limit (414), too many headers and one too
large (431), and a request line that is no HTTP at all (400).
"""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest

from service.gunicorn_errors import error_body


def raw_request(url: str, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes; the status, headers and body gunicorn answers with."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}
    return int(status_line.split()[1]), headers, body


# The request line is past gunicorn's 4094-byte limit yet within one read: a longer one
# leaves bytes unread, and closing over them resets the connection before the answer is read.
@pytest.mark.parametrize("request_bytes, status, code", [
    (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request_line_too_long"),
    (b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(200))
     + b"\r\n", 431, "headers_too_large"),
    (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"v" * 9000 + b"\r\n\r\n", 431,
     "headers_too_large"),
    (b"NOT HTTP AT ALL\r\n\r\n", 400, "invalid_request"),
])
def test_gunicorns_own_errors_are_json(live_server, request_bytes, status, code):
    answer_status, headers, body = raw_request(live_server, request_bytes)
    assert answer_status == status, body[:300]
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body)
    error = json.loads(body)
    assert error["code"] == code and isinstance(error["message"], str) and error["message"]


def test_an_unknown_status_still_has_the_shape():
    assert json.loads(error_body(418, "I'm a teapot", "")) == {
        "code": "http_error", "message": "I'm a teapot"}
