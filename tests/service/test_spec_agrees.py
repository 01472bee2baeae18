"""The spec refuses what the server refuses, and the server what the spec refuses: each
disagreement schemathesis found (tests/service/test_schemathesis.py), pinned on both sides.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from jsonschema import validators
from jsonschema.exceptions import ValidationError
from openapi_schema_validator import OAS30Validator

from service.adapters.webhooks import post
from service.api.webhook_schemas import WEBHOOK_URL
from service.usecases.tournaments import decode_cursor, encode_cursor
from tests.service.conftest import ADMIN_AUTH
from tests.spec_check import spec

GIN = {"variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}]}


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """``pattern`` as OpenAPI (ECMAScript) reads it: a closing ``$`` is the end of the
    string. Python's ``$`` also matches before a final newline, so jsonschema's own
    ``pattern`` takes ``"tag\\n"``, which the server, schemathesis and every ECMAScript
    validator refuse."""
    if isinstance(instance, str) and not re.search(re.sub(r"\$$", r"\\Z", pattern), instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


EcmaValidator = validators.extend(OAS30Validator, {"pattern": _ecma_pattern})


def valid(component: str, instance: object) -> bool:
    """Whether openapi.yaml's ``component`` takes ``instance``."""
    schema = {**spec()["components"]["schemas"][component],
              "components": spec()["components"]}
    try:
        EcmaValidator(schema).validate(instance)
    except ValidationError:
        return False
    return True


def raw_post(client, url: str, text: str, headers: dict[str, str] | None = None):
    return client.post(url, data=text, headers={"Content-Type": "application/json",
                                                **(headers or {})})


# --- a view that needs a token refuses a request without one first ---------------------


@pytest.mark.parametrize("method, url, body", [
    ("post", "/v1/webhooks", {"url": ""}),
    ("post", "/v1/batches", {"matches": [{"players": [{}]}]}),
    ("post", "/v1/organisers", {"name": 7}),
    ("get", "/v1/matches?limit=0&cursor=x", None),
    ("get", "/v1/results?format=xml", None),
    ("get", "/v1/webhooks/nope/deliveries?limit=0", None),
])
def test_without_a_token_a_malformed_request_is_a_401_not_a_400(client, method, url, body):
    answer = getattr(client, method)(url, json=body)
    assert (answer.status_code, answer.json["code"]) == (401, "missing_token"), answer.json
    assert getattr(client, method)(url, json=body, headers=ADMIN_AUTH).status_code in (400, 404)


def test_the_feed_still_takes_a_ticket_instead_of_a_token(client):
    answer = client.get("/v1/feed?ticket=not-a-ticket")
    assert (answer.status_code, answer.json["code"]) == (401, "invalid_ticket")


# --- players: a named player or an open seat ---------------------------------------------


@pytest.mark.parametrize("player, accepted", [
    ({"name": "Cy"}, True),
    ({"name": "Cy", "open": False, "entropy": None, "external_id": "x-1"}, True),
    ({"open": True}, True),
    ({}, False),
    ({"open": False}, False),
    ({"open": True, "name": "Cy"}, False),
    ({"open": True, "entropy": None}, False),
    ({"open": 1}, False),
    ({"name": "Cy", "open": 0}, False),
    ({"name": "Cy", "open": "false"}, False),
])
def test_a_player_is_named_or_an_open_seat_in_the_spec_and_the_server(client, player,
                                                                     accepted):
    assert valid("Player", player) is accepted
    body = {"variant": "gin", "players": [{"name": "Ann"}, player]}
    answer = client.post("/v1/matches", json=body)
    assert (answer.status_code == 201) is accepted, answer.json


# --- JSON scalars of their JSON type -------------------------------------------------------


@pytest.mark.parametrize("extra", [
    {"clock": {"turn_seconds": "30"}},
    {"clock": {"turn_seconds": True}},
    {"clock": {}},
    {"clock": {"turn_seconds": None, "bank_seconds": None}},
    {"clock": {"turn_seconds": 30, "x": 1}},
])
def test_a_clock_is_refused_where_the_spec_refuses_it(client, extra):
    assert not valid("MatchCreate", {**GIN, **extra})
    assert client.post("/v1/matches", json={**GIN, **extra}).status_code == 400


