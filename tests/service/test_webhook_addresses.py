"""The webhook address policy (``service.adapters.addresses``) and the pinned POST
(``service.adapters.outbound``), without the API: which addresses ``deny`` lets through,
how hosts are read, that lookups are bounded, and that a delivery connects to the address
it checked (over TLS too, with the URL's host as the server name)."""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from ipaddress import ip_address
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from service.adapters import addresses, outbound, webhooks
from service.adapters.addresses import (
    Unreachable,
    allowed,
    destinations,
    literal,
    local_name,
    refused_at_registration,
    resolve,
)
from service.config import Settings
from tests.conftest import cannot_run

PUBLIC = "93.184.215.14"


@pytest.mark.parametrize("address", [
    "8.8.8.8", "1.1.1.1", PUBLIC, "100.63.255.255", "100.128.0.0", "2606:4700::1111",
    "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
])
def test_global_addresses_are_allowed(address):
    assert allowed(ip_address(address))


@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.255.255.254", "0.0.0.0", "10.0.0.1", "172.31.255.255", "192.168.0.1",
    "100.64.0.1", "100.127.255.255", "169.254.169.254", "169.254.0.1", "224.0.0.1",
    "239.255.255.250", "255.255.255.255", "240.0.0.1", "198.18.0.1", "192.0.0.8",
    "192.0.0.170", "192.0.2.1", "198.51.100.1", "203.0.113.1",
    "::", "::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:100.64.0.1", "::7f00:1",
    "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::808:808", "2002:7f00:1::1",
    "2002:a00:1::", "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:db8::1",
    "fc00::1", "fd00:ec2::254", "fe80::1", "fec0::1", "ff02::1", "ff0e::1", "100::1",
])
def test_every_other_address_is_refused(address):
    assert not allowed(ip_address(address))


@pytest.mark.parametrize("host, address", [
    ("127.0.0.1", "127.0.0.1"), ("127.1", "127.0.0.1"), ("0x7f.1", "127.0.0.1"),
    ("017700000001", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0x7F000001", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"), ("127.0.1", "127.0.0.1"), ("127.0.0.1.", "127.0.0.1"),
    ("0", "0.0.0.0"), ("10.0x10.1", "10.16.0.1"), ("::1", "::1"),
    ("::ffff:127.0.0.1", "::ffff:7f00:1"), ("8.8.8.8", "8.8.8.8"),
])
def test_hosts_are_read_as_a_resolver_reads_them(host, address):
    assert literal(host) == ip_address(address)


@pytest.mark.parametrize("host", ["example.com", "1.2.3.4.5", "256.1.1.1", "1.16777216",
                                  "08.1", "0x7g.1", "1e3", "", ".", "a.1", "-1"])
def test_names_are_not_addresses(host):
    assert literal(host) is None


def test_localhost_names_are_loopback_without_dns():
    assert all(local_name(h) for h in ("localhost", "localhost.", "LOCALHOST", "x.localhost",
                                       "a.b.localhost."))
    assert not any(local_name(h) for h in ("localhost.example", "notlocalhost", "example.com"))


