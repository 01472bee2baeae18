"""Names and free text are plain text over HTTP (issue 16, finding 7): a control character,
a bidi control or an invisible format character is a 400 ``invalid_text`` naming the field
and the character; accents, every script and emoji come back as sent, in views, events,
listings and CSV; text kept before the rule is still read everywhere."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer

FLAG_OF_SCOTLAND = "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"
FAMILY = "\U0001F469\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"
WAVE = "\U0001F44B\U0001F3FD"  # waving hand, medium skin tone
NORWAY = "\U0001F1F3\U0001F1F4"

REFUSED = {
    "NUL": ("A\x00n", "U+0000 NULL"),
    "CR LF": ("Ann\r\nBob", "U+000D CARRIAGE RETURN"),
    "LF": ("Ann\n", "U+000A LINE FEED"),
    "TAB": ("Ann\tBob", "U+0009 CHARACTER TABULATION"),
    "RLO": ("Ann\u202etxt.exe", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    "LRI": ("\u2066Ann", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    "ZWSP": ("An\u200bn", "U+200B ZERO WIDTH SPACE"),
}
"""Each refused kind: a text carrying it, and how the message names the character."""

KEPT = ["Zoë Ørsted-Núñez", "李小龍", "Ann 🃏", f"{FAMILY}{WAVE}{NORWAY}{FLAG_OF_SCOTLAND}",
        "می\u200cخواهم"]
"""Accents, CJK, emoji (a ZWJ family, a skin tone, a country and a subdivision flag), and a
Persian word with its ZWNJ: accepted, and returned exactly as sent."""

GIN: dict[str, Any] = {"variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}],
                       "options": {"first_dealer": 0}}


def match_with(field: str, text: str) -> dict[str, Any]:
    """A match body with ``text`` at ``field`` (a dotted path, as the errors name it)."""
    body: Any = {**GIN, "players": [{"name": "Ann"}, {"name": "Bob"}], "tags": ["x"]}
    *parents, last = field.split(".")
    target = body
    for key in parents:
        target = target[int(key)] if key.isdigit() else target[key]
    if last.isdigit():
        target[int(last)] = text
    else:
        target[last] = text
    return body


def waiting_match(client: FlaskClient) -> dict[str, Any]:
    body = {**GIN, "players": [{"name": "Ann"}, {"open": True}]}
    response = client.post("/v1/matches", json=body)
    assert response.status_code == 201, response.json
    return response.json


def started_match(client: FlaskClient, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = client.post("/v1/matches", json=body or GIN, headers=ADMIN_AUTH)
    assert response.status_code == 201, response.json
    return response.json


Send = Callable[[FlaskClient, str], Any]


def _create(field: str) -> Send:
    return lambda client, text: client.post("/v1/matches", json=match_with(field, text))


def _claim(field: str) -> Send:
    def send(client: FlaskClient, text: str) -> Any:
        match = waiting_match(client)
        body = {"name": "Bob", field: text}
        return client.post(f"/v1/matches/{match['id']}/seats/1/claim", json=body)
    return send


def _forfeit(client: FlaskClient, text: str) -> Any:
    match = started_match(client)
    return client.post(f"/v1/matches/{match['id']}/forfeit", json={"seat": 1, "reason": text},
                       headers=ADMIN_AUTH)


def _abort(client: FlaskClient, text: str) -> Any:
    match = started_match(client)
    return client.post(f"/v1/matches/{match['id']}/abort", json={"reason": text},
                       headers=ADMIN_AUTH)


def _organiser(client: FlaskClient, text: str) -> Any:
    return client.post("/v1/organisers", json={"name": text}, headers=ADMIN_AUTH)


def _batch(field: str) -> Send:
    def send(client: FlaskClient, text: str) -> Any:
        body: dict[str, Any] = {"matches": [GIN, match_with(field, text)], "tags": ["b"]}
        return client.post("/v1/batches", json=body, headers=ADMIN_AUTH)
    return send


def _batch_tag(client: FlaskClient, text: str) -> Any:
    return client.post("/v1/batches", json={"matches": [GIN], "tags": ["ok", text]},
                       headers=ADMIN_AUTH)


FIELDS: dict[str, tuple[Send, str]] = {
    "player name": (_create("players.1.name"), "players.1.name"),
    "player entropy": (_create("players.0.entropy"), "players.0.entropy"),
    "player external id": (_create("players.1.external_id"), "players.1.external_id"),
    "match external id": (_create("external_id"), "external_id"),
    "tag": (_create("tags.0"), "tags.0"),
    "claimed name": (_claim("name"), "name"),
    "claimed entropy": (_claim("entropy"), "entropy"),
    "claimed external id": (_claim("external_id"), "external_id"),
    "forfeit reason": (_forfeit, "reason"),
    "abort reason": (_abort, "reason"),
    "organiser name": (_organiser, "name"),
    "batch player name": (_batch("players.0.name"), "matches.1.players.0.name"),
    "batch match tag": (_batch("tags.0"), "matches.1.tags.0"),
    "batch match external id": (_batch("external_id"), "matches.1.external_id"),
    "batch tag": (_batch_tag, "tags.1"),
}
"""Every name and free-text field the API keeps and shows: how to send a text there, and
the path ``errors`` names it by."""


@pytest.mark.parametrize("kind", REFUSED)
@pytest.mark.parametrize("where", FIELDS)
def test_a_refused_character_is_a_400_invalid_text_naming_field_and_character(client, where,
                                                                             kind):
    send, field = FIELDS[where]
    text, named = REFUSED[kind]
    response = send(client, text)
    assert (response.status_code, response.json["code"]) == (400, "invalid_text"), response.json
    assert list(response.json["errors"]) == [field], response.json
    assert response.json["message"] == f"text with a character that is not allowed: {field}"
    [message] = response.json["errors"][field]
    assert message.startswith(f"{named} is not allowed"), message


@pytest.mark.parametrize("where", FIELDS)
def test_accents_scripts_and_emoji_are_accepted(client, where):
    send, _ = FIELDS[where]
    for text in KEPT:
        response = send(client, text)
        assert response.status_code in (200, 201), (text, response.json)


def test_a_text_error_beside_a_malformed_field_is_invalid_request_listing_both(client):
    body = {**match_with("players.1.name", "Bob\u202e"), "clock": {"turn_seconds": "30"}}
    response = client.post("/v1/matches", json=body)
    assert (response.status_code, response.json["code"]) == (400, "invalid_request")
    assert sorted(response.json["errors"]) == ["clock.turn_seconds", "players.1.name"]
    too_long = "x" * 64 + "\u202e"
    response = client.post("/v1/matches", json=match_with("players.0.name", too_long))
    assert (response.status_code, response.json["code"]) == (400, "invalid_request")
    assert len(response.json["errors"]["players.0.name"]) == 2


def test_every_refused_field_is_listed(client):
    body = match_with("players.0.name", "A\x00")
    body["players"][1]["external_id"] = "\u2066x"
    body["tags"] = ["ok", "a\tb", "c\u200bd"]
    response = client.post("/v1/matches", json=body)
    assert (response.status_code, response.json["code"]) == (400, "invalid_text")
    assert sorted(response.json["errors"]) == [
        "players.0.name", "players.1.external_id", "tags.1", "tags.2"]


def test_a_join_control_stands_between_two_characters(client):
    for name in ("\u200dAnn", "Ann\u200d", "A\u200d\u200dnn", "A\u200c"):
        response = client.post("/v1/matches", json=match_with("players.0.name", name))
        assert (response.status_code, response.json["code"]) == (400, "invalid_text")
        assert "is only allowed between two other characters" in str(response.json["errors"])


# --- what comes back --------------------------------------------------------------------


def test_accepted_text_comes_back_as_sent_in_views_events_and_listings(client):
    club = bearer(client.post("/v1/organisers", json={"name": KEPT[0]},
                              headers=ADMIN_AUTH).json["key"])
    players = [{"name": name, "external_id": name, "entropy": name} for name in KEPT[1:3]]
    match = client.post("/v1/matches", headers=club, json={
        **GIN, "players": players, "tags": KEPT, "external_id": KEPT[3]}).json
    assert [s["name"] for s in match["seats"]] == KEPT[1:3] and match["tags"] == KEPT
    view = client.get(f"/v1/matches/{match['id']}", headers=club).json
    assert [s["name"] for s in view["seats"]] == KEPT[1:3]
    assert [s["external_id"] for s in view["seats"]] == KEPT[1:3]
    assert view["tags"] == KEPT and view["external_id"] == KEPT[3]
    events = client.get(f"/v1/matches/{match['id']}/events").json["events"]
    assert events[0]["data"]["players"] == KEPT[1:3]
    committed = next(e for e in events if e["type"] == "SeedCommitted")
    assert committed["data"]["entropy"] == KEPT[1:3]
    listing = client.get("/v1/matches", query_string={"tag": KEPT[4]}, headers=club).json
    assert [m["id"] for m in listing["matches"]] == [match["id"]]
    assert [p["name"] for p in listing["matches"][0]["players"]] == KEPT[1:3]
    reason = KEPT[3]
    ended = client.post(f"/v1/matches/{match['id']}/forfeit", json={"seat": 0,
                                                                    "reason": reason},
                        headers=club)
    assert ended.status_code == 200, ended.json
    assert client.get(f"/v1/matches/{match['id']}").json["ended"]["reason"] == reason
    organisers = client.get("/v1/organisers", headers=ADMIN_AUTH).json["organisers"]
    assert KEPT[0] in [o["name"] for o in organisers]


def test_accepted_text_comes_back_as_sent_in_the_lobby_and_a_claim(client):
    match = waiting_match(client)
    claimed = client.post(f"/v1/matches/{match['id']}/seats/1/claim", json={
        "name": KEPT[3], "external_id": KEPT[1], "entropy": KEPT[4]})
    assert claimed.status_code == 201, claimed.json
    assert (claimed.json["name"], claimed.json["external_id"]) == (KEPT[3], KEPT[1])
    view = client.get(f"/v1/matches/{match['id']}").json
    assert view["seats"][1]["name"] == KEPT[3]
    events = client.get(f"/v1/matches/{match['id']}/events").json["events"]
    committed = next(e for e in events if e["type"] == "SeedCommitted")
    assert committed["data"]["entropy"][1] == KEPT[4]


def test_accepted_text_comes_back_as_sent_in_csv_results(client):
    club = bearer(client.post("/v1/organisers", json={"name": "club"},
                              headers=ADMIN_AUTH).json["key"])
    players = [{"name": KEPT[3], "external_id": KEPT[1]}, {"name": KEPT[0]}]
    match = client.post("/v1/matches", json={**GIN, "players": players, "tags": ["t", KEPT[2]],
                                             "external_id": KEPT[4]}, headers=club).json
    client.post(f"/v1/matches/{match['id']}/forfeit", json={"seat": 1, "reason": "x"},
                headers=club)
    text = client.get("/v1/results", query_string={"tag": "t", "format": "csv"},
                      headers=club).get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["name"], r["player_external_id"]) for r in rows] == [
        (KEPT[3], KEPT[1]), (KEPT[0], "")]
    assert rows[0]["match_external_id"] == KEPT[4] and rows[0]["tags"] == f"t;{KEPT[2]}"


# --- text kept before the rule ----------------------------------------------------------


OLD = {"nul": "A\x00n", "crlf": "Ann\r\nBob", "tab": "a\tb", "rlo": "Ann\u202etxt.exe",
       "zwsp": "An\u200bn"}
"""Texts the API took before plain text was its rule."""


def test_text_kept_before_the_rule_is_still_read_everywhere(app, client):
    """Read paths never validate: views, events, the export, listings, results (JSON and
    CSV), the lobby and the organisers list read what was kept before the rule."""
    rummy = app.extensions["rummy"]
    club = rummy.organisers.create(ADMIN, OLD["rlo"])["key"]
    players = [{"name": OLD["nul"], "external_id": OLD["crlf"], "entropy": OLD["tab"]},
               {"name": OLD["crlf"], "external_id": OLD["zwsp"]}]
    match = rummy.creation.create({**GIN, "players": players, "tags": ["old", OLD["rlo"]],
                          "external_id": OLD["tab"]}, club)
    rummy.play.forfeit(match["id"], club, {"seat": 1, "reason": OLD["crlf"]})
    auth = bearer(club)
    view = client.get(f"/v1/matches/{match['id']}")
    assert view.status_code == 200, view.json
    assert [s["name"] for s in view.json["seats"]] == [OLD["nul"], OLD["crlf"]]
    assert view.json["ended"]["reason"] == OLD["crlf"]
    for path in ("/events", "/export", "/state?at=3"):
        assert client.get(f"/v1/matches/{match['id']}{path}").status_code == 200, path
    listing = client.get("/v1/matches", query_string={"tag": OLD["rlo"]}, headers=auth)
    assert [m["id"] for m in listing.json["matches"]] == [match["id"]]
    results = client.get("/v1/results", query_string={"tag": "old"}, headers=auth)
    assert results.status_code == 200 and results.json["matches"][0]["players"][0][
        "name"] == OLD["nul"]
    text = client.get("/v1/results", query_string={"tag": "old", "format": "csv"},
                      headers=auth).get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["name"], r["player_external_id"]) for r in rows] == [
        (OLD["nul"], OLD["crlf"]), (OLD["crlf"], OLD["zwsp"])]
    organisers = client.get("/v1/organisers", headers=ADMIN_AUTH).json["organisers"]
    assert OLD["rlo"] in [o["name"] for o in organisers]
    waiting = rummy.creation.create({**GIN, "players": [{"name": OLD["rlo"]}, {"open": True}]},
                                    None)
    lobby = client.get("/v1/lobby").json["matches"]
    assert [m["seats"][0]["name"] for m in lobby if m["id"] == waiting["id"]] == [OLD["rlo"]]
