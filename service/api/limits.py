"""Abuse limits (Flask-Limiter): match creation without an organiser's token, seat claims,
log audits, stream opens and failed authentications per client address, actions and stream
tickets per token, verification and analysis requests per client address and per match (a
tournament's verifications per client address and per tournament). Every
per-address count keys the client by ``client_address``: an IPv6 client by its /64, an
IPv4 one by its address.

Counters live in the limiter's storage (``{prefix}:limits:...``): ``RUMMY_RATE_LIMIT_STORAGE``,
by default the job Redis (``RQ_REDIS_URL``, itself by default the matches' Redis), so every
API process shares them; embedded mode counts in memory. A refused request gets 429
``rate_limited`` with ``Retry-After``; every limited route answers with ``RateLimit-Limit``,
``RateLimit-Remaining`` and ``RateLimit-Reset``. While Redis does not answer, requests are
let through unlimited (they then get 503 ``store_unavailable`` from the store, never a 500
from the limiter). Behind a reverse proxy, make the proxy's
client address the request's (``werkzeug.middleware.proxy_fix.ProxyFix``), or every
client counts as the proxy.

Failed authentication (a 401 for a token or ticket that names nobody) counts against the
client's address; past the ``auth_failures`` limit, every request from that address that
carries a token or a ticket is refused with 429 before anything is looked up, so guessing
tokens costs the guesser, not the server; the admin token and live organiser keys still get
in (``FailedAuthentication``). A storage outage is logged once a minute on one
line (``StorageOutageLog``), not as a traceback per request.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import time
from typing import Any

from flask import Flask, Response, g, has_request_context, request
from flask_limiter import HeaderNames, Limiter
from flask_limiter.util import get_remote_address
from limits import RateLimitItem, parse
from limits.storage import RedisStorage, Storage
from limits.strategies import MovingWindowRateLimiter
from limits.util import WindowStats
from werkzeug.exceptions import TooManyRequests

from service.api.base import bearer_token, credentials_sent, use_cases
from service.api.errors import STORE_RETRY_AFTER_S
from service.api.observed import route
from service.config import Settings

log = logging.getLogger("rummy.limits")

HEADERS = {HeaderNames.LIMIT: "RateLimit-Limit", HeaderNames.REMAINING: "RateLimit-Remaining",
           HeaderNames.RESET: "RateLimit-Reset", HeaderNames.RETRY_AFTER: "Retry-After"}


def address_key(address: str) -> str:
    """What a per-address limit counts for ``address``: an IPv4 address as it is, an
    IPv4-mapped IPv6 address as its IPv4 one, any other IPv6 address as its /64.

    A subscriber (a home, a server) is given a whole /64, and every address of it is theirs
    to use: counted one by one, an IPv6 client had 2^64 budgets. Text that is no address
    (a proxy's odd header) is counted as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


def client_address() -> str:
    """The request's client as every per-address limit counts it (``address_key``)."""
    return address_key(get_remote_address() or "unknown")


def token_or_address() -> str:
    """A token's holder is counted by its token (hashed), anybody else by address."""
    token = bearer_token()
    if token:
        return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]
    return "address:" + client_address()


def organiser_or_admin() -> bool:
    """Only a valid organiser key or the admin token lifts the creation limit: any other
    token (a seat's, a creator's) is counted like no token, and a made-up one never gets
    this far (401 ``invalid_token``, ``service.api.base``)."""
    token = bearer_token()
    return bool(token) and use_cases().access.organiser(token) is not None


def match_in_path() -> str:
    """The match a request names: a budget shared by every address that asks about it
    (verifications, analyses), so rotating addresses does not multiply one match's jobs."""
    return "match:" + str((request.view_args or {}).get("match_id", ""))


def tournament_in_path() -> str:
    """The tournament a request names, as ``match_in_path`` (its verifications)."""
    return "tournament:" + str((request.view_args or {}).get("tournament_id", ""))


