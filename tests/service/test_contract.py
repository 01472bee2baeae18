"""Real responses of every variant match openapi.yaml exactly (issue 12, part 1).

Whole matches of gin, gem, rummy and rami are played from ``legal_actions``; at many points
every caller's view (public, each seat, full), the event logs, past states, listings and
errors are fetched, and each answer is held to the spec: its status is documented for the
operation, and its body validates with ``additionalProperties: false`` everywhere, so no
response carries a field the spec does not declare.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import fakeredis
import pytest
from flask import Flask

from domain.bots.policies import ENDERS, PLACEMENTS, keen, of_type
from service.config import Settings
from tests.spec_check import CheckedClient, SpecChecker, open_objects, presence_report, spec

ADMIN = "admin-secret"
ADMIN_AUTH = {"Authorization": f"Bearer {ADMIN}"}
MATCHES = [  # (variant, players, options): small targets, so matches end soon
    ("gin", 2, {"target": 30}),
    ("gin", 3, {"target": 1}),
    ("gem", 2, {"target": 30}),
    ("gem", 3, {"target": 1}),
    ("rummy", 3, {"rounds": 1, "max_turns": 60}),
    ("rami", 2, {"rounds": 2, "max_turns": 60}),
]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def checker() -> SpecChecker:
    return SpecChecker()


@pytest.fixture
def api(checker: SpecChecker, serving: Callable[..., Flask]) -> CheckedClient:
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix="contract",
                        sse_keepalive_ms=10)  # a stream read is over at its first tick
    app = serving(settings, fakeredis.FakeRedis(), jobs_inline=True)
    return CheckedClient(app.test_client(), checker)


def test_every_object_in_the_spec_forbids_undeclared_fields():
    assert open_objects(spec()) == []


def choose(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A legal action, mostly one that moves the hand towards its end."""
    return keen(rng, legal, (of_type(*ENDERS, *PLACEMENTS), 0.8))


def views(api: CheckedClient, match_id: str, tokens: list[str]) -> dict[str, Any]:
    """Every caller's view (public, each seat, full); the full one is returned."""
    url = f"/v1/matches/{match_id}"
    api.get(url)
    for token in tokens:
        api.get(url, headers=bearer(token))
    return api.get(url, headers=ADMIN_AUTH).json


def play(api: CheckedClient, variant: str, players: int, options: dict[str, Any],
         seed: str) -> tuple[str, list[str]]:
    """Create and play a whole match, checking every answer on the way."""
    body = {"variant": variant, "players": [{"name": f"P{i}"} for i in range(players)],
            "options": {"first_dealer": 0, **options}, "seed": seed, "tags": ["contract"],
            "external_id": f"ext-{seed}"}
    created = api.post("/v1/matches", json=body, headers=ADMIN_AUTH).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    rng = random.Random(seed)
    for step in range(3000):
        full = views(api, match_id, tokens) if step % 3 == 0 else api.get(
            f"/v1/matches/{match_id}", headers=ADMIN_AUTH).json
        if full["phase"] in ("complete", "aborted"):
            break
        if step % 10 == 5:
            logs(api, match_id, tokens, full["version"])
        seat = full["turn"]
        if seat is None:
            continue
        legal = api.get(f"/v1/matches/{match_id}", headers=bearer(tokens[seat])).json[
            "legal_actions"]
        if step % 25 == 0:  # an out-of-turn move: a documented 422
            api.post(f"/v1/matches/{match_id}/actions", json=legal[0],
                     headers=bearer(tokens[(seat + 1) % players]))
        api.post(f"/v1/matches/{match_id}/actions", json=choose(rng, legal),
                 headers=bearer(tokens[seat]))
    else:
        pytest.fail(f"{variant} did not finish")
    views(api, match_id, tokens)
    return match_id, tokens


def logs(api: CheckedClient, match_id: str, tokens: list[str], version: int) -> None:
    """Mid-match, every caller's latest events, as /events and as /stream send them: the
    redacted forms (a deal's upcard, stock size and hand; a stock draw without its card)
    are held to the typed payload schemas too."""
    after = max(0, version - 12)
    for headers in [{}, ADMIN_AUTH, *(bearer(t) for t in tokens)]:
        api.get(f"/v1/matches/{match_id}/events?after={after}", headers=headers)
        streamed(api, match_id, headers, after)


