"""Webhooks and the lifecycle feed over HTTP, with a real HTTP receiver on 127.0.0.1.

Deliveries run on the in-process runner here (jobs inline, as in embedded mode) with a
short backoff, and on RQ's own worker in ``TestRQ``; ``runner.drain()`` makes the
background threads deterministic for the assertions. The server refuses private addresses
by default, so the tests that deliver to the receiver on 127.0.0.1 opt in (``ALLOW``) as
a deployment does with ``RUMMY_WEBHOOK_PRIVATE=allow``.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from flask.testing import FlaskClient
from rq import Queue, SimpleWorker
from rq.registry import ScheduledJobRegistry

from service import logs
from service.adapters import addresses
from service.adapters.deliveries import DeliveryRunner
from service.config import Settings
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer, create
from tests.service.test_matches_api import DECK, act
from tests.service.test_organisers_api import new_organiser
from workers.reconciler import Reconciler
from workers.scheduling import promote_due_jobs

SECRET = "a-webhook-secret-of-some-length"
PUBLIC = "93.184.215.14"
"""A global address; no test here connects to it."""
ALLOW = pytest.mark.parametrize("private_webhooks", [True], ids=["allow"])
"""The server of these tests runs with ``RUMMY_WEBHOOK_PRIVATE=allow``."""


@pytest.fixture
def private_webhooks() -> bool:
    """The default: ``deny``."""
    return False


@pytest.fixture
def app(redis_client, key_prefix, private_webhooks, serving):
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix,
                        sse_keepalive_ms=200, private_webhooks=private_webhooks)
    return serving(settings, redis_client, jobs_inline=True)


class Receiver:
    """A local endpoint: answers with ``statuses`` in turn (then 200), or hangs."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.statuses: list[int] = []
        self.hang = False
        self.release = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.requests.append((dict(self.headers.items()), body))
                if receiver.hang:
                    receiver.release.wait(15)
                    return
                self.send_response(receiver.statuses.pop(0) if receiver.statuses else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    endpoint = Receiver()
    yield endpoint
    endpoint.stop()


@pytest.fixture(autouse=True)
def runner(app) -> Iterator[DeliveryRunner | None]:
    """The app's delivery runner with a short backoff, stopped before the keys go."""
    work = app.extensions["rummy"].work
    found = getattr(work, "deliveries", None)
    if found is not None:
        found.backoff = (0.05, 0.05, 0.05, 0.05)
        found.timeout = 2.0
    yield found
    if found is not None:
        found.close(timeout=10)


def register(client: FlaskClient, url: str, auth: dict[str, str] = ADMIN_AUTH,
             events: tuple[str, ...] = ("hand_scored", "match_completed")) -> dict[str, Any]:
    response = client.post("/v1/webhooks", json={"url": url, "secret": SECRET,
                                                 "events": list(events)}, headers=auth)
    assert response.status_code == 201, response.json
    return response.json


def new_match(client: FlaskClient, auth: dict[str, str] = ADMIN_AUTH, **body: Any) -> dict:
    response = client.post("/v1/matches", headers=auth, json={
        "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}], "deck": DECK,
        **body, "options": {"first_dealer": 0, **body.get("options", {})}})
    assert response.status_code == 201, response.json
    return response.json


def knock(client: FlaskClient, match: dict[str, Any]) -> Any:
    """Play to seat 1's knock (3 against 70: 67 points); returns the knock's response."""
    for seat, action in ((1, {"type": "pass"}), (0, {"type": "pass"}),
                         (1, {"type": "draw", "source": "stock"})):
        assert act(client, match, seat, action).status_code == 200
    return act(client, match, 1, {"type": "knock", "discard": "5S"})


def deliveries(client: FlaskClient, webhook: dict[str, Any],
               auth: dict[str, str] = ADMIN_AUTH) -> list[dict[str, Any]]:
    response = client.get(f"/v1/webhooks/{webhook['id']}/deliveries", headers=auth)
    assert response.status_code == 200, response.json
    return response.json["deliveries"]


def signed(headers: dict[str, str], body: bytes) -> bool:
    expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(headers["X-Rummy-Signature"], expected)


class TestRegistration:
    @pytest.mark.parametrize("body, field", [
        ({"url": "ftp://example.com/x", "secret": SECRET, "events": ["hand_scored"]}, "url"),
        ({"url": "not a url", "secret": SECRET, "events": ["hand_scored"]}, "url"),
        ({"secret": SECRET, "events": ["hand_scored"]}, "url"),
        ({"url": "https://example.com/x", "secret": "short", "events": ["hand_scored"]},
         "secret"),
        ({"url": "https://example.com/x", "secret": SECRET, "events": ["hand_dealt"]},
         "events.0"),
        ({"url": "https://example.com/x", "secret": SECRET, "events": []}, "events"),
        ({"url": "https://example.com/x", "secret": SECRET, "events": "hand_scored"},
         "events"),
    ])
    def test_bad_registrations_are_a_400_naming_the_field(self, client, body, field):
        response = client.post("/v1/webhooks", json=body, headers=ADMIN_AUTH)
        assert response.status_code == 400 and field in response.json["errors"], response.json

    def test_only_organisers_register_and_each_sees_only_its_own(self, client):
        body = {"url": "https://example.com/hook", "secret": SECRET, "events": ["hand_scored"]}
        assert client.post("/v1/webhooks", json=body).status_code == 401
        seat = bearer(create(client)["seats"][0]["token"])
        assert client.get("/v1/webhooks", headers=seat).status_code == 403
        assert client.get("/v1/webhooks", headers=bearer("a-made-up-token")).status_code == 401
        club, rival = (new_organiser(client, name)["key"] for name in ("club", "rival"))
        hook = register(client, "https://example.com/hook", bearer(club), ("match_completed",))
        assert hook["events"] == ["match_completed"] and "secret" not in hook
        listed = client.get("/v1/webhooks", headers=bearer(club)).json["webhooks"]
        assert listed == [hook]
        assert client.get("/v1/webhooks", headers=bearer(rival)).json["webhooks"] == []
        assert client.get("/v1/webhooks", headers=ADMIN_AUTH).json["webhooks"] == []
        for method in ("get", "delete"):
            url = f"/v1/webhooks/{hook['id']}" + ("/deliveries" if method == "get" else "")
            response = getattr(client, method)(url, headers=bearer(rival))
            assert (response.status_code, response.json["code"]) == (404, "webhook_not_found")
        assert client.delete(f"/v1/webhooks/{hook['id']}", headers=bearer(club)).status_code \
            == 204
        assert client.get("/v1/webhooks", headers=bearer(club)).json["webhooks"] == []

    @pytest.mark.parametrize("url", [
        "/v1/webhooks/a{b}/deliveries", "/v1/webhooks/x/deliveries?limit=0",
        "/v1/webhooks/x/deliveries?offset=-1", "/v1/feed?after=-1", "/v1/feed?after=1-2-3",
        "/v1/feed?after=18446744073709551616", "/v1/feed?kind=hand_dealt"])
    def test_odd_requests_are_4xx(self, client, url):
        response = client.get(url, headers=ADMIN_AUTH)
        assert response.status_code in (400, 404) and "code" in response.json


def refusal(client: FlaskClient, url: str) -> tuple[int, str | None]:
    response = client.post("/v1/webhooks", headers=ADMIN_AUTH, json={
        "url": url, "secret": SECRET, "events": ["hand_scored"]})
    return response.status_code, response.json.get("code")


REFUSED = (422, "private_address_refused")

PRIVATE_HOSTS = [
    # loopback, in every spelling a resolver reads as 127.0.0.1
    "127.0.0.1", "127.1", "0x7f.1", "017700000001", "2130706433", "0x7f000001", "0177.0.0.1",
    "127.0.0.1.", "127.255.255.254", "localhost", "localhost.", "LocalHost", "api.localhost",
    "a.b.localhost.", "[::1]", "[::ffff:127.0.0.1]", "[0:0:0:0:0:ffff:7f00:1]", "[::7f00:1]",
    "[2002:7f00:1::1]",  # 6to4 around 127.0.0.1
    # this host, the private network, shared address space (finding 3), link-local
    "0.0.0.0", "0", "[::]", "10.0.0.1", "172.16.0.1", "192.168.1.1", "100.64.0.1",
    "100.127.255.254", "169.254.169.254", "[::ffff:a9fe:a9fe]", "[64:ff9b::a9fe:a9fe]",
    "[fd00:ec2::254]", "[fc00::1]", "[fe80::1]", "[fec0::1]",
    # multicast, broadcast, reserved and special-purpose
    "224.0.0.1", "239.255.255.250", "[ff02::1]", "255.255.255.255", "240.0.0.1",
    "198.18.0.1", "192.0.0.8", "192.0.2.1", "[2001:db8::1]", "[2001::1]",
]


class TestAddressPolicy:
    """Issue 16, findings 3 and 4: one address policy, ``deny`` unless the server allows."""

    def test_the_default_is_deny(self, client, monkeypatch):
        monkeypatch.delenv("RUMMY_WEBHOOK_PRIVATE", raising=False)
        assert Settings().private_webhooks is False
        assert Settings.from_env().private_webhooks is False
        for port in (6379, 8000, 22):  # finding 4: Redis, the API itself, any port
            assert refusal(client, f"http://127.0.0.1:{port}/") == REFUSED

    @pytest.mark.parametrize("host", PRIVATE_HOSTS)
    def test_no_spelling_of_a_private_address_is_registered(self, client, host):
        assert refusal(client, f"http://{host}:8080/hook") == REFUSED
        assert refusal(client, f"https://{host}/") == REFUSED

    @pytest.mark.parametrize("url", ["http://good.example@127.0.0.1/",
                                     "http://good.example:80@127.0.0.1/",
                                     "http://[fe80::1%25eth0]/", "http://127.0.0.1\\@x.example/"])
    def test_user_info_and_zone_tricks_are_not_urls(self, client, url):
        assert refusal(client, url) == (400, "invalid_request")

    def test_a_name_is_judged_by_every_address_it_resolves_to(self, client, monkeypatch):
        names = {"internal.example": ["10.1.2.3"], "mixed.example": [PUBLIC, "192.168.0.5"],
                 "metadata.example": ["fd00:ec2::254"], "public.example": [PUBLIC]}
        monkeypatch.setattr(addresses, "lookup", lambda host, port: names[host])
        for name in ("internal.example", "mixed.example", "metadata.example"):
            assert refusal(client, f"https://{name}/hook") == REFUSED, name
        assert register(client, "https://public.example/hook")["url"] == \
            "https://public.example/hook"
        assert register(client, f"http://{PUBLIC}:8080/hook")

    def test_a_name_that_does_not_resolve_is_accepted_and_a_hung_resolver_is_bounded(
            self, client, monkeypatch):
        def unknown(host: str, port: int) -> list[str]:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

        monkeypatch.setattr(addresses, "lookup", unknown)
        assert register(client, "https://not-yet.example/hook")  # checked at each delivery
        hung = threading.Event()
        monkeypatch.setattr(addresses, "lookup", lambda host, port: [hung.wait(30), PUBLIC][1])
        monkeypatch.setattr(addresses, "RESOLVE_TIMEOUT_S", 0.2)
        started = time.monotonic()
        assert register(client, "https://slow-dns.example/hook")
        assert time.monotonic() - started < 2
        hung.set()

    def test_a_name_that_resolves_to_a_private_address_at_delivery_is_refused_there(
            self, client, receiver, runner, monkeypatch, caplog):
        """DNS rebinding: public when registered, the receiver's loopback when delivered."""
        answers: list[str] = []

        def rebinding(host: str, port: int) -> list[str]:
            answers.append(host)
            return [PUBLIC] if len(answers) == 1 else ["127.0.0.1"]

        monkeypatch.setattr(addresses, "lookup", rebinding)
        port = receiver.server.server_address[1]
        hook = register(client, f"http://rebind.example:{port}/hook", events=("hand_scored",))
        runner.backoff = (0.0,) * 4
        assert knock(client, new_match(client)).status_code == 200
        assert runner.drain()
        assert receiver.requests == []
        (logged,) = deliveries(client, hook)
        assert (logged["status"], logged["attempts"], logged["last_status_code"],
                logged["last_error"]) == ("failed", 5, None, "unreachable")
        assert answers == ["rebind.example"] * 6  # registration, then each attempt
        assert "refused: rebind.example resolves to 127.0.0.1" in caplog.text  # the log's

    @ALLOW
    def test_allow_still_delivers_to_loopback(self, client, receiver, runner):
        hook = register(client, receiver.url, events=("hand_scored",))
        assert register(client, "http://localhost:9/x")
        assert knock(client, new_match(client)).status_code == 200
        assert runner.drain()
        assert len(receiver.requests) == 1
        assert deliveries(client, hook)[0]["status"] == "succeeded"

    @ALLOW
    def test_the_request_goes_to_the_address_that_was_resolved(self, client, receiver, runner,
                                                                monkeypatch):
        """One lookup per attempt, and the connection to its answer: no second lookup that
        a changed DNS answer could redirect. The Host header still names the URL's host."""
        looked_up: list[str] = []
        monkeypatch.setattr(addresses, "lookup",
                            lambda host, port: looked_up.append(host) or ["127.0.0.1"])
        port = receiver.server.server_address[1]
        hook = register(client, f"http://hooks.example:{port}/hook", events=("hand_scored",))
        assert knock(client, new_match(client)).status_code == 200
        assert runner.drain()
        assert looked_up == ["hooks.example"]  # none at registration under allow
        ((headers, _),) = receiver.requests
        assert headers["Host"] == f"hooks.example:{port}"
        assert deliveries(client, hook)[0]["status"] == "succeeded"

    @ALLOW
    def test_the_organiser_cannot_tell_a_closed_port_from_a_timeout(self, client, receiver,
                                                                     runner, monkeypatch):
        """Finding 4: closed, hanging, unresolvable and refused-by-policy endpoints leave
        the same record; only the server's log tells them apart."""
        closed = socket.socket()  # bound, never listening: connections are refused
        closed.bind(("127.0.0.1", 0))
        receiver.hang = True
        runner.timeout, runner.backoff = 0.3, (0.0,) * 4

        def lookup(host: str, port: int) -> list[str]:
            if host == "policy.example":
                return ["127.0.0.1"]
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

        monkeypatch.setattr(addresses, "lookup", lookup)
        hooks = [register(client, url, events=("hand_scored",)) for url in (
            f"http://127.0.0.1:{closed.getsockname()[1]}/hook", receiver.url,
            "http://no-such-host.example/hook")]
        assert knock(client, new_match(client)).status_code == 200
        assert runner.drain(timeout=30)
        runner.private = False  # a delivery under the default policy, of a webhook
        club = bearer(new_organiser(client, "club")["key"])  # registered before it
        port = receiver.server.server_address[1]
        hooks.append(register(client, f"http://policy.example:{port}/hook", club,
                              ("hand_scored",)))
        assert knock(client, new_match(client, club)).status_code == 200
        assert runner.drain(timeout=30)
        closed.close()
        assert len(receiver.requests) == 5  # the hanging receiver's; nothing reached it after
        seen = [d for hook, auth in zip(hooks, [ADMIN_AUTH] * 3 + [club], strict=True)
                for d in deliveries(client, hook, auth)]
        untimed = [{k: v for k, v in d.items() if not k.endswith(("_at", "id"))}
                   for d in seen]
        assert untimed == [{"kind": "hand_scored", "status": "failed", "attempts": 5,
                            "last_status_code": None, "last_error": "unreachable"}] * 4
        assert all(d["next_attempt_at"] is None and d["delivered_at"] is None for d in seen)


@ALLOW
class TestDeliveries:
    def test_a_receiver_failing_twice_gets_it_on_the_third_attempt(self, client, receiver,
                                                                    runner):
        receiver.statuses = [500, 500]
        hook = register(client, receiver.url)
        match = new_match(client, external_id="final-1", tags=["round:1"])
        assert knock(client, match).status_code == 200
        assert runner.drain()
        assert len(receiver.requests) == 3
        ids = {headers["X-Rummy-Delivery"] for headers, _ in receiver.requests}
        assert len(ids) == 1
        headers, body = receiver.requests[-1]
        assert signed(headers, body) and headers["X-Rummy-Event"] == "hand_scored"
        assert headers["User-Agent"].startswith("rummy-server")
        message = json.loads(body)
        assert message["id"] == f"{match['id']}-{message['version']}"
        assert {k: message[k] for k in ("kind", "match_id", "owner", "tags", "external_id")} \
            == {"kind": "hand_scored", "match_id": match["id"], "owner": "admin",
                "tags": ["round:1"], "external_id": "final-1"}
        assert message["data"]["points"] == [0, 67] and message["data"]["scores"] == [0, 67]
        assert message["data"]["hand_number"] == 1 and message["data"]["winner"] == 1
        (logged,) = deliveries(client, hook)
        assert logged["id"] in ids and logged["status"] == "succeeded"
        assert (logged["attempts"], logged["last_status_code"]) == (3, 200)
        assert logged["delivered_at"] and logged["next_attempt_at"] is None

    def test_a_receiver_that_never_answers_does_not_delay_play(self, client, receiver, runner):
        receiver.hang = True
        runner.timeout = 6.0
        hook = register(client, receiver.url)
        match = new_match(client, options={"target": 50})
        started = time.monotonic()
        response = knock(client, match)  # scores the hand and completes the match inline
        elapsed = time.monotonic() - started
        assert response.status_code == 200
        assert elapsed < runner.timeout / 2, elapsed  # far from waiting on the receiver
        assert client.get(f"/v1/matches/{match['id']}").json["phase"] == "complete"
        assert {d["kind"] for d in deliveries(client, hook)} == {"hand_scored",
                                                                  "match_completed"}
        assert all(d["status"] == "pending" for d in deliveries(client, hook))

    def test_an_endpoint_failing_every_time_ends_failed_after_five_attempts(
            self, client, receiver, runner):
        receiver.statuses = [503] * 5
        hook = register(client, receiver.url, events=("hand_scored",))
        assert knock(client, new_match(client)).status_code == 200
        assert runner.drain()
        (logged,) = deliveries(client, hook)
        assert (logged["status"], logged["attempts"], logged["last_status_code"]) == (
            "failed", 5, 503)
        assert logged["last_error"] == "HTTP 503" and logged["next_attempt_at"] is None

    def test_an_organiser_hears_only_of_its_own_matches(self, client, receiver, runner):
        club = bearer(new_organiser(client, "club")["key"])
        hook = register(client, receiver.url, club, ("hand_scored",))
        assert knock(client, new_match(client)).status_code == 200  # the admin's match
        mine = new_match(client, club)
        assert knock(client, mine).status_code == 200
        assert runner.drain()
        assert [json.loads(body)["match_id"] for _, body in receiver.requests] == [mine["id"]]
        assert len(deliveries(client, hook, club)) == 1

    def test_a_failing_notification_never_fails_the_game(self, client, monkeypatch, caplog):
        def broken(*args: Any) -> None:
            raise RuntimeError("feed down")

        monkeypatch.setattr("service.adapters.feed.FeedStore.publish", broken)
        match = new_match(client)
        assert knock(client, match).status_code == 200
        assert client.get(f"/v1/matches/{match['id']}").json["hand_number"] == 2
        assert "OrganiserNotices after a write to match" in caplog.text


def read_feed(client: FlaskClient, url: str, auth: dict[str, str] = ADMIN_AUTH,
              **headers: str) -> list[tuple[str, dict[str, Any]]]:
    """The feed's messages until its first keep-alive (it is idle by then)."""
    response = client.get(url, headers={**auth, **headers})
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    received = []
    for chunk in response.response:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        if text.startswith(": keep-alive"):
            break
        if text.startswith("id:"):
            lines = dict(line.split(": ", 1) for line in text.strip().split("\n"))
            assert lines["event"] == json.loads(lines["data"])["kind"]
            received.append((lines["id"], json.loads(lines["data"])))
    response.close()
    return received


class TestFeed:
    def test_the_feed_streams_lifecycle_messages_by_tag_and_resumes(self, client):
        first = new_match(client, tags=["round:1", "table:1"], options={"target": 50})
        other = new_match(client, tags=["round:2", "table:1"])
        assert knock(client, first).status_code == 200
        assert knock(client, other).status_code == 200
        everything = read_feed(client, "/v1/feed")
        assert [(m["kind"], m["match_id"]) for _, m in everything] == [
            ("hand_scored", first["id"]), ("match_completed", first["id"]),
            ("hand_scored", other["id"])]
        round_1 = read_feed(client, "/v1/feed?tag=round:1&tag=table:1")
        assert [m["kind"] for _, m in round_1] == ["hand_scored", "match_completed"]
        completed = round_1[1][1]
        assert completed["data"]["winner"] == 1 and completed["data"]["final_scores"] == [
            0, 67 + 200 + 25]
        assert completed["data"]["bonuses"][1]["game"] == 200
        assert read_feed(client, "/v1/feed?tag=round:1&tag=table:2") == []
        resumed = read_feed(client, "/v1/feed?tag=table:1", **{"Last-Event-ID": round_1[0][0]})
        assert [m["kind"] for _, m in resumed] == ["match_completed", "hand_scored"]
        after = read_feed(client, f"/v1/feed?after={everything[1][0]}&kind=hand_scored")
        assert [m["match_id"] for _, m in after] == [other["id"]]

    def test_each_organiser_follows_only_its_own_matches(self, client):
        club = bearer(new_organiser(client, "club")["key"])
        assert knock(client, new_match(client)).status_code == 200
        assert read_feed(client, "/v1/feed", club) == []
        mine = new_match(client, club)
        assert knock(client, mine).status_code == 200
        assert [m["match_id"] for _, m in read_feed(client, "/v1/feed", club)] == [mine["id"]]

    @ALLOW
    def test_forfeits_and_aborts_reach_the_feed_and_webhooks(self, client, receiver, runner):
        hook = register(client, receiver.url, events=("match_forfeited", "match_aborted"))
        forfeited, aborted = new_match(client, tags=["t"]), new_match(client, tags=["t"])
        response = client.post(f"/v1/matches/{forfeited['id']}/forfeit", headers=ADMIN_AUTH,
                               json={"seat": 0, "reason": "no show"})
        assert response.status_code == 200, response.json
        response = client.post(f"/v1/matches/{aborted['id']}/abort", headers=ADMIN_AUTH,
                               json={"reason": "table broke"})
        assert response.status_code == 200, response.json
        feed = [m for _, m in read_feed(client, "/v1/feed?tag=t")]
        assert [(m["kind"], m["match_id"]) for m in feed] == [
            ("match_forfeited", forfeited["id"]), ("match_aborted", aborted["id"])]
        assert feed[0]["data"]["seat"] == 0 and feed[0]["data"]["winner"] == 1
        assert feed[0]["data"]["reason"] == "no show"
        assert feed[1]["data"]["reason"] == "table broke"
        assert runner.drain()
        sent = sorted((json.loads(body) for _, body in receiver.requests),
                      key=lambda m: m["kind"], reverse=True)  # sent in parallel, any order
        assert sent == feed
        assert {d["status"] for d in deliveries(client, hook)} == {"succeeded"}

    def test_the_feed_needs_an_organiser_and_a_valid_position(self, client):
        assert client.get("/v1/feed").status_code == 401
        seat = bearer(create(client)["seats"][0]["token"])
        assert client.get("/v1/feed", headers=seat).status_code == 403
        assert client.get("/v1/feed", headers=bearer("a-made-up-token")).status_code == 401
        for bad in ("x", "1-x", "99999999999999999999999"):
            response = client.get("/v1/feed", headers={**ADMIN_AUTH, "Last-Event-ID": bad})
            assert (response.status_code, response.json["code"]) == (400, "invalid_request")


class TestRequestIds:
    """A delivery names the request that caused it (``X-Request-Id``, ``request_id`` in its
    log); one a background step caused names none (service/correlation.py)."""

    @ALLOW
    def test_a_delivery_names_the_request_that_caused_it(self, client, receiver, runner):
        hook = register(client, receiver.url, events=("match_aborted", "hand_scored"))
        aborted = client.post(f"/v1/matches/{new_match(client)['id']}/abort", headers={
            **ADMIN_AUTH, "X-Request-Id": "abort-1"}, json={"reason": "table broke"})
        assert aborted.status_code == 200
        knocked = knock(client, new_match(client))  # the hand is scored within (jobs inline)
        assert knocked.status_code == 200
        assert runner.drain()
        sent = {json.loads(body)["kind"]: headers for headers, body in receiver.requests}
        assert sent["match_aborted"]["X-Request-Id"] == "abort-1"
        assert sent["hand_scored"]["X-Request-Id"] == knocked.headers["X-Request-Id"]
        logged = {d["kind"]: d["request_id"] for d in deliveries(client, hook)}
        assert logged == {"match_aborted": "abort-1",
                          "hand_scored": knocked.headers["X-Request-Id"]}

    @ALLOW
    def test_an_attempts_log_line_carries_the_request_id_of_its_delivery(self, client, runner):
        out = io.StringIO()
        handler = logs.handler(out)
        logging.getLogger("rummy.webhooks").addHandler(handler)
        closed = Receiver()
        closed.stop()  # nothing listens there any more: every attempt fails
        runner.backoff = (0.0,) * 4
        try:
            register(client, closed.url, events=("match_aborted",))
            client.post(f"/v1/matches/{new_match(client)['id']}/abort",
                        headers={**ADMIN_AUTH, "X-Request-Id": "abort-2"}, json={"reason": "x"})
            assert runner.drain()
        finally:
            logging.getLogger("rummy.webhooks").removeHandler(handler)
        attempts = [json.loads(line) for line in out.getvalue().splitlines()]
        assert len(attempts) == 5, attempts
        assert {line["request_id"] for line in attempts} == {"abort-2"}
        assert all("no answer" in line["message"] for line in attempts)


class TestRQ:
    """Real mode: the scoring step a worker runs queues the delivery on RQ's ``webhooks``.

    The API takes its settings from the test; the worker (RQ's, in this process) builds
    its own from the environment, as ``python -m workers`` does.
    """

    @pytest.fixture
    def app(self, redis_client, jobs_redis, key_prefix, private_webhooks, monkeypatch,
            serving):
        if private_webhooks:
            monkeypatch.setenv("RUMMY_WEBHOOK_PRIVATE", "allow")
        else:
            monkeypatch.delenv("RUMMY_WEBHOOK_PRIVATE", raising=False)
        settings = Settings(redis_url="redis://unused", admin_token=ADMIN,
                            key_prefix=key_prefix, private_webhooks=private_webhooks)
        return serving(settings, redis_client, jobs_inline=False, job_client=jobs_redis)

    @staticmethod
    def work(jobs_redis, *names: str) -> None:
        queues = [Queue(name, connection=jobs_redis) for name in names]
        SimpleWorker(queues, connection=jobs_redis).work(burst=True)

    @ALLOW
    def test_a_delivery_job_is_retried_by_rq_until_it_arrives(self, client, jobs_redis,
                                                                receiver, runner):
        assert runner is None  # no in-process runner: deliveries go to RQ
        receiver.statuses = [500]
        hook = register(client, receiver.url, events=("hand_scored",))
        assert knock(client, new_match(client)).status_code == 200
        wiring = client.application.extensions["rummy"]
        Reconciler(wiring.index, wiring.obligations).drain()  # the scoring step
        attempted = time.time()
        self.work(jobs_redis, "webhooks")
        (logged,) = deliveries(client, hook)
        assert (logged["status"], logged["attempts"], logged["last_status_code"]) == (
            "pending", 1, 500)
        # the first retry comes 1 s after the attempt, whenever (on a busy machine) that was
        assert attempted + 1 - 0.01 <= logged["next_attempt_at"] <= time.time() + 1 + 0.01
        queue = Queue("webhooks", connection=jobs_redis)
        scheduled = ScheduledJobRegistry(queue=queue)
        (job_id,) = scheduled.get_job_ids()  # RQ's Retry holds it for the backoff
        if jobs_redis.zscore(scheduled.key, job_id) > time.time():
            assert promote_due_jobs(jobs_redis, ["webhooks"]) == 0  # not due yet
        jobs_redis.zadd(scheduled.key, {job_id: int(time.time()) - 1})  # the backoff passed
        assert promote_due_jobs(jobs_redis, ["webhooks"]) == 1  # as a reconciler does
        assert promote_due_jobs(jobs_redis, ["webhooks"]) == 0  # and only once
        self.work(jobs_redis, "webhooks")
        (logged,) = deliveries(client, hook)
        assert (logged["status"], logged["attempts"]) == ("succeeded", 2)
        assert [h["X-Rummy-Delivery"] for h, _ in receiver.requests] == [logged["id"]] * 2
        assert all(signed(h, body) for h, body in receiver.requests)

    def test_a_worker_with_the_default_policy_refuses_a_private_address(
            self, client, jobs_redis, receiver, monkeypatch):
        """A name public when registered and loopback when the worker resolves it."""
        answer = [PUBLIC]
        monkeypatch.setattr(addresses, "lookup", lambda host, port: answer)
        port = receiver.server.server_address[1]
        hook = register(client, f"http://rebind.example:{port}/hook", events=("hand_scored",))
        answer = ["127.0.0.1"]
        assert knock(client, new_match(client)).status_code == 200
        wiring = client.application.extensions["rummy"]
        Reconciler(wiring.index, wiring.obligations).drain()
        self.work(jobs_redis, "webhooks")
        (logged,) = deliveries(client, hook)
        assert (logged["status"], logged["attempts"], logged["last_status_code"],
                logged["last_error"]) == ("pending", 1, None, "unreachable")
        assert receiver.requests == []

    @ALLOW
    def test_a_delivery_a_worker_step_caused_names_no_request(self, client, jobs_redis,
                                                              receiver):
        hook = register(client, receiver.url, events=("hand_scored",))
        assert knock(client, new_match(client)).status_code == 200
        wiring = client.application.extensions["rummy"]
        # the reconciler runs on a worker's thread of its own, which no request runs on
        step = threading.Thread(target=Reconciler(wiring.index, wiring.obligations).drain)
        step.start()
        step.join(10)
        (job,) = Queue("webhooks", connection=jobs_redis).jobs
        assert job.meta == {}
        self.work(jobs_redis, "webhooks")
        ((headers, _),) = receiver.requests
        assert "X-Request-Id" not in headers
        assert [d["request_id"] for d in deliveries(client, hook)] == [None]