# KEYS: the limit's list of hit times, newest first. ARGV: now, limit, expiry (s), cost.
# limits' own moving-window acquire, then its window read, in one script: returns
# {acquired (1/0), the oldest time still in the window, how many are in it}.
_HIT_AND_WINDOW = """
local now, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local expiry, cost = tonumber(ARGV[3]), tonumber(ARGV[4])
local acquired = 0
if cost <= limit then
  local entry = redis.call('lindex', KEYS[1], limit - cost)
  if not (entry and tonumber(entry) >= now - expiry) then
    local entries = {}
    for i = 1, cost do entries[i] = now end
    for i = 1, #entries, 5000 do
      redis.call('lpush', KEYS[1], unpack(entries, i, math.min(i + 4999, #entries)))
    end
    redis.call('ltrim', KEYS[1], 0, limit - 1)
    redis.call('expire', KEYS[1], expiry)
    acquired = 1
  end
end
local low, high, found = 0, limit - 1, nil
while low <= high do
  local mid = math.floor((low + high) / 2)
  local value = tonumber(redis.call('lindex', KEYS[1], mid))
  if value and value >= now - expiry then
    found = mid
    low = mid + 1
  else
    high = mid - 1
  end
end
if found == nil then return {acquired, tostring(now), 0} end
return {acquired, redis.call('lindex', KEYS[1], found), found + 1}
"""


class WindowFromHit(MovingWindowRateLimiter):
    """The moving window whose hit also answers with the window it leaves, kept for the
    request: the ``RateLimit-*`` headers of a limited route are read from it instead of
    a second script after the view (one round trip to the limits' storage less per
    limited request). The headers say what a read right after the hit would have said;
    a storage other than Redis (embedded mode's memory) is read as before."""

    def __init__(self, storage: Storage) -> None:
        super().__init__(storage)
        redis_storage: Any = storage if isinstance(storage, RedisStorage) else None
        self._script = (None if redis_storage is None
                        else redis_storage.get_connection().register_script(_HIT_AND_WINDOW))

    def hit(self, item: RateLimitItem, *identifiers: str, cost: int = 1) -> bool:
        if self._script is None or not has_request_context():
            return super().hit(item, *identifiers, cost=cost)
        key = item.key_for(*identifiers)
        storage: Any = self.storage
        acquired, oldest, count = self._script(
            [storage.prefixed_key(key)], [time.time(), item.amount, item.get_expiry(), cost])
        windows = g.setdefault("rate_limit_windows", {})
        windows[key] = WindowStats(float(oldest) + item.get_expiry(), item.amount - int(count))
        return bool(acquired)

    def test(self, item: RateLimitItem, *identifiers: str, cost: int = 1) -> bool:
        """Whether ``cost`` more would fit, from one ``LINDEX``: the list holds the hit
        times newest first, so the window has room for ``cost`` unless the entry
        ``cost`` places from its end is still in it. The same answer as limits' own test,
        whose script searches the list for the window's oldest entry; the failed
        authentications' test runs on every request with credentials."""
        if self._script is None:
            return super().test(item, *identifiers, cost=cost)
        place = item.amount - cost
        if cost <= 0 or place < 0:
            return cost <= 0
        storage: Any = self.storage
        entry = storage.get_connection().lindex(storage.prefixed_key(item.key_for(*identifiers)),
                                                place)
        return entry is None or float(entry) < time.time() - item.get_expiry()

    def get_window_stats(self, item: RateLimitItem, *identifiers: str) -> WindowStats:
        if has_request_context():
            known = g.get("rate_limit_windows", {}).get(item.key_for(*identifiers))
            if known is not None:
                return known  # type: ignore[no-any-return]
        return super().get_window_stats(item, *identifiers)