def streamed(api: CheckedClient, match_id: str, headers: dict[str, str],
             after: int) -> list[dict[str, Any]]:
    """The events /stream sends after ``after`` until it idles or ends, each validated
    against the spec's ``x-sse-data`` schema (an ``Event``, as in /events)."""
    url = f"/v1/matches/{match_id}/stream"
    response = api.get(url, headers={**headers, "Last-Event-ID": str(after)})
    schema = api.checker.response_schema("GET", url, 200, "text/event-stream")
    assert schema is not None
    received: list[dict[str, Any]] = []
    try:
        for chunk in response.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if text.startswith(": keep-alive"):
                break
            for message in text.split("\n\n"):
                fields = dict(line.split(": ", 1) for line in message.splitlines()
                              if ": " in line and not line.startswith(":"))
                if "id" in fields and fields.get("event") != "presence":
                    event = json.loads(fields["data"])
                    api.checker.validate(schema["x-sse-data"], event, f"stream {url} {after}")
                    received.append(event)
    finally:
        response.close()
    assert received, f"{url} sent no event after {after}"
    return received


def audit(api: CheckedClient, match_id: str, tokens: list[str]) -> None:
    """The logs and past states of a finished match, for every caller."""
    url = f"/v1/matches/{match_id}"
    callers = [{}, ADMIN_AUTH, *(bearer(t) for t in tokens)]
    for headers in callers:
        events = api.get(f"{url}/events", headers=headers).json["events"]
        assert streamed(api, match_id, headers, 0) == events
        api.get(f"{url}/events?after={len(events) // 2}", headers=headers)
        for version in sorted({1, 2, len(events) // 3, len(events) // 2, len(events)}):
            api.get(f"{url}/state?at={max(version, 1)}", headers=headers)
    api.get(f"{url}/export")
    verification = api.post(f"{url}/verifications").json
    api.get(f"{url}/verifications/{verification['id']}")


@pytest.mark.parametrize("variant, players, options", MATCHES)
def test_every_answer_of_a_played_match_is_as_documented(api, variant, players, options):
    match_id, tokens = play(api, variant, players, options, f"{variant}-{players}")
    audit(api, match_id, tokens)
    api.get("/v1/matches?tag=contract", headers=ADMIN_AUTH)
    api.get("/v1/results?tag=contract", headers=ADMIN_AUTH)


def test_lobby_seats_controls_and_lists_are_as_documented(api):
    organiser = api.post("/v1/organisers", json={"name": "league"}, headers=ADMIN_AUTH).json
    org = bearer(organiser["key"])
    api.get("/v1/organisers", headers=ADMIN_AUTH)
    api.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/hook", "secret": "s" * 16,
                                   "events": ["match_completed"]}, headers=org)  # 422
    hook = api.post("/v1/webhooks", json={"url": "https://league.example/hook",
                                          "secret": "s" * 16, "events": ["match_completed"]},
                    headers=org).json
    api.get("/v1/webhooks", headers=org)
    api.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=org)
    waiting = api.post("/v1/matches", json={"variant": "rummy", "players": [
        {"name": "Ann"}, {"open": True}, {"open": True}], "invite_code": "letmein"},
        headers=org).json
    api.get("/v1/lobby")
    api.get(f"/v1/matches/{waiting['id']}")
    api.post(f"/v1/matches/{waiting['id']}/seats/1/claim", json={"name": "Bob"})
    api.post(f"/v1/matches/{waiting['id']}/seats/1/claim",
             json={"name": "Bob", "invite_code": "letmein"})
    api.post(f"/v1/matches/{waiting['id']}/seats/1/claim",
             json={"name": "Cy", "invite_code": "letmein"})
    api.post(f"/v1/matches/{waiting['id']}/seats/0/token", headers=org)
    api.get(f"/v1/matches/{waiting['id']}", headers=bearer(waiting["seats"][0]["token"]))
    api.post(f"/v1/matches/{waiting['id']}/seats/2/claim",
             json={"name": "Cy", "invite_code": "letmein"})
    open_seat = api.post("/v1/matches", json={"variant": "rummy", "players": [
        {"name": "Ann"}, {"open": True}, {"open": True}]}).json
    open_base = f"/v1/matches/{open_seat['id']}"
    bob = api.post(f"{open_base}/seats/1/claim", json={"name": "Bob"}).json
    api.post(f"{open_base}/seats/1/leave", headers=bearer(bob["token"]))
    bob = api.post(f"{open_base}/seats/1/claim", json={"name": "Bob"}).json
    api.post(f"{open_base}/abort", json={"reason": "called off"},
             headers=bearer(open_seat["creator_token"]))
    api.get(open_base)
    refused = [api.post(f"{open_base}/seats/1/leave", headers=bearer(bob["token"])),
               api.post(f"{open_base}/seats/2/claim", json={"name": "Cy"})]
    assert [r.status_code for r in refused] == [422, 422]
    clocked = api.post("/v1/matches", headers=org, json={
        "variant": "gin", "players": [{"name": "A"}, {"name": "B"}],
        "clock": {"turn_seconds": 30, "bank_seconds": 60}}).json
    api.get(f"/v1/matches/{clocked['id']}")
    first = bearer(clocked["seats"][1]["token"])  # seat 0 deals, seat 1 has the upcard
    api.post(f"/v1/matches/{clocked['id']}/actions/check", json={"type": "pass"},
             headers=first)
    api.post(f"/v1/matches/{clocked['id']}/actions/check", json={"type": "knock",
             "discard": "2C"}, headers=first)  # legal: false
    api.post(f"/v1/matches/{clocked['id']}/forfeit", json={"seat": 1, "reason": "no-show"},
             headers=org)
    api.get(f"/v1/matches/{clocked['id']}", headers=bearer(clocked["seats"][0]["token"]))
    api.post(f"/v1/matches/{clocked['id']}/abort", json={"reason": "late"}, headers=org)
    api.post(f"/v1/matches/{waiting['id']}/abort", json={"reason": "venue closed"}, headers=org)
    api.get(f"/v1/matches/{waiting['id']}/events")
    batch = api.post("/v1/batches", headers=org, json={"duplicate": True, "matches": [
        {"variant": "gem", "players": [{"name": "A"}, {"name": "B"}]}] * 2}).json
    api.get(f"/v1/batches/{batch['id']}", headers=org)
    api.get("/v1/matches?status=aborted", headers=org)
    api.post(f"/v1/matches/{clocked['id']}/stream-tickets",
             headers=bearer(clocked["seats"][0]["token"]))
    api.post("/v1/feed/tickets", headers=org)
    api.delete(f"/v1/webhooks/{hook['id']}", headers=org)
    api.delete(f"/v1/organisers/{organiser['id']}", headers=ADMIN_AUTH)
    api.get("/v1/variants")
    api.get("/healthz")


