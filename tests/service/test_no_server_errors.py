"""No input can produce a 500: whatever a client sends, the answer is a JSON 2xx or 4xx.

Hypothesis sends arbitrary JSON (and bodies that are not JSON, with any content type),
wrong types for every field, odd headers and ids, unknown routes and wrong methods; every
error must be the API's one error shape. A random walk of well-formed but mostly illegal
actions must leave the match readable, with contiguous versions and an intact hash chain.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.aggregate import Recorded
from domain.audit import verify
from domain.bot_seats import show_bots
from domain.cards import standard_deck
from domain.chain import GENESIS_HASH, event_hash
from domain.events import Event
from domain.gin import GIN
from domain.gin.options import SPECS
from domain.match import Match
from domain.variants import VARIANTS
from domain.viewer import Viewer
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer, create

FUZZ = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

CARDS = standard_deck()
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
CONTENT_TYPES = (None, "", "application/json", "application/json; charset=utf-8",
                 "application/json; charset=latin-1", "application/vnd.api+json",
                 "text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                 "application/octet-stream", "text/event-stream")

# --- values ------------------------------------------------------------------------------

# any code point, lone surrogates too: JSON's \ud800 escapes can carry them (st.text
# leaves surrogates out, so text is joined from characters)
any_char = st.one_of(st.characters(), st.characters(categories=["Cs"]))
any_text = st.one_of(
    st.lists(any_char, max_size=20).map("".join),
    st.sampled_from(["", " ", "\x00", "gin", "GIN", "null", "{}", "a{b}", "é", "\u202e",
                     "10D", "jk", "JK", "7h ", "ZZ", "1" * 300, "x" * 70]),
)
huge_ints = st.sampled_from([2**31, 2**53, 2**63, 2**64, 2**64 + 1, -(2**63), 10**100,
                             10**4000])
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), huge_ints, st.floats(), any_text)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(any_text, inner, max_size=4)),
    max_leaves=12,
)
card_like = st.one_of(st.sampled_from(CARDS), st.sampled_from(CARDS).map(str.lower),
                      st.sampled_from(["10D", "10h", "JK", "1C", "TT", ""]), any_text)


@st.composite
def one_field_wrong(draw: st.DrawFn, bodies: st.SearchStrategy[dict[str, Any]]) -> Any:
    """A valid body with one field missing or of any type at all, or an unknown field."""
    body = draw(bodies)
    name = draw(st.sampled_from(sorted(body) + ["players", "type", "extra"]))
    if draw(st.booleans()):
        return {k: v for k, v in body.items() if k != name}
    return {**body, name: draw(json_values)}


def fuzzed(bodies: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[Any]:
    """Valid bodies, bodies with one field wrong, and any JSON at all."""
    return st.one_of(bodies, bodies, one_field_wrong(bodies), json_values)


def option_values(spec: Any) -> st.SearchStrategy[Any]:
    if spec.choices is not None:
        return st.sampled_from(spec.choices)
    if spec.type is bool:
        return st.booleans()
    if spec.type is int:
        return st.integers(spec.minimum or 0, spec.maximum or 10**6)
    return any_text


options = st.one_of(
    st.fixed_dictionaries({}, optional={spec.name: option_values(spec) for spec in SPECS}),
    st.dictionaries(st.sampled_from([spec.name for spec in SPECS]),
                    st.one_of(json_scalars, huge_ints), max_size=3),
    st.dictionaries(any_text, json_values, max_size=2),
)
create_bodies = fuzzed(st.fixed_dictionaries(
    {"variant": st.just("gin"),
     "players": st.lists(st.fixed_dictionaries({"name": any_text}), min_size=2, max_size=4)},
    optional={"options": options, "seed": any_text,
              "deck": st.one_of(st.permutations(CARDS).map(list),
                                st.lists(card_like, max_size=60))}))
action_bodies = fuzzed(st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["pass", "big_gin"])}),
    st.fixed_dictionaries({"type": st.just("draw"),
                           "source": st.sampled_from(["stock", "discard"])}),
    st.fixed_dictionaries({"type": st.just("discard"), "card": card_like}),
    st.fixed_dictionaries({"type": st.just("knock"), "discard": card_like}, optional={
        "melds": st.one_of(st.none(), st.lists(st.lists(card_like, max_size=5), max_size=4))}),
))

# header values must be latin-1 without control characters to travel at all
header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF,
                                    exclude_categories=["Cc"]), max_size=40)
odd_versions = st.sampled_from(['"3"', 'W/"3"', "\xb2", "\xb9\xb2", " 4 ", "", "-1", "1" * 5000])
version_headers = st.one_of(st.none(), odd_versions, odd_versions, header_text,
                            st.integers(-3, 40).map(str), huge_ints.map(str))
raw_bodies = st.one_of(
    st.binary(max_size=64), header_text.map(str.encode),
    st.sampled_from([b"{nope", b"\xff\xfe", b"[" * 100_000 + b"]" * 100_000,
                     b'{"a":' * 5000 + b"1" + b"}" * 5000, b"1" * 5000,
                     b'{"type": "pass", "x": ' + b"9" * 5000 + b"}", b"x" * (300 * 1024),
                     b'{"type": "pass"}', b"NaN", b"null", b""]),
)


# --- the match under test ------------------------------------------------------------------


@pytest.fixture
def live(app, client) -> dict[str, Any]:
    """A live 2-player match, its seats' tokens, and a token of another match.

    The live stream's keep-alive is made short, so reading the first item of a stream
    that has nothing to send yet stays fast.
    """
    settings_ = app.config["SETTINGS"]
    app.config["SETTINGS"] = dataclasses.replace(settings_, sse_keepalive_ms=5)
    match = create(client)
    other = create(client)
    organiser = client.post("/v1/organisers", json={"name": "o"}, headers=ADMIN_AUTH).json
    return {"id": match["id"], "tokens": [s["token"] for s in match["seats"]],
            "foreign": other["seats"][0]["token"], "organiser": organiser["key"]}


def authorizations(live: dict[str, Any]) -> st.SearchStrategy[str | None]:
    return st.one_of(
        st.none(), header_text,
        st.sampled_from(["", "Bearer", "Bearer ", "Bearer  ", "bearer x", "Basic dXNlcg==",
                         f"Bearer {ADMIN}", f"bearer {ADMIN}", f"Bearer {ADMIN} x",
                         f"Bearer {live['foreign']}", *(f"Bearer {t}" for t in live["tokens"]),
                         f"Bearer {live['organiser']}", "Bearer rk_", "Bearer rk_x",
                         f"Bearer {live['tokens'][0]}\xe9", f"Token {live['tokens'][0]}"]),
        header_text.map(lambda text: f"Bearer {text}"),
    )


def match_ids(live: dict[str, Any]) -> st.SearchStrategy[str]:
    """Ids as they appear in the path: the live one, unknown ones, and odd ones, quoted."""
    return st.one_of(
        st.just(live["id"]), st.just(live["id"]),
        st.sampled_from(["0" * 32, "nope", "a{b}", "{", "}", "%00", live["id"] + "{x}",
                         "x" * 5000, live["id"].upper(), ".", "..", "%2F", "%FF",
                         "%ED%A0%80", "%C3%A9"]),
        st.text(min_size=1, max_size=20).map(lambda text: quote(text, safe="")),
    )


# --- checking an answer ----------------------------------------------------------------------


def check(response: Any, method: str = "GET") -> None:
    """Never a 5xx; every error is JSON ``{"code": str, "message": str, ...}``."""
    try:
        status = response.status_code
        text = "" if method == "HEAD" else response.get_data(as_text=True)
        assert status < 500, (status, text[:500])
        if status >= 400:
            assert response.mimetype == "application/json", (status, response.mimetype)
            if method != "HEAD":  # HEAD answers carry no body
                body = json.loads(text)
                assert isinstance(body, dict), body
                assert isinstance(body.get("code"), str), body
                assert isinstance(body.get("message"), str), body
    finally:
        response.close()


def check_stream(response: Any) -> None:
    """A stream that opened must give its first item (an event or a keep-alive) cleanly."""
    if response.status_code != 200:
        check(response)
        return
    try:
        assert response.mimetype == "text/event-stream"
        for chunk in response.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if not text.startswith("retry:"):
                assert text.startswith(("id:", ": keep-alive")), text
                break
    finally:
        response.close()


def headers_of(**values: str | None) -> dict[str, str]:
    return {name.replace("_", "-"): value for name, value in values.items() if value is not None}


def send(client: Any, method: str, url: str, body: bytes | None, content_type: str | None,
         headers: dict[str, str]) -> Any:
    kwargs: dict[str, Any] = {"method": method, "headers": headers}
    if body is not None:
        kwargs["data"] = body
    if content_type is not None:
        kwargs["content_type"] = content_type
    return client.open(url, **kwargs)


def encode(value: Any) -> bytes:
    """JSON as a lenient client would write it: NaN and Infinity, lone surrogates escaped."""
    return json.dumps(value).encode()


# --- the properties ----------------------------------------------------------------------------


@FUZZ
@given(data=st.data(), body=create_bodies,
       content_type=st.sampled_from(CONTENT_TYPES[2:4] * 4 + CONTENT_TYPES))
def test_creating_a_match_never_fails_with_a_500(client, live, data, body, content_type):
    auth = data.draw(st.one_of(st.none(), st.just(f"Bearer {ADMIN}"), authorizations(live)))
    response = send(client, "POST", "/v1/matches", encode(body), content_type,
                    headers_of(Authorization=auth))
    if response.status_code == 201:
        assert isinstance(body, dict) and body["variant"] == "gin"
    check(response, "POST")


@FUZZ
@given(data=st.data(), body=action_bodies,
       content_type=st.sampled_from(CONTENT_TYPES[2:4] * 4 + CONTENT_TYPES))
def test_actions_never_fail_with_a_500(client, live, data, body, content_type):
    """Real seat tokens, so well-formed actions reach the rules of a live match."""
    token = data.draw(st.sampled_from(live["tokens"]))
    auth = data.draw(st.one_of(st.just(f"Bearer {token}"), st.just(f"Bearer {token}"),
                               authorizations(live)))
    match_id = data.draw(st.one_of(st.just(live["id"]), match_ids(live)))
    headers = headers_of(Authorization=auth, If_Match=data.draw(version_headers),
                         Idempotency_Key=data.draw(st.one_of(st.none(), header_text,
                                                             st.just("x" * 201))))
    response = send(client, "POST", f"/v1/matches/{match_id}/actions", encode(body),
                    content_type, headers)
    check(response, "POST")


@FUZZ
@given(data=st.data(), body=raw_bodies, content_type=st.sampled_from(CONTENT_TYPES),
       route=st.sampled_from(["/v1/matches", "/v1/matches/{id}/actions"]))
def test_bodies_that_are_not_json_never_fail_with_a_500(client, live, data, body,
                                                        content_type, route):
    token = data.draw(st.sampled_from(live["tokens"]))
    response = send(client, "POST", route.format(id=live["id"]), body, content_type,
                    bearer(token))
    check(response, "POST")


@FUZZ
@given(data=st.data(), resource=st.sampled_from(["", "/events", "/stream", "/export", "/state",
                                                "/verifications", "/verifications/x"]),
       after=st.one_of(st.none(), st.integers(-3, 40).map(str), huge_ints.map(str),
                       header_text.map(lambda text: quote(text, safe=""))),
       junk=st.dictionaries(st.text("abcxyz_[]", min_size=1, max_size=6),
                            header_text.map(lambda text: quote(text, safe="")), max_size=2))
def test_reading_never_fails_with_a_500(client, live, data, resource, after, junk):
    """Views, the log and the live stream, with any id, token, ?after= and Last-Event-ID."""
    match_id = data.draw(match_ids(live))
    query = [f"after={after}"] if after is not None else []
    query += [f"{quote(name)}={value}" for name, value in junk.items()]
    if resource == "/state":
        query.append(f"at={after}")
    url = f"/v1/matches/{match_id}{resource}" + ("?" + "&".join(query) if query else "")
    headers = headers_of(Authorization=data.draw(authorizations(live)),
                         Last_Event_ID=data.draw(version_headers))
    response = client.get(url, headers=headers)
    if resource == "/stream":
        check_stream(response)
    else:
        response.get_data()  # an export streams: read it all
        check(response)


@FUZZ
@given(data=st.data(), method=st.sampled_from(METHODS),
       path=st.sampled_from(["/", "/v1", "/v1/", "/v1/variants", "/v1/variants/gin",
                             "/v1/matches", "/v1/matches/", "/v1/matches/{id}",
                             "/v1/matches/{id}/", "/v1/matches/{id}/actions",
                             "/v1/matches/{id}/events", "/v1/matches/{id}/stream",
                             "/v1/matches/{id}/nope", "/healthz", "/openapi.json",
                             "/v1/matches/{id}/verifications", "/v1/matches/{id}/export",
                             "/v1/matches/{id}/state?at=1", "/v1/organisers",
                             "/v1/organisers/x", "/v1/batches", "/v1/batches/x",
                             "/v1/webhooks", "/v1/webhooks/x", "/v1/webhooks/x/deliveries",
                             "/v1/feed", "/v1/results?tag=x", "/v1/matches?tag=x",
                             "/v1/matches/{id}/forfeit", "/v1/matches/{id}/abort",
                             "/v2/matches", "/%00", "/v1/matches/{id}/actions/x"]))
def test_unknown_routes_and_wrong_methods_never_fail_with_a_500(client, live, data, method,
                                                                path):
    url = path.format(id=data.draw(match_ids(live)))
    body = data.draw(st.one_of(st.none(), json_values.map(encode)))
    headers = headers_of(Authorization=data.draw(authorizations(live)))
    response = send(client, method, url, body, "application/json", headers)
    if (url.endswith("/stream") or url.startswith("/v1/feed")) and method == "GET":
        check_stream(response)
    else:
        check(response, method)


def test_the_variants_list_answers_any_query_and_headers(client, live):
    for url in ("/v1/variants", "/v1/variants?x=1&after=-1", "/v1/variants?%ff=%00"):
        for headers in ({}, bearer("x"), ADMIN_AUTH, {"Content-Type": "text/plain"}):
            response = client.get(url, headers=headers)
            assert response.status_code == 200 and response.json["variants"]
            response.close()


ODD_REQUESTS = [  # each was a 500 once
    ("POST", "/v1/matches", {}, b'{"variant": "gin", "players": [{"name": "\\ud800"}, '
                                b'{"name": "B"}]}'),
    ("POST", "/v1/matches", ADMIN_AUTH, b'{"variant": "gin", "players": [{"name": "A"}, '
                                        b'{"name": "B"}], "seed": "\\udfff"}'),
    ("POST", "/v1/matches", {}, b"[" * 100_000 + b"]" * 100_000),
    ("POST", "/v1/matches", {}, b'{"variant": "gin", "players": ' + b"1" * 5000 + b"}"),
    ("GET", "/v1/matches/a{b}", {}, None),
    ("GET", "/v1/matches/{id}}", {"Authorization": "Bearer x"}, None),
    ("GET", "/v1/matches/a{b}/events", {}, None),
    ("GET", "/v1/matches/a{b}/stream", {}, None),
    ("POST", "/v1/matches/{a}/actions", {}, b'{"type": "pass"}'),
    ("GET", "/v1/matches/{id}/events?after=18446744073709551616", {}, None),
    ("GET", "/v1/matches/{id}/stream?after=18446744073709551615", {}, None),
    ("GET", "/v1/matches/{id}/stream", {"Last-Event-ID": "18446744073709551616"}, None),
    ("GET", "/v1/matches/{id}/stream", {"Last-Event-ID": "\xb2"}, None),
    ("GET", "/v1/matches/{id}/stream", {"Last-Event-ID": "1" * 5000}, None),
    ("POST", "/v1/matches/{id}/actions", {"If-Match": "\xb2"}, b'{"type": "pass"}'),
    ("POST", "/v1/matches/{id}/actions", {"If-Match": "1" * 5000}, b'{"type": "pass"}'),
]


@pytest.mark.parametrize("method, path, headers, body", ODD_REQUESTS)
def test_requests_that_once_failed_are_4xx(client, live, method, path, headers, body):
    if "/actions" in path:
        headers = {**bearer(live["tokens"][1]), **headers}
    url = path.replace("{id}", live["id"])
    response = send(client, method, url, body, "application/json", headers)
    assert 400 <= response.status_code < 500, response.status_code
    if url.endswith("/stream"):
        check_stream(response)
    else:
        check(response, method)


# --- a random walk -------------------------------------------------------------------------


GIN_KINDS = ("pass", "draw", "discard", "knock", "big_gin")


def random_action(data: st.DataObject) -> Any:
    """A well-formed action, chosen without looking at the table: mostly illegal."""
    kind = data.draw(st.sampled_from(GIN_KINDS))
    action: dict[str, Any] = {"type": kind}
    if kind == "draw":
        action["source"] = data.draw(st.sampled_from(["stock", "discard"]))
    if kind == "discard":
        action["card"] = data.draw(st.sampled_from(CARDS))
    if kind == "knock":
        action["discard"] = data.draw(st.sampled_from(CARDS))
        if data.draw(st.booleans()):
            action["melds"] = data.draw(st.lists(st.lists(st.sampled_from(CARDS), min_size=3,
                                                          max_size=4), max_size=3))
    return action


def good_action(data: st.DataObject, view: dict[str, Any]) -> Any:
    """A legal action of the seat on turn, mostly one that brings the hand to an end."""
    legal = view["legal_actions"]
    best = set(view.get("best_discard", {}).get("cards", []))
    good = ([a for a in legal if a["type"] in ("knock", "big_gin")]
            or [a for a in legal if a["type"] == "discard" and a["card"] in best]
            or [a for a in legal if a.get("source") == "stock" or a["type"] == "pass"])
    return data.draw(st.sampled_from(good if good and data.draw(st.integers(0, 4)) < 4
                                     else legal))


def guard_headers(data: st.DataObject, version: int) -> dict[str, str]:
    """Sometimes If-Match (right or stale), sometimes an Idempotency-Key from a small pool."""
    headers: dict[str, str] = {}
    if data.draw(st.integers(0, 4)) == 4:
        headers["If-Match"] = str(version - data.draw(st.integers(0, 1)))
    if data.draw(st.integers(0, 4)) == 4:
        headers["Idempotency-Key"] = data.draw(st.sampled_from(["k1", "k2", "k3"]))
    return headers


def send_action(client: Any, match: dict[str, Any], seat: int, action: Any,
                headers: dict[str, str]) -> None:
    """A well-formed action is played (200) or refused with a stable code (401-499)."""
    response = client.post(f"/v1/matches/{match['id']}/actions", json=action,
                           headers={**bearer(match["seats"][seat]["token"]), **headers})
    assert response.status_code == 200 or 400 < response.status_code < 500, (
        action, headers, response.status_code, response.get_data(as_text=True)[:500])
    if response.status_code != 200:
        assert isinstance(response.json["code"], str), response.json


def walk_step(client: Any, match: dict[str, Any], data: st.DataObject) -> None:
    """Sometimes anything by anyone (mostly illegal), then the move of the seat on turn."""
    url = f"/v1/matches/{match['id']}"
    public = client.get(url).json
    if data.draw(st.booleans()):
        seat = data.draw(st.integers(0, len(match["seats"]) - 1))
        send_action(client, match, seat, random_action(data),
                    guard_headers(data, public["version"]))
    if public["turn"] is None:
        return
    seat = public["turn"]
    view = client.get(url, headers=bearer(match["seats"][seat]["token"])).json
    if view["legal_actions"]:  # unless the noise above was legal and moved the turn on
        send_action(client, match, seat, good_action(data, view),
                    guard_headers(data, view["version"]))


def assert_replays(client: Any, match: dict[str, Any]) -> None:
    """The log is whole (versions 1..N, hash chain intact) and folds to the view served."""
    url = f"/v1/matches/{match['id']}"
    public = client.get(url)
    assert public.status_code == 200
    full = client.get(url, headers=ADMIN_AUTH).json
    events = client.get(f"{url}/events", headers=ADMIN_AUTH).json["events"]
    assert [e["version"] for e in events] == list(range(1, full["version"] + 1))
    prev = GENESIS_HASH
    for e in events:
        assert e["prev_hash"] == prev, e["version"]
        assert e["hash"] == event_hash(e["version"], e["type"], e["schema"], e["data"],
                                       e["command_id"], e["ts"], e["prev_hash"], e["command"])
        prev = e["hash"]
    assert verify(events, VARIANTS).ok
    folded = Match.new(GIN).apply([Recorded(Event(e["type"], e["data"], e["schema"]),
                                            e["version"], e["ts"], e["hash"]) for e in events])
    # which seats are bots is in the log too, beside the game (BotsSeated)
    view = show_bots(GIN.view(folded.state, Viewer.full()), folded.bots)
    replayed = {**view, "id": match["id"], "version": full["version"]}
    # the service adds the match's fixed metadata (tags, external ids) to every view
    full = {k: v for k, v in full.items() if k not in ("external_id", "tags")}
    # and each seat's presence, which is no game fact (not in the log)
    full["seats"] = [{k: v for k, v in s.items() if k not in ("external_id", "presence")}
                     for s in full["seats"]]
    assert {k: replayed.get(k) for k in full} == full
    for seat in match["seats"]:
        view = client.get(url, headers=bearer(seat["token"])).json
        assert sorted(view["hand"]) == sorted(full["all_hands"][seat["seat"]])


@settings(max_examples=5, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), players=st.integers(2, 4), target=st.sampled_from([1, 30, 100]),
       seed=st.integers(0, 10**6))
def test_a_random_walk_of_actions_leaves_a_match_that_replays(client, data, players, target,
                                                              seed):
    """The organiser's seed fixes every deal, so the walk is a function of Hypothesis' data."""
    body = {"variant": "gin", "players": [{"name": f"P{n}"} for n in range(players)],
            "options": {"first_dealer": 0, "target": target}, "seed": f"walk-{seed}"}
    match = client.post("/v1/matches", json=body, headers=ADMIN_AUTH).json
    for _ in range(data.draw(st.integers(30, 90), label="moves")):
        walk_step(client, match, data)
    assert_replays(client, match)