class StorageOutageLog(logging.Filter):
    """One line a minute while the limits' storage does not answer, instead of the
    traceback Flask-Limiter logs for every request it lets through unlimited."""

    EVERY_S = 60.0

    def __init__(self) -> None:
        super().__init__()
        self._last = float("-inf")
        self._quiet = 0

    def note(self, exc: BaseException) -> None:
        now = time.monotonic()
        if now - self._last < self.EVERY_S:
            self._quiet += 1
            return
        log.warning("rate-limit storage unavailable (%s: %s): requests pass unlimited%s",
                    type(exc).__name__, exc,
                    f" ({self._quiet} more failures since the last report)" if self._quiet else "")
        self._last, self._quiet = now, 0

    def filter(self, record: logging.LogRecord) -> bool:
        """Flask-Limiter's own error records become ``note``s (and are dropped)."""
        if record.exc_info and record.exc_info[1] is not None:
            self.note(record.exc_info[1])
            return False
        return True


class GuessingRefused(TooManyRequests):
    """429 for an address out of failed authentications, with the limit's headers."""

    def __init__(self, amount: int, reset: float) -> None:
        super().__init__("too many failed authentications from this address; retry after "
                         "Retry-After seconds", retry_after=max(1, int(reset - time.time()) + 1))
        self.data = {"headers": {"RateLimit-Limit": str(amount), "RateLimit-Remaining": "0",
                                 "RateLimit-Reset": str(int(reset))}}


class FailedAuthentication:
    """401s per client address, in the limiter's own storage (shared by every process).

    The lockout is for guessers, so it spares the two credentials nobody at the address
    needs to guess: the admin token (compared in memory, in constant time, with nothing
    looked up) and a live organiser key. Looking a key up is a Redis read the lockout
    exists to spare, and its answer (in, or 429) tells whether a key is live, so a
    locked-out address has only as many key checks as failures (``auth_failures``, a
    second window): a key that names no live organiser uses one up and is refused with
    the 429; once they are used up, no key from the address is looked up until the
    window moves (a live one waits too: somebody there is guessing keys).
    """

    def __init__(self, limiter: Limiter, limit: str, prefix: str,
                 outage: StorageOutageLog) -> None:
        self._limiter, self._limit, self._key = limiter, parse(limit), f"{prefix}:auth-failures"
        self._key_checks = f"{prefix}:auth-key-checks"
        self._outage = outage

    def refuse_guessers(self) -> None:
        """Before a request with credentials: 429 once its address used up its failures,
        unless it sends the admin token or a live organiser key."""
        if not credentials_sent():
            return
        address = client_address()
        try:
            if self._limiter.limiter.test(self._limit, self._key, address):
                return
            if self._vouched_for(address):
                return
            reset = self._limiter.limiter.get_window_stats(self._limit, self._key, address)[0]
        except Exception as exc:  # noqa: BLE001 - the storage is down: let requests through
            self._outage.note(exc)
            return
        raise GuessingRefused(self._limit.amount, reset)

    def _vouched_for(self, address: str) -> bool:
        """Whether a locked-out address's request carries the admin token or a live
        organiser key, within the address's key checks (see the class)."""
        token = bearer_token()
        access = use_cases().access
        if not token or access.is_admin(token):
            return bool(token)
        if not access.may_be_organiser_key(token):
            return False
        if not self._limiter.limiter.test(self._limit, self._key_checks, address):
            return False
        if access.organiser(token) is not None:
            return True
        self._limiter.limiter.hit(self._limit, self._key_checks, address)
        return False

    def count(self, response: Response) -> Response:
        """After a request: a 401 to one that sent credentials is a failed authentication."""
        if response.status_code == 401 and credentials_sent():
            try:
                self._limiter.limiter.hit(self._limit, self._key, client_address())
            except Exception as exc:  # noqa: BLE001 - the storage is down
                self._outage.note(exc)
        return response


def retry_after_only_when_refused(response: Response) -> Response:
    """Flask-Limiter puts ``Retry-After`` on every limited route's answer; it means "come
    back then" and belongs only to a 429 (and a 503, whose handler sets its own: the
    limiter's is its window's, which says nothing about the store coming back). The
    ``RateLimit-*`` headers stay on every answer: they are how a client paces itself."""
    if response.status_code == 503:
        response.headers["Retry-After"] = str(STORE_RETRY_AFTER_S)
    elif response.status_code != 429:
        response.headers.pop("Retry-After", None)
    return response