def test_errors_are_as_documented(api):
    created = api.post("/v1/matches", json={"variant": "gin", "players": [
        {"name": "A"}, {"name": "B"}]}).json
    url = f"/v1/matches/{created['id']}"
    seat = bearer(created["seats"][1]["token"])
    api.get("/v1/matches/nope")
    api.get(url, headers=bearer("wrong"))
    api.post(f"{url}/actions", json={"type": "lay_off", "meld": 0, "card": "7H"}, headers=seat)
    api.post(f"{url}/actions", json={"type": "discard"}, headers=seat)
    api.post(f"{url}/actions", json={"type": "pass"}, headers={**seat, "If-Match": "1"})
    api.post(f"{url}/actions", json={"type": "pass"})
    api.get(f"{url}/state?at=999")
    api.get(f"{url}/events?after=-1")
    api.post("/v1/matches", json={"variant": "gin", "players": [{"name": "A"}]})
    api.post("/v1/matches", json={"variant": "chess", "players": [{"name": "A"}, {"name": "B"}]})
    api.get("/v1/matches")
    api.post("/v1/organisers", json={"name": "x"}, headers=seat)
    api.post(f"{url}/forfeit", json={"seat": 5, "reason": "x"}, headers=ADMIN_AUTH)
    api.get("/v1/results?tag=x", headers=seat)


def test_a_tournament_s_verification_is_as_documented(api):
    made = api.post("/v1/tournaments", headers=ADMIN_AUTH, json={
        "variant": "gin", "options": {"target": 10}, "format": "round_robin",
        "players": [{"bot": "basic"} for _ in range(3)]}).json
    url = f"/v1/tournaments/{made['id']}/verifications"
    asked = api.post(url).json
    assert api.get(f"{url}/{asked['id']}").json["report"]["ok"]
    api.get(f"{url}/nope")
    api.post("/v1/tournaments/t-none/verifications")


def test_report(checker):
    """Not a check: how much the contract tests held to the spec (shown with -s)."""
    print(f"\ncontract: {checker.total} responses validated over "
          f"{len({(m, p) for m, p, _ in checker.counts})} operations")
    print(presence_report())


def test_a_405_is_json_and_says_what_is_allowed(api):
    response = api.client.put("/v1/variants")
    assert response.status_code == 405 and response.json["code"] == "method_not_allowed"
    assert set(response.headers["Allow"].split(", ")) >= {"GET"}
    assert api.client.delete("/v1/matches").headers["Allow"].count("POST") == 1


