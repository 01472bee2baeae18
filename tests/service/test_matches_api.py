"""The match API over HTTP: creation, views, actions, errors, the log and the live stream."""

from __future__ import annotations

import json

import pytest

from tests.builders import prepared_deck
from tests.service.conftest import ADMIN_AUTH, bearer, create

LOOSE = "2C 7C 3D 5D 9D JD 6H QH 8S KS"
EXAMPLE_1 = "4D 4S 4H 9C TC JC QC KC 2H 5S"
DECK = prepared_deck([LOOSE, EXAMPLE_1], upcard="3C", stock="AH 6C 8D 2S 7S")


def act(client, match, seat, action, **headers):
    token = match["seats"][seat]["token"]
    return client.post(f"/v1/matches/{match['id']}/actions", json=action,
                       headers={**bearer(token), **headers})


def to_knock(client, **options):
    """Seat 1 passes, seat 0 passes, seat 1 draws AH: a knock discarding 5S leaves 3."""
    match = create(client, DECK, **options)
    assert act(client, match, 1, {"type": "pass"}).status_code == 200
    assert act(client, match, 0, {"type": "pass"}).status_code == 200
    assert act(client, match, 1, {"type": "draw", "source": "stock"}).status_code == 200
    return match


def knocked(client, **options):
    """Seat 1 has knocked with 3 against 70: the hand waits for its scoring job."""
    match = to_knock(client, **options)
    assert act(client, match, 1, {"type": "knock", "discard": "5S"}).status_code == 200
    return match


class TestVariantsAndHealth:
    def test_variants_list_gin_with_its_options(self, client):
        body = client.get("/v1/variants").json
        gin = next(v for v in body["variants"] if v["name"] == "gin")
        options = {o["name"]: o for o in gin["options"]}
        assert options["target"]["default"] == 100 and options["target"]["minimum"] == 1
        assert options["next_dealer"]["choices"] == ["alternate", "loser", "winner"]
        assert options["big_gin_bonus"]["nullable"] is True

    def test_healthz(self, client):
        assert client.get("/healthz").json["status"] == "ok"


class TestCreate:
    def test_a_match_is_created_with_one_token_per_seat(self, client):
        match = create(client)
        assert match["version"] == 3 and [s["seat"] for s in match["seats"]] == [0, 1]
        assert len({s["token"] for s in match["seats"]}) == 2

    @pytest.mark.parametrize("body, field", [
        ({"variant": "poker", "players": [{"name": "A"}, {"name": "B"}]}, "variant"),
        ({"variant": "gin", "players": [{"name": "A"}]}, "players"),
        ({"variant": "gin", "players": [{"name": "A"}, {"name": "B"}],
          "options": {"target": 0}}, "options.target"),
        ({"variant": "gin", "players": [{"name": "A"}, {"name": "B"}],
          "options": {"colour": "red"}}, "options.colour"),
        ({"variant": "gin", "players": [{"name": "A"}, {"name": "B"}],
          "options": {"first_dealer": 2}}, "options.first_dealer"),
        ({"variant": "gin"}, "players"),
        ({"players": []}, "variant"),
    ])
    def test_bad_input_is_a_400_naming_the_field(self, client, body, field):
        response = client.post("/v1/matches", json=body)
        assert response.status_code == 400
        assert field in response.json["errors"], response.json

    def test_any_positive_target_is_accepted(self, client):
        assert create(client, target=37)["version"] == 3

    def test_seed_and_deck_are_for_the_organiser_only(self, client):
        body = {"variant": "gin", "players": [{"name": "A"}, {"name": "B"}], "seed": "x"}
        assert client.post("/v1/matches", json=body).status_code == 401
        other = create(client)
        seat_token = bearer(other["seats"][0]["token"])
        response = client.post("/v1/matches", json=body, headers=seat_token)
        assert response.status_code == 403 and response.json["code"] == "organiser_only"

    def test_a_seed_makes_the_match_reproducible(self, client):
        body = {"variant": "gin", "players": [{"name": "A"}, {"name": "B"}], "seed": "table-7"}
        views = []
        for _ in range(2):
            match = client.post("/v1/matches", json=body, headers=ADMIN_AUTH).json
            views.append(client.get(f"/v1/matches/{match['id']}", headers=ADMIN_AUTH).json)
        assert views[0]["all_hands"] == views[1]["all_hands"]
        assert views[0]["stock"] == views[1]["stock"] and views[0]["dealer"] == views[1]["dealer"]

    def test_a_prepared_deck_is_dealt_as_the_rules_say(self, client):
        match = create(client, DECK)
        seat_1 = bearer(match["seats"][1]["token"])
        view = client.get(f"/v1/matches/{match['id']}", headers=seat_1).json
        assert sorted(view["hand"]) == sorted(EXAMPLE_1.split())
        assert view["discard_pile"] == ["3C"] and view["deadwood"] == 7

    def test_a_deck_that_is_not_the_matchs_cards_is_refused(self, client):
        response = client.post("/v1/matches", headers=ADMIN_AUTH, json={
            "variant": "gin", "players": [{"name": "A"}, {"name": "B"}], "deck": DECK[:-1]})
        assert response.status_code == 400 and "deck" in response.json["errors"]
        response = client.post("/v1/matches", headers=ADMIN_AUTH, json={
            "variant": "gin", "players": [{"name": "A"}, {"name": "B"}], "deck": ["ZZ"] * 52})
        assert response.status_code == 400 and response.json["code"] == "invalid_request"

    def test_a_body_that_is_not_json_is_a_400(self, client):
        response = client.post("/v1/matches", data="{nope", content_type="application/json")
        assert response.status_code == 400 and "code" in response.json