def count_refusals(response: Response) -> Response:
    """Every 429 (a limit's, or an address out of failed authentications) is counted by
    route (``Metrics.rate_limited``)."""
    if response.status_code == 429:
        use_cases().metrics.rate_limited(route())
    return response


def log_outages_once(outage: StorageOutageLog) -> None:
    """Put ``outage`` on Flask-Limiter's logger in place of an earlier app's (a process
    serves one app; tests build many, and the newest is the one under test)."""
    flask_limiter_log = logging.getLogger("flask-limiter")
    for earlier in [f for f in flask_limiter_log.filters if isinstance(f, StorageOutageLog)]:
        flask_limiter_log.removeFilter(earlier)
    flask_limiter_log.addFilter(outage)


def limit_abuse(app: Flask, settings: Settings,
                storage_options: dict[str, Any] | None = None) -> None:
    """Put the limits of ``settings`` on the app's routes (none when they are off);
    ``storage_options``: the limits' storage client's (``bootstrap.limiter_options``)."""
    limits = settings.rate_limits
    if limits is None:
        return
    app.after_request(retry_after_only_when_refused)  # registered first, so it runs last
    app.after_request(count_refusals)
    limiter = Limiter(client_address, app=app, headers_enabled=True,
                      header_name_mapping=HEADERS, retry_after="delta-seconds",
                      storage_uri=settings.limiter_storage,
                      storage_options=storage_options or {},
                      key_prefix=f"{settings.key_prefix}:limits", strategy="moving-window",
                      swallow_errors=True)
    limiter._limiter = WindowFromHit(limiter.storage)  # Flask-Limiter names no hook for it
    # Every limit here is a route's own (``limit`` below), checked as its view is called;
    # the check Flask-Limiter also runs before every request, for app-wide and default
    # limits, finds none and cost every request of every route its work.
    app.before_request_funcs[None].remove(limiter._check_request_limit)
    views = app.view_functions

    def limit(endpoint: str, value: str, methods: list[str], **options: Any) -> None:
        limited: Any = limiter.limit(value, methods=methods, **options)(views[endpoint])
        views[endpoint] = limited

    outage = StorageOutageLog()
    log_outages_once(outage)
    failures = FailedAuthentication(limiter, limits.auth_failures, f"{settings.key_prefix}:limits",
                                    outage)
    app.before_request(failures.refuse_guessers)
    app.after_request(failures.count)
    limit("matches.Matches", limits.create, ["POST"], exempt_when=organiser_or_admin)
    limit("seats.Claim", limits.create, ["POST"])
    limit("audits.Audits", limits.create, ["POST"])
    limit("matches.Actions", limits.actions, ["POST"], key_func=token_or_address)
    limit("matches.ActionCheck", limits.actions, ["POST"], key_func=token_or_address)
    limit("rematches.Rematch", limits.actions, ["POST", "DELETE"], key_func=token_or_address)
    limit("matches.StreamTickets", limits.tickets, ["POST"], key_func=token_or_address)
    limit("feed.FeedTickets", limits.tickets, ["POST"], key_func=token_or_address)
    limit("matches.Stream", limits.streams, ["GET"])
    limit("feed.Feed", limits.streams, ["GET"])
    limit("audit.Verifications", limits.verifications, ["POST"])
    limit("audit.Verifications", limits.verifications, ["POST"], key_func=match_in_path)
    limit("tournament_verifications.Verifications", limits.verifications, ["POST"])
    limit("tournament_verifications.Verifications", limits.verifications, ["POST"],
          key_func=tournament_in_path)
    limit("analyses.Analyses", limits.analyses, ["POST"])
    limit("analyses.Analyses", limits.analyses, ["POST"], key_func=match_in_path)
