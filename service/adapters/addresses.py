"""Where webhooks may go: one address policy, checked at registration and at every delivery.

A webhook makes this server send a request wherever an organiser says. Unless the operator
trusts organisers with its network (``RUMMY_WEBHOOK_PRIVATE=allow``), an address is allowed
only if ``ipaddress`` calls it global and it is not multicast, reserved or site-local, and
every IPv4 address an IPv6 form carries (IPv4-mapped, NAT64, 6to4, Teredo) is allowed too.
Without this an organiser could make the server probe its loopback, its private network,
the cloud's metadata service (169.254.169.254, or in 100.64.0.0/10 on some clouds) or its
own Redis, and read open ports from closed ones in the delivery log.

Hosts are read as the operating system's resolver reads them: ``127.1``, ``0x7f.1``,
``017700000001`` and ``2130706433`` are 127.0.0.1 (``inet_aton`` notation), one trailing
dot changes nothing, and ``localhost`` and ``*.localhost`` are loopback without asking DNS
(RFC 6761). A lookup is bounded by a timeout: a slow resolver never holds a request.
"""

from __future__ import annotations

import re
import socket
import threading
from ipaddress import IPv4Address, IPv6Address, IPv6Network, ip_address, ip_network

IPAddress = IPv4Address | IPv6Address

RESOLVE_TIMEOUT_S = 2.0
"""How long registration waits for DNS; a name not resolved by then is accepted (each
delivery resolves and checks it again)."""

_NAT64 = IPv6Network("64:ff9b::/96")
"""RFC 6052's well-known prefix: the last 32 bits are the IPv4 address a translator reaches."""
_NOT_GLOBAL = (ip_network("192.0.0.0/24"), ip_network("64:ff9b:1::/48"))
"""Special-purpose blocks (IETF protocol assignments, local-use NAT64) that the ``ipaddress``
tables of older Pythons still call global."""
_NUMBER = re.compile(r"0[xX][0-9A-Fa-f]*|0[0-7]*|[1-9][0-9]*")


# --- the policy ----------------------------------------------------------------------------


def allowed(address: IPAddress) -> bool:
    """Whether ``deny`` lets a webhook reach ``address``."""
    if isinstance(address, IPv6Address) and (inner := _translated(address)) is not None:
        return allowed(inner)
    return _global(address) and all(_global(inner) for inner in _tunnelled(address))


def _translated(address: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv4-mapped or NAT64 address stands for: the packets go there."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return IPv4Address(int(address) & 0xFFFF_FFFF)
    return None


def _tunnelled(address: IPAddress) -> tuple[IPv4Address, ...]:
    """The IPv4 ends a 6to4 or Teredo address carries (the packets reach them too)."""
    if isinstance(address, IPv4Address):
        return ()
    return tuple(inner for inner in (address.sixtofour, *(address.teredo or ()))
                 if inner is not None)


def _global(address: IPAddress) -> bool:
    site_local = isinstance(address, IPv6Address) and address.is_site_local
    return (address.is_global and not (address.is_multicast or address.is_reserved
                                       or site_local)
            and not any(address in network for network in _NOT_GLOBAL))


# --- reading a host ------------------------------------------------------------------------


def local_name(host: str) -> bool:
    """``localhost`` or a name under it: loopback by definition (RFC 6761 6.3)."""
    name = _bare(host).lower()
    return name == "localhost" or name.endswith(".localhost")


def literal(host: str) -> IPAddress | None:
    """``host`` as an IP address, in any spelling a resolver takes as one, or None."""
    name = _bare(host)
    try:
        return ip_address(name)
    except ValueError:
        return _inet_aton(name)


def _bare(host: str) -> str:
    """The host without the one trailing dot of a fully qualified name."""
    return host[:-1] if host.endswith(".") else host


def _inet_aton(name: str) -> IPv4Address | None:
    """``name`` in ``inet_aton`` notation: one to four numbers, each decimal, octal (a leading
    0) or hex (0x), the last filling the bytes left; None if it is not one."""
    parts = name.split(".")
    if not 1 <= len(parts) <= 4 or not all(_NUMBER.fullmatch(part) for part in parts):
        return None
    *head, last = [_number(part) for part in parts]
    if any(n > 0xFF for n in head) or last >= 1 << (8 * (4 - len(head))):
        return None
    value = sum(n << (8 * (3 - i)) for i, n in enumerate(head)) + last
    return IPv4Address(value)


def _number(part: str) -> int:
    if part[:2] in ("0x", "0X"):
        return int(part[2:] or "0", 16)
    return int(part, 8) if part.startswith("0") else int(part)


# --- resolving -----------------------------------------------------------------------------


def lookup(host: str, port: int) -> list[str]:
    """The addresses the operating system's resolver gives ``host`` (tests replace this)."""
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def resolve(host: str, port: int, timeout: float) -> list[IPAddress] | None:
    """``host``'s addresses, or None when the lookup fails or takes longer than ``timeout``.

    ``getaddrinfo`` has no timeout of its own, so it runs on a daemon thread; one that hangs
    is left to the resolver's own limits and never blocks the caller past ``timeout``.
    """
    found: list[str] = []

    def run() -> None:
        try:
            found.extend(lookup(host, port))
        except (OSError, UnicodeError, ValueError):
            pass

    thread = threading.Thread(target=run, name="rummy-dns", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive() or not found:
        return None
    try:  # an IPv6 address keeps its scope ("fe80::1%eth0"): connecting needs it
        return list(dict.fromkeys(ip_address(text) for text in found))
    except ValueError:
        return None


def refused_at_registration(host: str) -> bool:
    """Whether ``deny`` refuses a URL on ``host`` when it is registered.

    A localhost name or a literal address is judged as it is; any other name by every
    address it resolves to now. A name that does not resolve (or not within
    ``RESOLVE_TIMEOUT_S``) passes: it reaches nothing now, and each delivery resolves it
    and checks again.
    """
    if local_name(host):
        return True
    address = literal(host)
    if address is not None:
        return not allowed(address)
    found = resolve(host, 0, RESOLVE_TIMEOUT_S)
    return found is not None and not all(allowed(a) for a in found)


class Unreachable(Exception):
    """No HTTP answer: DNS, policy, connection, TLS or timeout. The reason is for the
    server's log; the organiser only ever reads ``unreachable``."""


def destinations(host: str, port: int, private: bool, timeout: float) -> list[IPAddress]:
    """The addresses a delivery to ``host`` connects to: resolved once, and under ``deny``
    every one of them allowed, so the connection goes to an address that was checked."""
    if not private and local_name(host):
        raise Unreachable(f"refused: {host} is a localhost name")
    address = literal(host)
    found = [address] if address is not None else resolve(host, port, timeout)
    if not found:
        raise Unreachable(f"{host} did not resolve within {timeout} s")
    refused = [str(a) for a in found if not allowed(a)]
    if refused and not private:
        raise Unreachable(f"refused: {host} resolves to {', '.join(refused)}")
    return found