class TestViews:
    def test_public_seat_and_full_views(self, client):
        match = create(client, DECK)
        url = f"/v1/matches/{match['id']}"
        public = client.get(url).json
        assert "hand" not in public and "all_hands" not in public
        assert [s["hand_count"] for s in public["seats"]] == [10, 10]
        assert (public["phase"], public["turn"], public["hand_number"]) == ("upcard", 1, 1)
        seat = client.get(url, headers=bearer(match["seats"][1]["token"])).json
        assert seat["legal_actions"] == [{"type": "draw", "source": "discard"}, {"type": "pass"}]
        assert {m["kind"] for m in seat["melds"]} == {"set", "run"}
        full = client.get(url, headers=ADMIN_AUTH).json
        assert len(full["all_hands"]) == 2 and len(full["stock"]) == 31

    def test_unknown_match_and_bad_tokens(self, client):
        assert client.get("/v1/matches/nope").status_code == 404
        # a made-up token is refused first: a guesser learns nothing about the match
        assert client.get("/v1/matches/nope", headers=bearer("x")).status_code == 401
        match = create(client)
        acting = client.post("/v1/matches/nope/actions", json={"type": "pass"},
                             headers=bearer(match["seats"][0]["token"]))
        assert acting.status_code == 404 and acting.json["code"] == "match_not_found"
        response = client.get(f"/v1/matches/{match['id']}", headers=bearer("forged"))
        assert response.status_code == 401 and response.json["code"] == "invalid_token"


class TestActions:
    def test_out_of_turn_is_422_with_a_stable_code(self, client):
        match = create(client, DECK)
        response = act(client, match, 0, {"type": "pass"})
        assert response.status_code == 422 and response.json["code"] == "not_your_turn"

    def test_malformed_actions_are_400_invalid_action(self, client):
        """Any shape the variant cannot read has one code: no 422, no ``invalid_request``."""
        match = create(client, DECK)
        for action in ({}, {"type": "fly"}, {"type": "draw"}, {"type": "discard", "card": "ZZ"},
                       {"type": "draw", "source": "sky"}, [1, 2], {"type": "discard"},
                       {"type": "discard", "card": " 7H"}, {"type": "pass", "card": "7H"},
                       {"type": "lay_off", "meld": 0, "card": "7H"},
                       {"type": "lay_down", "melds": [{"cards": ["7H", "8H", "9H"]}]}):
            response = act(client, match, 1, action)
            assert response.status_code == 400, (action, response.json)
            assert response.json["code"] == "invalid_action", (action, response.json)

    def test_tokens_decide_who_may_act(self, client):
        match, other = create(client, DECK), create(client, DECK)
        url = f"/v1/matches/{match['id']}/actions"
        assert client.post(url, json={"type": "pass"}).status_code == 401
        assert client.post(url, json={"type": "pass"}, headers=bearer("x")).status_code == 401
        foreign = bearer(other["seats"][1]["token"])
        assert client.post(url, json={"type": "pass"}, headers=foreign).status_code == 403
        assert client.post(url, json={"type": "pass"}, headers=ADMIN_AUTH).status_code == 403

    def test_card_codes_are_accepted_loosely_and_returned_canonically(self, client):
        match = to_knock(client)
        response = act(client, match, 1, {"type": "discard", "card": "5s"})
        assert response.status_code == 200 and response.json["discard_pile"][-1] == "5S"

    def test_if_match_guards_against_stale_decisions(self, client):
        match = create(client, DECK)
        response = act(client, match, 1, {"type": "pass"}, **{"If-Match": "2"})
        assert response.status_code == 409 and response.json["code"] == "version_conflict"
        response = act(client, match, 1, {"type": "pass"}, **{"If-Match": '"3"'})
        assert response.status_code == 200 and response.json["version"] == 4
        response = act(client, match, 0, {"type": "pass"}, **{"If-Match": "abc"})
        assert response.status_code == 400

    def test_an_idempotency_key_repeat_returns_the_first_response(self, client):
        match = create(client, DECK)
        first = act(client, match, 1, {"type": "pass"}, **{"Idempotency-Key": "k1"})
        again = act(client, match, 1, {"type": "pass"}, **{"Idempotency-Key": "k1"})
        assert first.status_code == again.status_code == 200 and first.json == again.json
        events = client.get(f"/v1/matches/{match['id']}/events").json["events"]
        assert [e["type"] for e in events].count("UpcardPassed") == 1
        reused = act(client, match, 1, {"type": "draw", "source": "discard"},
                     **{"Idempotency-Key": "k1"})
        assert reused.status_code == 422 and reused.json["code"] == "idempotency_key_reused"

    def test_a_knock_is_scored_by_the_job_and_the_next_hand_is_dealt(self, client):
        match = to_knock(client)
        response = act(client, match, 1, {"type": "knock", "discard": "5S"})
        assert response.status_code == 200
        assert response.json["phase"] == "scoring" and response.json["awaiting"] == "scoring"
        view = client.get(f"/v1/matches/{match['id']}").json
        assert view["hand_number"] == 2 and view["phase"] == "upcard"
        hand = view["hands"][0]
        assert (hand["result"], hand["winner"], hand["points"]) == ("knock", 1, [0, 67])
        assert hand["seats"][0]["deadwood"] == 70 and hand["seats"][1]["deadwood"] == 3
        assert view["scores"] == [0, 67]