@pytest.fixture
def names(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """A resolver of this dict's names (others do not resolve); lookups are counted."""
    table: dict[str, list[str]] = {}

    def lookup(host: str, port: int) -> list[str]:
        table.setdefault("_asked", []).append(host)
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[host]

    monkeypatch.setattr(addresses, "lookup", lookup)
    return table


def test_registration_judges_a_name_by_every_address(names):
    names.update({"pub.example": [PUBLIC, "2606:4700::1111"], "mixed.example": [PUBLIC, "::1"],
                  "meta.example": ["169.254.169.254"], "odd.example": ["fe80::1%eth0"]})
    assert not refused_at_registration("pub.example")
    assert refused_at_registration("mixed.example")
    assert refused_at_registration("meta.example")
    assert refused_at_registration("odd.example")
    assert not refused_at_registration("unknown.example")  # checked again at each delivery
    assert refused_at_registration("localhost") and refused_at_registration("0x7f.1")
    assert names["_asked"] == ["pub.example", "mixed.example", "meta.example", "odd.example",
                               "unknown.example"]  # never for literals or localhost


def test_a_hung_lookup_is_bounded(monkeypatch):
    release = threading.Event()
    monkeypatch.setattr(addresses, "lookup", lambda host, port: [release.wait(30), PUBLIC][1])
    started = time.monotonic()
    assert resolve("slow.example", 80, 0.2) is None
    assert time.monotonic() - started < 1.5
    release.set()


def test_a_delivery_is_checked_after_dns_and_resolves_once(names):
    names.update({"rebound.example": ["127.0.0.1"], "pub.example": [PUBLIC]})
    for host in ("rebound.example", "localhost", "0x7f.1", "[::1]".strip("[]")):
        with pytest.raises(Unreachable, match="refused"):
            destinations(host, 80, private=False, timeout=1)
    assert destinations("pub.example", 80, private=False, timeout=1) == [ip_address(PUBLIC)]
    assert destinations("rebound.example", 80, private=True, timeout=1) == [
        ip_address("127.0.0.1")]
    with pytest.raises(Unreachable, match="did not resolve"):
        destinations("unknown.example", 80, private=True, timeout=1)
    assert names["_asked"] == ["rebound.example", "pub.example", "rebound.example",
                               "unknown.example"]


@pytest.mark.parametrize("text, expected", [
    (None, False), ("allow", True), (" Allow ", True), ("deny", False), ("DENY", False),
    ("", False),
])
def test_the_setting_is_read_in_one_place(monkeypatch, text, expected):
    if text is None:
        monkeypatch.delenv("RUMMY_WEBHOOK_PRIVATE", raising=False)
    else:
        monkeypatch.setenv("RUMMY_WEBHOOK_PRIVATE", text)
    assert Settings.from_env().private_webhooks is expected


def test_a_misspelt_setting_stops_the_start(monkeypatch):
    monkeypatch.setenv("RUMMY_WEBHOOK_PRIVATE", "deny-all")
    with pytest.raises(ValueError, match="RUMMY_WEBHOOK_PRIVATE"):
        Settings.from_env()


def test_an_attempt_is_logged_at_its_start(monkeypatch):
    """A timeout and a refused connection differ only in how long they take: the log's
    times are the attempt's start, so one record does not show the difference."""
    hooks = webhooks.Webhooks(fakeredis.FakeRedis(), "t")
    hook = hooks.create("org", "https://hook.example/", "s" * 16, ["hand_scored"])
    assert hook is not None
    message = {"id": "m-1", "kind": "hand_scored", "match_id": "m"}
    ref = hooks.add_delivery(hook, message, "{}")
    assert ref is not None

    def slow(*args: Any) -> int:
        time.sleep(0.3)
        raise Unreachable("timeout")

    monkeypatch.setattr(outbound, "post", slow)
    before = time.time()
    outcome = webhooks.attempt(hooks, ref, backoff=(1.0,), timeout=0.3)
    record = hooks.delivery(hook.id, ref.delivery_id)
    assert record is not None and outcome.retry_in == 1.0
    assert record["last_attempt_at"] - before < 0.1
    assert record["next_attempt_at"] == pytest.approx(record["last_attempt_at"] + 1.0)
    assert (record["last_error"], record["last_status_code"]) == ("unreachable", None)


def test_many_silent_addresses_share_one_timeout(monkeypatch, names):
    names["silent.example"] = [f"203.0.113.{n}" for n in range(1, 9)]
    tried: list[tuple[str, float]] = []

    def silent(address: tuple[str, int], timeout: float) -> socket.socket:
        tried.append((address[0], timeout))
        time.sleep(timeout)
        raise TimeoutError("timed out")

    monkeypatch.setattr(outbound.socket, "create_connection", silent)
    started = time.monotonic()
    with pytest.raises(Unreachable, match="timeout"):
        outbound.post("http://silent.example/", {}, b"{}", 0.3, private=True)
    assert time.monotonic() - started < 1.0 and len(tried) < 8
    assert tried[0] == ("203.0.113.1", pytest.approx(0.3, abs=0.05))


# --- the pinned connection, over TLS --------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for ``hooks.example`` (openssl's command line)."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                        "1", "-subj", "/CN=hooks.example", "-addext",
                        "subjectAltName=DNS:hooks.example", "-keyout", str(key), "-out",
                        str(cert)], check=True, capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        cannot_run("OPENSSL", f"no certificate for the TLS test: {exc}")
    return cert, key


@pytest.fixture
def tls_receiver(certificate: tuple[Path, Path]) -> Iterator[tuple[int, list[Any]]]:
    """An HTTPS endpoint on 127.0.0.1; it records (server name, Host header) per request."""
    seen: list[Any] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            seen.append(("host", self.headers["Host"]))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    context.sni_callback = lambda sock, name, ctx: seen.append(("sni", name)) and None
    server = HTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02},
                              daemon=True)
    thread.start()
    yield server.server_address[1], seen
    server.shutdown()
    server.server_close()


def test_https_goes_to_the_checked_address_and_verifies_the_host(monkeypatch, names,
                                                                  certificate, tls_receiver):
    port, seen = tls_receiver
    names.update({"hooks.example": ["127.0.0.1"], "other.example": ["127.0.0.1"]})
    trusting = ssl.create_default_context(cafile=str(certificate[0]))
    monkeypatch.setattr(outbound, "tls_context", lambda: trusting)
    status = outbound.post(f"https://hooks.example:{port}/hook", {}, b"{}", 5.0, private=True)
    assert status == 204
    assert seen == [("sni", "hooks.example"), ("host", f"hooks.example:{port}")]
    with pytest.raises(Unreachable, match="certificate"):  # the name is checked, not the IP
        outbound.post(f"https://other.example:{port}/hook", {}, b"{}", 5.0, private=True)
    with pytest.raises(Unreachable, match="refused"):  # and deny still holds for https
        outbound.post(f"https://hooks.example:{port}/hook", {}, b"{}", 5.0, private=False)
    assert names["_asked"] == ["hooks.example", "other.example", "hooks.example"]
