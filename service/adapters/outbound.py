"""One outbound POST of a webhook, to an address the policy checked (``addresses``).

The host is resolved once; under ``deny`` every address it resolves to must be allowed, and
the connection goes to one of those very addresses. An HTTP client that resolved the name
again when it connected could be sent elsewhere by a DNS answer that changed in between
(DNS rebinding). The request still names the URL's host: the ``Host`` header, and for https
the TLS server name and the certificate check, which uses the system's trust store.

No proxies and no redirects: the endpoint gets the POST directly, and a redirect is an
answer (its status), not a delivery.
"""

from __future__ import annotations

import functools
import http.client
import socket
import ssl
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.adapters.addresses import IPAddress, Unreachable, destinations


@dataclass(frozen=True)
class Target:
    host: str
    port: int
    tls: bool
    path: str


def target(url: str) -> Target:
    """Where ``url`` points; ``Unreachable`` when it cannot be read (``[::::]``)."""
    try:
        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise Unreachable(f"unreadable URL: {exc}") from exc
    if not host or parts.scheme.lower() not in ("http", "https"):
        raise Unreachable("unreadable URL")
    tls = parts.scheme.lower() == "https"
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(host, port or (443 if tls else 80), tls, path)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The system's trust store, hostnames checked (built on first use, not at import)."""
    return ssl.create_default_context()


class PinnedConnection(http.client.HTTPConnection):
    """HTTP, or HTTPS when ``tls`` is given, to ``host`` over a socket connected to one of
    ``addresses``: no DNS lookup of its own."""

    def __init__(self, host: str, port: int, addresses: Sequence[IPAddress],
                 tls: ssl.SSLContext | None, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.default_port = 443 if tls is not None else 80  # the Host header omits it
        self._addresses = tuple(addresses)
        self._tls = tls
        self._timeout = timeout

    def connect(self) -> None:
        sock = _connect(self._addresses, self.port, self._timeout)
        if self._tls is None:
            self.sock = sock
            return
        try:
            self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise


def _connect(addresses: Sequence[IPAddress], port: int, timeout: float) -> socket.socket:
    """A socket to the first of ``addresses`` that accepts (all of them were checked),
    within ``timeout`` for them all: a name with many silent addresses cannot stretch an
    attempt past its job's time limit."""
    deadline = time.monotonic() + timeout
    error: OSError = TimeoutError("no address answered in time")
    for address in addresses:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            return socket.create_connection((str(address), port), left)
        except OSError as exc:
            error = exc
    raise error


def post(url: str, headers: Mapping[str, str], body: bytes, timeout: float,
         private: bool) -> int:
    """POST ``body`` to ``url``; the HTTP status of the answer, or ``Unreachable``.

    ``private`` is ``RUMMY_WEBHOOK_PRIVATE=allow``: any address may be reached.
    """
    where = target(url)
    addresses = destinations(where.host, where.port, private, timeout)
    connection = PinnedConnection(where.host, where.port, addresses,
                                  tls_context() if where.tls else None, timeout)
    try:
        connection.request("POST", where.path, body=body,
                           headers={**headers, "Connection": "close"})
        with connection.getresponse() as response:
            return int(response.status)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise Unreachable(f"{where.host} port {where.port}: {_reason(exc)}") from exc
    finally:
        connection.close()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timeout"
    return (str(exc) or type(exc).__name__)[:300]