class TestLog:
    def test_events_are_redacted_like_the_views(self, client):
        match = to_knock(client)
        url = f"/v1/matches/{match['id']}/events"
        public = client.get(url).json["events"]
        assert [e["version"] for e in public] == list(range(1, 7))
        assert public[1]["type"] == "SeedCommitted"
        dealt = public[2]["data"]
        assert "deck" not in dealt and "seed" not in dealt and "hand" not in dealt
        assert dealt["upcard"] == "3C" and dealt["prepared"] is True
        assert len(dealt["commitment"]) == 64
        assert "card" not in public[5]["data"]  # seat 1 drew from the stock
        seat0 = client.get(url, headers=bearer(match["seats"][0]["token"])).json["events"]
        assert sorted(seat0[2]["data"]["hand"]) == sorted(LOOSE.split())
        assert "card" not in seat0[5]["data"]
        seat1 = client.get(url, headers=bearer(match["seats"][1]["token"])).json["events"]
        assert seat1[5]["data"]["card"] == "AH"
        full = client.get(url, headers=ADMIN_AUTH).json["events"]
        assert full[2]["data"]["deck"] == DECK
        assert all(e["prev_hash"] == p["hash"] for p, e in zip(full, full[1:], strict=False))
        assert client.get(url + "?after=5").json["events"][0]["version"] == 6
        assert client.get(url + "?after=-1").status_code == 400

    def test_the_stream_sends_redacted_events_and_resumes(self, client):
        match = to_knock(client)
        url = f"/v1/matches/{match['id']}/stream"
        response = client.get(url, headers={**bearer(match["seats"][0]["token"]),
                                            "Last-Event-ID": "4"})
        assert response.status_code == 200 and response.mimetype == "text/event-stream"
        chunks = response.response
        received = []
        for chunk in chunks:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if text.startswith("id:"):
                received.append(text)
            if len(received) == 2:
                break
        response.close()
        ids = [int(block.split("\n")[0].split(": ")[1]) for block in received]
        assert ids == [5, 6]
        data = json.loads(received[1].split("data: ", 1)[1])
        assert data["type"] == "CardDrawn" and "card" not in data["data"]
        bad = client.get(url, headers={"Last-Event-ID": "x"})
        assert bad.status_code == 400

    def test_the_stream_of_a_finished_match_ends_after_its_last_event(self, client):
        match = knocked(client, target=50)
        url = f"/v1/matches/{match['id']}/stream"
        body = client.get(url, headers={"Last-Event-ID": "6"}).get_data(as_text=True)
        assert [line for line in body.split("\n") if line.startswith("event:")] == [
            "event: HandKnocked", "event: HandScored", "event: SeedRevealed",
            "event: MatchSeedRevealed", "event: MatchCompleted", "event: end"]
        assert body.rstrip().endswith('data: {"reason": "match_over"}')
        # up to date with a finished match: 204, so a browser's EventSource stops reconnecting
        done = client.get(url, headers={"Last-Event-ID": "11"})
        assert done.status_code == 204 and done.get_data() == b""
        assert client.get(url + "?after=11").status_code == 204
