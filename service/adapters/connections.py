"""Redis connections whose pool checks them cheaply before handing one out.

redis-py checks every connection it takes from a pool for unread data (``can_read``, a
zero-timeout poll of its socket): a connection given back with a reply half read, or
closed by the server, must not carry the next command. Under gevent (the API's gunicorn
worker) the patched ``select.poll`` builds, starts and stops a watcher on the event loop
for every such poll, which cost the API about a tenth of its CPU per request (one check
per command). A zero-timeout poll never blocks, so ``PlainPollConnection`` asks the
operating system's own ``poll`` first; only a socket that reads as ready (data, or the
server gone) goes on to redis-py's own check, which tells the two apart.
"""

from __future__ import annotations

import select
from typing import Any
from urllib.parse import urlsplit

from redis.connection import Connection


def _plain_poll() -> Any:
    """``select.poll`` as the operating system gives it, even where gevent patched it."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency of the server
        return select.poll
    return monkey.get_original("select", "poll")


_POLL = _plain_poll()


class PlainPollConnection(Connection):
    """A TCP connection to Redis whose readiness check without a timeout polls the socket
    with the operating system's ``poll`` (module docstring)."""

    def can_read(self, timeout: float = 0) -> bool:
        sock, reader = self._sock, getattr(self._parser, "_reader", None)
        if timeout or sock is None or reader is None or reader.has_data():
            return bool(super().can_read(timeout))
        poller = _POLL()
        poller.register(sock, select.POLLIN)
        if not poller.poll(0):
            return False
        return bool(super().can_read(timeout))


def quick_connections(url: str) -> dict[str, Any]:
    """The pool options that give a ``redis://`` URL's connections the cheap check (a
    cluster client's too: its nodes' URLs are ``redis://``); none for any other kind (TLS,
    a Unix socket, the limits' ``redis+cluster://`` or ``memory://``), which keep
    redis-py's."""
    return {"connection_class": PlainPollConnection} if urlsplit(url).scheme == "redis" else {}