def test_the_recorded_command_and_the_options_are_typed():
    """Issue 19: an event's ``command`` and MatchCreated's ``data.options`` were free-form
    objects a generated client could not type; now they name their keys."""
    schemas = spec()["components"]["schemas"]
    command = schemas["HandKnockedEvent"]["properties"]["command"]
    assert {"$ref": "#/components/schemas/Command"} in command["anyOf"]
    assert [branch["$ref"].rsplit("/", 1)[1] for branch in schemas["Command"]["oneOf"]] == [
        "SeatCommand", "ControlCommand", "RematchCommand"]
    for name in ("SeatCommand", "ControlCommand", "RematchCommand"):
        assert schemas[name]["additionalProperties"] is False
    options = schemas["MatchCreatedData"]["properties"]["options"]
    assert options["allOf"] == [{"$ref": "#/components/schemas/MatchOptions"}]
    assert schemas["MatchOptions"]["anyOf"] == [
        {"$ref": f"#/components/schemas/{name}Options"} for name in ("Gin", "Gem", "Rummy", "Rami")]


@pytest.mark.parametrize("variant", ["gin", "gem", "rummy", "rami"])
def test_the_options_are_declared_by_variant(api, checker, variant):
    """A match's options are exactly its variant's ``<Variant>Options``, defaults and all
    (a null default, such as rummy's rounds, is decided by the match), and not a family's
    that plays other options (rummy and rami share theirs)."""
    players = [{"name": "A"}, {"name": "B"}]
    created = api.post("/v1/matches", json={"variant": variant, "players": players}).json
    options = api.get(f"/v1/matches/{created['id']}").json["options"]
    schemas = spec()["components"]["schemas"]
    own = schemas[f"{variant.capitalize()}Options"]
    assert set(options) == set(own["properties"])
    assert options == {name: options[name] if p["default"] is None else p["default"]
                       for name, p in own["properties"].items()}  # null: decided per match
    family = {"gin": {"gin"}, "gem": {"gem"}, "rummy": {"rummy", "rami"},
              "rami": {"rummy", "rami"}}[variant]
    for other in {"gin", "gem", "rummy", "rami"} - family:
        ref = {"$ref": f"#/components/schemas/{other.capitalize()}Options"}
        with pytest.raises(AssertionError, match="Additional properties"):
            checker.validate(ref, options, f"{variant} options as {other}")


def test_an_export_is_ndjson_or_plain_bytes_as_the_client_asks(api):
    created = api.post("/v1/matches", json={"variant": "gin", "players": [
        {"name": "A"}, {"name": "B"}]}).json
    url = f"/v1/matches/{created['id']}/export"
    assert api.get(url).headers["Content-Type"] == "application/x-ndjson"
    octets = api.get(url, headers={"Accept": "application/octet-stream"})
    assert octets.headers["Content-Type"] == "application/octet-stream"
    assert octets.get_data() == api.get(url).get_data()


def test_a_rematch_and_its_log_keep_to_the_spec(api):
    """Every answer of a rematch, and the ended match's log with its rematch events and
    their commands, as the spec declares them."""
    created = api.post("/v1/matches", json={"variant": "gin", "players": [
        {"name": "A"}, {"name": "B"}, {"bot": "random"}]}).json
    tokens = [seat["token"] for seat in created["seats"]]
    match_id = created["id"]
    assert api.post(f"/v1/matches/{match_id}/resign", json={},
                    headers=bearer(tokens[0])).status_code == 200
    assert api.get(f"/v1/matches/{match_id}/rematch").status_code == 200
    for token in tokens[:2]:
        assert api.post(f"/v1/matches/{match_id}/rematch",
                        headers=bearer(token)).status_code == 200
    answer = api.get(f"/v1/matches/{match_id}/rematch", headers=bearer(tokens[0])).json
    assert answer["token"]
    rematch = api.get(f"/v1/matches/{answer['new_match_id']}/events",
                      headers=bearer(ADMIN)).json["events"]
    assert "RematchCreated" in [e["type"] for e in rematch]
    assert api.delete(f"/v1/matches/{match_id}/rematch",
                      headers=bearer(tokens[1])).status_code == 409
    events = api.get(f"/v1/matches/{match_id}/events", headers=bearer(ADMIN)).json["events"]
    assert [e["type"] for e in events][-4:] == ["RematchOffered", "RematchAccepted",
                                                "RematchAccepted", "RematchStarted"]