def test_a_clock_with_one_limit_or_none_at_all(client):
    for clock in ({"turn_seconds": 30}, {"bank_seconds": 120.5, "turn_seconds": None}, None):
        assert valid("MatchCreate", {**GIN, "clock": clock})
        assert client.post("/v1/matches", json={**GIN, "clock": clock}).status_code == 201


@pytest.mark.parametrize("dice", [[3.5, 4], ["3", 4], [True, 4]])
def test_dice_are_json_integers(client, dice):
    assert not valid("MatchCreate", {**GIN, "variant": "gem", "dice": dice})
    body = {**GIN, "variant": "gem", "dice": dice}
    assert client.post("/v1/matches", json=body, headers=ADMIN_AUTH).status_code == 400


@pytest.mark.parametrize("duplicate", [0, 1, "true", None])
def test_duplicate_is_a_json_boolean(client, duplicate):
    answer = client.post("/v1/batches", json={"matches": [GIN, GIN], "duplicate": duplicate},
                         headers=ADMIN_AUTH)
    assert answer.status_code == 400 and "duplicate" in answer.json["errors"], answer.json


def test_an_odd_duplicate_batch_and_an_invite_code_without_open_seats_name_their_rule(client):
    answer = client.post("/v1/batches", json={"matches": [GIN], "duplicate": True},
                         headers=ADMIN_AUTH)
    assert (answer.status_code, answer.json["code"]) == (400, "invalid_duplicate")
    answer = client.post("/v1/matches", json={**GIN, "invite_code": "letmein"})
    assert (answer.status_code, answer.json["code"]) == (400, "invalid_invite_code")


# --- text: control characters, lone surrogates ----------------------------------------------


@pytest.mark.parametrize("tag, kept, filtered", [
    ("round:3", True, True), ("\u00a0é tag", True, True), ("🃏", True, True),
    ("\u202e tag", False, True), ("a\u2028b", False, True), ("a\u200bb", False, True),
    ("a\nb", False, False), ("tag\n", False, False), ("\x0b", False, False),
    ("a\x7f", False, False), ("\x85", False, False),
])
def test_tags_are_plain_text_and_filters_find_older_ones(client, tag, kept, filtered):
    """A tag is plain text; a filter only refuses control characters, so it still finds
    the tags with bidi or format characters kept before plain text was the rule."""
    assert valid("MatchCreate", {**GIN, "tags": [tag]}) is kept
    answer = client.post("/v1/matches", json={**GIN, "tags": [tag]})
    assert (answer.status_code == 201) is kept, answer.json
    query = client.get("/v1/matches", query_string={"tag": tag}, headers=ADMIN_AUTH)
    assert (query.status_code == 200) is filtered, query.json


FLAG_OF_SCOTLAND = "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"


@pytest.mark.parametrize("name, accepted", [
    ("Zoë Ørsted-Núñez", True), ("李小龍", True), ("👩\u200d💻 Ann", True), ("👋🏽", True),
    ("🇳🇴", True), (FLAG_OF_SCOTLAND, True), ("می\u200cخواهم", True), ("🏴", True),
    ("\u200dAnn", False), ("Ann\u200d", False), ("A\u200d\u200dn", False),
    ("Ann\u200b", False), ("Ann\u00ad", False), ("\u2066Ann", False), ("Ann\ufeff", False),
    ("A\U000E0041nn", False), (FLAG_OF_SCOTLAND[:-1], False),
    ("\U0001F3F4\U000E0067\U000E0062\U000E007F", False), ("Ann\U0001FFFE", False),
    ("Ann\U000E0001", False), ("Ann\u2029", False), ("Ann\x00", False),
])
def test_names_are_plain_text_in_the_spec_and_the_server(client, name, accepted):
    assert valid("NamedPlayer", {"name": name}) is accepted
    answer = client.post("/v1/matches", json={**GIN, "players": [{"name": name},
                                                                 {"name": "Bob"}]})
    assert (answer.status_code == 201) is accepted, answer.json


