"""Organiser keys: the admin makes them; each organiser sees only its own matches."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.service.conftest import ADMIN_AUTH, bearer

PLAYERS = [{"name": "Ann"}, {"name": "Bob"}]


def new_organiser(client: FlaskClient, name: str) -> dict[str, Any]:
    response = client.post("/v1/organisers", json={"name": name}, headers=ADMIN_AUTH)
    assert response.status_code == 201, response.json
    return response.json


def seeded_match(client: FlaskClient, key: str) -> dict[str, Any]:
    response = client.post("/v1/matches", json={"variant": "gin", "players": PLAYERS,
                                                "seed": "club night"}, headers=bearer(key))
    assert response.status_code == 201, response.json
    return response.json


class TestKeys:
    def test_the_admin_creates_lists_and_revokes_keys(self, client):
        club = new_organiser(client, "Chess & Cards Club")
        assert club["key"].startswith("rk_") and club["revoked_at"] is None
        listed = client.get("/v1/organisers", headers=ADMIN_AUTH).json["organisers"]
        assert [o["name"] for o in listed] == ["Chess & Cards Club"]
        assert "key" not in listed[0] and "key_hash" not in listed[0]
        revoked = client.delete(f"/v1/organisers/{club['id']}", headers=ADMIN_AUTH).json
        assert revoked["revoked_at"] is not None
        assert client.delete("/v1/organisers/nope", headers=ADMIN_AUTH).status_code == 404

    def test_only_the_admin_manages_keys(self, client):
        club = new_organiser(client, "club")
        assert client.get("/v1/organisers").status_code == 401
        assert client.get("/v1/organisers", headers=bearer(club["key"])).status_code == 403
        assert client.post("/v1/organisers", json={"name": "x"},
                           headers=bearer(club["key"])).status_code == 403
        assert client.post("/v1/organisers", json={}, headers=ADMIN_AUTH).status_code == 400

    def test_a_revoked_key_stops_at_once(self, client):
        club = new_organiser(client, "club")
        match = seeded_match(client, club["key"])
        url = f"/v1/matches/{match['id']}"
        assert "all_hands" in client.get(url, headers=bearer(club["key"])).json
        client.delete(f"/v1/organisers/{club['id']}", headers=ADMIN_AUTH)
        assert client.get(url, headers=bearer(club["key"])).status_code == 401
        refused = client.post("/v1/matches", json={"variant": "gin", "players": PLAYERS,
                                                   "seed": "x"}, headers=bearer(club["key"]))
        assert refused.status_code == 401 and refused.json["code"] == "invalid_token"


class TestOwnership:
    def test_an_organiser_sees_its_own_matches_in_full(self, client):
        club = new_organiser(client, "club")
        match = seeded_match(client, club["key"])
        url = f"/v1/matches/{match['id']}"
        for path in ("", "/events", "/export", "/state?at=3"):
            assert client.get(url + path, headers=bearer(club["key"])).status_code == 200
        assert "all_hands" in client.get(url, headers=bearer(club["key"])).json

    def test_two_organisers_cannot_see_each_others_matches(self, client):
        mine, theirs = new_organiser(client, "mine"), new_organiser(client, "theirs")
        match = seeded_match(client, mine["key"])
        url = f"/v1/matches/{match['id']}"
        for path in ("", "/events", "/export", "/state?at=3", "/stream"):
            response = client.get(url + path, headers=bearer(theirs["key"]))
            assert (response.status_code, response.json["code"]) == (404, "match_not_found")
        assert client.post(url + "/actions", json={"type": "pass"},
                           headers=bearer(theirs["key"])).status_code == 404
        assert client.get(url, headers=ADMIN_AUTH).status_code == 200  # the admin sees all

    def test_an_organiser_cannot_act_for_a_seat(self, client):
        club = new_organiser(client, "club")
        match = seeded_match(client, club["key"])
        response = client.post(f"/v1/matches/{match['id']}/actions", json={"type": "pass"},
                               headers=bearer(club["key"]))
        assert (response.status_code, response.json["code"]) == (403, "forbidden")

    def test_seats_and_the_public_see_an_organisers_match_as_usual(self, client):
        club = new_organiser(client, "club")
        match = seeded_match(client, club["key"])
        url = f"/v1/matches/{match['id']}"
        assert "all_hands" not in client.get(url).json
        seat = client.get(url, headers=bearer(match["seats"][0]["token"])).json
        assert seat["seat"] == 0 and "all_hands" not in seat
