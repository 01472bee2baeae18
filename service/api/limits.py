"""Abuse limits (Flask-Limiter): match creation without a token, seat claims, log audits
and stream opens per client address, actions and stream tickets per token.

Counters live in the same Redis as the matches (``{prefix}:limits:...``), so every API
process shares them; embedded mode counts in memory. A refused request gets 429
``rate_limited`` with ``Retry-After``; every limited route answers with ``RateLimit-Limit``,
``RateLimit-Remaining`` and ``RateLimit-Reset``. While Redis does not answer, requests are
let through unlimited (they then get 503 ``store_unavailable`` from the store, never a 500
from the limiter). Behind a reverse proxy, make the proxy's
client address the request's (``werkzeug.middleware.proxy_fix.ProxyFix``), or every
client counts as the proxy.
"""

from __future__ import annotations

import hashlib
from typing import Any

from flask import Flask
from flask_limiter import HeaderNames, Limiter
from flask_limiter.util import get_remote_address

from service.api.base import bearer_token
from service.config import Settings

HEADERS = {HeaderNames.LIMIT: "RateLimit-Limit", HeaderNames.REMAINING: "RateLimit-Remaining",
           HeaderNames.RESET: "RateLimit-Reset", HeaderNames.RETRY_AFTER: "Retry-After"}


def token_or_address() -> str:
    """A token's holder is counted by its token (hashed), anybody else by address."""
    token = bearer_token()
    if token:
        return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]
    return "address:" + (get_remote_address() or "unknown")


def anonymous() -> bool:
    return not bearer_token()


def limit_abuse(app: Flask, settings: Settings) -> None:
    """Put the limits of ``settings`` on the app's routes (none when they are off)."""
    limits = settings.rate_limits
    if limits is None:
        return
    limiter = Limiter(get_remote_address, app=app, headers_enabled=True,
                      header_name_mapping=HEADERS, retry_after="delta-seconds",
                      storage_uri=settings.redis_url or "memory://",
                      key_prefix=f"{settings.key_prefix}:limits", strategy="moving-window",
                      swallow_errors=True)
    views = app.view_functions

    def limit(endpoint: str, value: str, methods: list[str], **options: Any) -> None:
        limited: Any = limiter.limit(value, methods=methods, **options)(views[endpoint])
        views[endpoint] = limited

    limit("matches.Matches", limits.create, ["POST"], exempt_when=lambda: not anonymous())
    limit("seats.Claim", limits.create, ["POST"])
    limit("audits.Audits", limits.create, ["POST"])
    limit("matches.Actions", limits.actions, ["POST"], key_func=token_or_address)
    limit("matches.StreamTickets", limits.tickets, ["POST"], key_func=token_or_address)
    limit("feed.FeedTickets", limits.tickets, ["POST"], key_func=token_or_address)
    limit("matches.Stream", limits.streams, ["GET"])
    limit("feed.Feed", limits.streams, ["GET"])