def test_lone_surrogates_are_a_400_wherever_text_is_kept(client):
    match = client.post("/v1/matches", json=GIN, headers=ADMIN_AUTH).json
    waiting = client.post("/v1/matches", json={"variant": "gin", "invite_code": "abcd",
                                               "players": [{"name": "Ann"}, {"open": True}]}).json
    lone = json.dumps("a\ud800")
    for url, text, headers in [
        (f"/v1/matches/{match['id']}/forfeit", f'{{"seat": 0, "reason": {lone}}}', ADMIN_AUTH),
        (f"/v1/matches/{match['id']}/abort", f'{{"reason": {lone}}}', ADMIN_AUTH),
        (f"/v1/matches/{waiting['id']}/seats/1/claim",
         f'{{"name": "Bob", "invite_code": {lone}}}', {}),
        (f"/v1/matches/{waiting['id']}/seats/1/claim",
         f'{{"name": "Bob", "invite_code": "abcd", "external_id": {lone}}}', {}),
        ("/v1/matches", f'{{"variant": "gin", "players": [{{"name": {lone}}}, {{"name": "B"}}]}}',
         {}),
    ]:
        answer = raw_post(client, url, text, headers)
        assert answer.status_code == 400, (url, answer.json)


# --- the listing's cursor --------------------------------------------------------------------


@pytest.mark.parametrize("cursor", ["0", "x", "bm9wZQ", "1-abc", f"1-{'A' * 32}",
                                    f"{'1' * 17}-{'a' * 32}", f"1-{'a' * 32}\n"])
def test_a_cursor_the_spec_refuses_is_a_400(client, cursor):
    answer = client.get("/v1/matches", query_string={"cursor": cursor}, headers=ADMIN_AUTH)
    assert answer.status_code == 400, answer.json


@pytest.mark.parametrize("cursor", ["0-" + "0" * 32, f"{'9' * 16}-{'f' * 32}",
                                    "1712345678123-" + "0123456789abcdef" * 2])
def test_every_cursor_of_the_spec_s_form_is_a_page(client, cursor):
    pattern = [p for p in spec()["paths"]["/v1/matches"]["get"]["parameters"]
               if p["name"] == "cursor"][0]["schema"]["pattern"]
    assert re.search(pattern, cursor)
    answer = client.get("/v1/matches", query_string={"cursor": cursor}, headers=ADMIN_AUTH)
    assert answer.status_code == 200, answer.json


def test_a_cursor_names_its_position_exactly():
    for score in (0.0, 1712345678.123, 1712345678.0, 1.001):
        match_id = "0123456789abcdef" * 2
        assert decode_cursor(encode_cursor(score, match_id)) == (score, match_id)


# --- webhook URLs ----------------------------------------------------------------------------


@pytest.mark.parametrize("url, accepted", [
    ("https://league.example/rummy-hook", True), ("http://127.0.0.1:8080/h?a=1#x", True),
    ("HTTP://localhost", True), ("http://[::1]:80/", True), ("https://a.b./", True),
    ("", False), ("ftp://example.com/x", False), ("http://u:p@example.com/", False),
    ("http://example.com:65536/", False), ("http://-a.com/", False), ("http://a..b/", False),
    ("http://example.com/ é", False), ("http://example.com/\n", False),
])
def test_webhook_urls_in_the_spec_and_the_server(client, url, accepted):
    body = {"url": url, "secret": "a-webhook-secret-of-some-length", "events": ["hand_scored"]}
    assert valid("WebhookCreate", body) is accepted
    answer = client.post("/v1/webhooks", json=body, headers=ADMIN_AUTH)
    assert (answer.status_code != 400) is accepted, answer.json
    if accepted:  # a well-formed URL on a private host meets the address policy instead
        assert answer.status_code == 201 or (answer.status_code, answer.json["code"]) == (
            422, "private_address_refused"), answer.json


def test_a_bracketed_host_that_is_no_address_fails_its_delivery_without_raising():
    assert re.fullmatch(WEBHOOK_URL, "http://[::::]/hook")
    status, error = post("http://[::::]/hook", "secret", "d-1", "hand_scored", b"{}", 1.0)
    assert status is None and error
