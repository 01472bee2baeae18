"""Tournaments over HTTP: match metadata, listing, batches, duplicate deals, results."""

from __future__ import annotations

import csv
import io
from typing import Any
from urllib.parse import quote

import pytest
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st

from tests.builders import prepared_deck
from tests.service.conftest import ADMIN_AUTH, bearer, play_to_the_end
from tests.service.test_no_server_errors import FUZZ, any_text, check, fuzzed, json_values

LOOSE = "2C 7C 3D 5D 9D JD 6H QH 8S KS"
EXAMPLE_1 = "4D 4S 4H 9C TC JC QC KC 2H 5S"
DECK = prepared_deck([LOOSE, EXAMPLE_1], upcard="3C", stock="AH 6C 8D 2S 7S")
"""Seat 1 can knock with 3 after both pass and it draws AH (tests/service/test_matches_api)."""

PLAYERS = [{"name": "Ann", "external_id": "fide-1"}, {"name": "Bob", "external_id": "fide-2"}]


def organiser(client: FlaskClient, name: str) -> dict[str, str]:
    response = client.post("/v1/organisers", json={"name": name}, headers=ADMIN_AUTH)
    assert response.status_code == 201, response.json
    return bearer(response.json["key"])


def gin(tags: list[str] | None = None, external_id: str | None = None,
        players: list[dict[str, Any]] | None = None, **options: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"variant": "gin", "players": players or PLAYERS,
                            "options": {"first_dealer": 0, **options}, "tags": tags or []}
    if external_id is not None:
        body["external_id"] = external_id
    return body


def create(client: FlaskClient, auth: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/matches", json=body, headers=auth)
    assert response.status_code == 201, response.json
    return response.json


def listed(client: FlaskClient, auth: dict[str, str], query: str = "") -> dict[str, Any]:
    response = client.get(f"/v1/matches{query}", headers=auth)
    assert response.status_code == 200, response.json
    return response.json


def ids(page: dict[str, Any]) -> list[str]:
    return [match["id"] for match in page["matches"]]


def act(client: FlaskClient, match: dict[str, Any], seat: int, action: dict[str, Any]) -> Any:
    response = client.post(f"/v1/matches/{match['id']}/actions", json=action,
                           headers=bearer(match["seats"][seat]["token"]))
    assert response.status_code == 200, response.json
    return response.json


def knock_out(client: FlaskClient, match: dict[str, Any]) -> None:
    """Play DECK's first hand: seat 1 knocks with 3 and, with target 1, wins the match."""
    act(client, match, 1, {"type": "pass"})
    act(client, match, 0, {"type": "pass"})
    act(client, match, 1, {"type": "draw", "source": "stock"})
    act(client, match, 1, {"type": "knock", "discard": "5S"})
    assert client.get(f"/v1/matches/{match['id']}").json["phase"] == "complete"


class TestMetadata:
    TAGS = ["tournament:spring", "round:3", "table:5"]

    def views(self, client, match, owner):
        """Every way a match is seen: the public, its owner, a seat, a past table, an
        action's answer."""
        url = f"/v1/matches/{match['id']}"
        return {"public": client.get(url).json, "owner": client.get(url, headers=owner).json,
                "seat": client.get(url, headers=bearer(match["seats"][1]["token"])).json,
                "state": client.get(url + "/state?at=3").json,
                "action": act(client, match, 1, {"type": "pass"})}

    def test_the_owner_sees_the_metadata_and_nobody_else_by_default(self, client):
        owner = organiser(client, "Spring Open")
        match = create(client, owner, gin(self.TAGS, "r3-t5"))
        assert match["external_id"] == "r3-t5" and match["tags"] == self.TAGS
        assert [s["external_id"] for s in match["seats"]] == ["fide-1", "fide-2"]
        for who, view in self.views(client, match, owner).items():
            shown = who == "owner"
            assert view["external_id"] == ("r3-t5" if shown else None), who
            assert view["tags"] == (self.TAGS if shown else []), who
            assert [(s["name"], s["external_id"]) for s in view["seats"]] == [
                ("Ann", "fide-1" if shown else None), ("Bob", "fide-2" if shown else None)]

    def test_public_metadata_is_in_every_view(self, client):
        owner = organiser(client, "Spring Open")
        match = create(client, owner, {**gin(self.TAGS, "r3-t5"), "public_metadata": True})
        for who, view in self.views(client, match, owner).items():
            assert (view["external_id"], view["tags"]) == ("r3-t5", self.TAGS), who
            assert [(s["name"], s["external_id"]) for s in view["seats"]] == [
                ("Ann", "fide-1"), ("Bob", "fide-2")]

    def test_the_lobby_shows_no_private_metadata(self, client):
        owner = organiser(client, "Spring Open")
        body = gin(self.TAGS, "r3-t5", players=[PLAYERS[0], {"open": True}])
        waiting = create(client, owner, body)
        listed_row = next(m for m in client.get("/v1/lobby").json["matches"]
                          if m["id"] == waiting["id"])
        public = client.get(f"/v1/matches/{waiting['id']}").json
        for view in (listed_row, public):
            assert (view["external_id"], view["tags"]) == (None, [])
            assert [s["external_id"] for s in view["seats"]] == [None, None]
        owned = client.get(f"/v1/matches/{waiting['id']}", headers=owner).json
        assert (owned["external_id"], owned["tags"]) == ("r3-t5", self.TAGS)
        assert owned["seats"][0]["external_id"] == "fide-1"
        shown = create(client, owner, {**body, "public_metadata": True})
        row = next(m for m in client.get("/v1/lobby").json["matches"] if m["id"] == shown["id"])
        assert (row["external_id"], row["tags"]) == ("r3-t5", self.TAGS)

    def test_a_match_without_metadata_shows_empty_fields(self, client):
        match = create(client, {}, {"variant": "gin", "players": [{"name": "A"}, {"name": "B"}]})
        view = client.get(f"/v1/matches/{match['id']}").json
        assert view["external_id"] is None and view["tags"] == []
        assert [s["external_id"] for s in view["seats"]] == [None, None]

    @pytest.mark.parametrize("change, field", [
        ({"tags": ["x"] * 17}, "tags"),
        ({"tags": [""]}, "tags.0"),
        ({"tags": ["ok", "a" * 65]}, "tags.1"),
        ({"tags": "round:3"}, "tags"),
        ({"external_id": ""}, "external_id"),
        ({"external_id": "x" * 129}, "external_id"),
        ({"players": [{"name": "A", "external_id": 7}, {"name": "B"}]},
         "players.0.external_id"),
    ])
    def test_bad_metadata_is_a_400(self, client, change, field):
        response = client.post("/v1/matches", json={**gin(), **change})
        assert response.status_code == 400 and response.json["code"] == "invalid_request"
        assert field in response.json["errors"]


class TestListing:
    def test_filters_by_tags_external_id_and_status(self, client):
        club = organiser(client, "club")
        spring_3 = create(client, club, {**gin(["spring", "round:3"], "s3"), "deck": DECK,
                                         "options": {"first_dealer": 0, "target": 1}})
        spring_4 = create(client, club, gin(["spring", "round:4"], "s4"))
        create(client, club, gin(["autumn", "round:3"], "a3"))
        knock_out(client, spring_3)
        assert ids(listed(client, club, "?tag=spring")) == [spring_4["id"], spring_3["id"]]
        assert ids(listed(client, club, "?tag=spring&tag=round:3")) == [spring_3["id"]]
        assert ids(listed(client, club, "?external_id=s4")) == [spring_4["id"]]
        assert ids(listed(client, club, "?tag=spring&status=live")) == [spring_4["id"]]
        done = listed(client, club, "?status=complete")["matches"]
        assert [m["id"] for m in done] == [spring_3["id"]]
        assert done[0]["status"] == "complete" and done[0]["winner"] == 1
        assert done[0]["final_scores"][1] > 0 and done[0]["bonuses"]
        assert done[0]["players"] == [
            {"seat": 0, "name": "Ann", "external_id": "fide-1", "bot": None},
            {"seat": 1, "name": "Bob", "external_id": "fide-2", "bot": None}]
        assert listed(client, club, "?tag=winter")["matches"] == []

    def test_pages_follow_the_cursor_newest_first(self, client):
        club = organiser(client, "club")
        made = [create(client, club, gin(["night"]))["id"] for _ in range(5)]
        create(client, club, gin(["other"]))
        seen, query = [], "?tag=night&limit=2"
        for _ in range(5):
            page = listed(client, club, query)
            assert len(page["matches"]) <= 2
            seen += ids(page)
            if page["next_cursor"] is None:
                break
            query = f"?tag=night&limit=2&cursor={page['next_cursor']}"
        assert seen == made[::-1]

    def test_an_organiser_lists_only_its_own_matches_and_the_admin_all(self, client):
        mine, theirs = organiser(client, "mine"), organiser(client, "theirs")
        my_match = create(client, mine, gin(["shared-tag"]))
        their_match = create(client, theirs, gin(["shared-tag"]))
        anonymous = create(client, {}, gin(["shared-tag"]))
        assert ids(listed(client, mine)) == [my_match["id"]]
        assert ids(listed(client, theirs, "?tag=shared-tag")) == [their_match["id"]]
        assert set(ids(listed(client, ADMIN_AUTH, "?tag=shared-tag"))) == {
            my_match["id"], their_match["id"], anonymous["id"]}
        response = client.get(f"/v1/matches/{my_match['id']}", headers=theirs)
        assert (response.status_code, response.json["code"]) == (404, "match_not_found")

    def test_seats_and_strangers_may_not_list(self, client):
        match = create(client, {}, gin())
        assert client.get("/v1/matches").status_code == 401
        response = client.get("/v1/matches", headers=bearer(match["seats"][0]["token"]))
        assert (response.status_code, response.json["code"]) == (403, "organiser_only")
        unknown = client.get("/v1/matches", headers=bearer("rk_nope"))
        assert (unknown.status_code, unknown.json["code"]) == (401, "invalid_token")

    @pytest.mark.parametrize("query", ["?status=paused", "?limit=0", "?limit=201",
                                       "?limit=x", "?cursor=%%%", "?cursor=bm9wZQ",
                                       "?tag=", "?external_id="])
    def test_bad_queries_are_a_400(self, client, query):
        response = client.get(f"/v1/matches{query}", headers=ADMIN_AUTH)
        assert response.status_code == 400, response.json

    def test_the_indexes_are_rebuilt_from_the_meta_keys(self, app, client, redis_client,
                                                        key_prefix):
        club = organiser(client, "club")
        match = create(client, club, gin(["rebuild"], "x-1"))
        for key in redis_client.scan_iter(match=f"{key_prefix}:*matches"):
            redis_client.delete(key)
        assert listed(client, club)["matches"] == []
        assert app.extensions["rummy"].catalog.rebuild() == 1
        assert ids(listed(client, club, "?tag=rebuild&external_id=x-1")) == [match["id"]]


def meta_keys(redis_client: Any, key_prefix: str) -> set[bytes]:
    return set(redis_client.scan_iter(match=f"{key_prefix}:{{*}}:meta"))


class TestBatches:
    def test_a_batch_creates_every_match_with_its_tokens(self, client):
        club = organiser(client, "club")
        response = client.post("/v1/batches", headers=club, json={
            "tags": ["spring", "round:1"],
            "matches": [gin(["table:1"], "t1"), gin(["table:2"], "t2")]})
        assert response.status_code == 201, response.json
        batch = response.json
        assert batch["duplicate"] is False and batch["tags"] == ["spring", "round:1"]
        assert [m["external_id"] for m in batch["matches"]] == ["t1", "t2"]
        first = batch["matches"][0]
        assert first["tags"] == ["table:1", "spring", "round:1", f"batch:{batch['id']}"]
        assert first["batch"] == batch["id"] and len(first["seats"]) == 2
        view = act(client, first, 1, {"type": "pass"})
        assert view["seat"] == 1 and view["tags"] == []  # the organiser's, not the seat's
        owned = client.get(f"/v1/matches/{first['id']}", headers=club).json
        assert owned["tags"] == first["tags"]
        by_tag = listed(client, club, f"?tag=batch:{batch['id']}")
        assert set(ids(by_tag)) == {m["id"] for m in batch["matches"]}
        stored = client.get(f"/v1/batches/{batch['id']}", headers=club).json
        assert [m["id"] for m in stored["matches"]] == [m["id"] for m in batch["matches"]]
        assert stored["matches"][1]["external_id"] == "t2"

    def test_one_invalid_match_creates_none(self, client, redis_client, key_prefix):
        club = organiser(client, "club")
        create(client, club, gin())
        before = meta_keys(redis_client, key_prefix)
        bad_options = gin(target=0)
        response = client.post("/v1/batches", headers=club, json={
            "matches": [gin(), gin(), bad_options, gin()]})
        assert response.status_code == 400
        assert list(response.json["errors"]) == ["matches.2.options.target"]
        response = client.post("/v1/batches", headers=club, json={
            "matches": [gin(), {"variant": "gin", "players": [{"name": "Solo"}]}]})
        assert (response.status_code, response.json["code"]) == (400, "invalid_players")
        assert response.json["errors"] == {"matches.1.players": ["gin takes 2-4 players"]}
        response = client.post("/v1/batches", headers=club, json={
            "matches": [gin(), gin(players=[{"name": ""}, {"name": "B"}])]})
        assert response.status_code == 400
        assert list(response.json["errors"]) == ["matches.1.players.0.name"]
        assert meta_keys(redis_client, key_prefix) == before
        assert len(listed(client, club)["matches"]) == 1

    def test_only_organisers_make_and_read_batches(self, client):
        club, rival = organiser(client, "club"), organiser(client, "rival")
        assert client.post("/v1/batches", json={"matches": [gin()]}).status_code == 401
        match = create(client, {}, gin())
        response = client.post("/v1/batches", json={"matches": [gin()]},
                               headers=bearer(match["seats"][0]["token"]))
        assert (response.status_code, response.json["code"]) == (403, "organiser_only")
        batch = client.post("/v1/batches", json={"matches": [gin()]}, headers=club).json
        assert client.get(f"/v1/batches/{batch['id']}", headers=rival).status_code == 404
        assert client.get(f"/v1/batches/{batch['id']}", headers=ADMIN_AUTH).status_code == 200
        assert client.get("/v1/batches/nope", headers=club).status_code == 404
        assert client.post("/v1/batches", json={"matches": []}, headers=club).status_code == 400


def play_deterministically(client: FlaskClient, match: dict[str, Any]) -> None:
    """To the end, every seat choosing by its own view alone: knock when it may, else the
    best discard, else draw from the stock (or pass the upcard). Mirrored seats at two
    duplicate tables therefore play alike."""

    def choose(view: dict[str, Any]) -> dict[str, Any]:
        legal = view["legal_actions"]
        best = view.get("best_discard", {}).get("cards", ())
        return ([a for a in legal if a["type"] in ("knock", "big_gin")]
                or [a for a in legal if a["type"] == "discard" and a["card"] in best]
                or [a for a in legal if a.get("source") == "stock" or a["type"] == "pass"]
                or legal)[0]

    play_to_the_end(client, match, choose, moves=2000)


def deals(client: FlaskClient, match_id: str) -> dict[int, dict[str, Any]]:
    events = client.get(f"/v1/matches/{match_id}/events", headers=ADMIN_AUTH).json["events"]
    return {e["data"]["hand_number"]: e["data"] for e in events if e["type"] == "HandDealt"}


@pytest.mark.slow
class TestDuplicateDeals:
    def test_both_tables_get_identical_hands_with_the_seats_swapped(self, client):
        club = organiser(client, "club")
        response = client.post("/v1/batches", headers=club, json={"duplicate": True, "matches": [
            {**gin(["table:1"], target=100), "seed": "club night"},
            gin(["table:2"], target=100)]})
        assert response.status_code == 201, response.json
        one, two = response.json["matches"]
        assert [s["name"] for s in one["seats"]] == ["Ann", "Bob"]
        assert [(s["name"], s["external_id"]) for s in two["seats"]] == [
            ("Bob", "fide-2"), ("Ann", "fide-1")]
        assert one["duplicate"] == {"group": two["duplicate"]["group"], "table": 1,
                                    "partner": two["id"]}
        assert two["duplicate"]["table"] == 2 and two["duplicate"]["partner"] == one["id"]
        full = [client.get(f"/v1/matches/{m['id']}", headers=club).json for m in (one, two)]
        # Ann's cards at table 1 (seat 0) are Bob's at table 2, where Bob sits at seat 0.
        assert full[0]["all_hands"] == full[1]["all_hands"]
        assert full[1]["duplicate"]["partner"] == one["id"]
        play_deterministically(client, one)
        play_deterministically(client, two)
        first, second = deals(client, one["id"]), deals(client, two["id"])
        assert len(first) >= 3 and set(first) == set(second)
        for hand in first:
            assert first[hand]["deck"] == second[hand]["deck"]
            assert first[hand]["commitment"] == second[hand]["commitment"]
        for match in (one, two):
            created = client.post(f"/v1/matches/{match['id']}/verifications", headers=club)
            report = client.get(created.headers["Location"], headers=club).json["report"]
            shared = next(c for c in report["checks"] if c["name"] == "duplicate_deals")
            assert report["ok"] and shared["checked"] == len(first)
        listing = listed(client, club, "?tag=table:2")["matches"]
        assert listing[0]["duplicate"]["partner"] == one["id"]

    def test_gem_tables_share_dice_too(self, client):
        players = [{"name": n} for n in ("Ann", "Bob", "Cy")]
        body = {"variant": "gem", "players": players, "options": {}}
        batch = client.post("/v1/batches", headers=ADMIN_AUTH, json={
            "duplicate": True, "matches": [body, body]}).json
        one, two = (deals(client, m["id"])[1] for m in batch["matches"])
        assert one["deck"] == two["deck"] and one["dice"] == two["dice"]
        assert [s["name"] for s in batch["matches"][1]["seats"]] == ["Bob", "Cy", "Ann"]

    @pytest.mark.parametrize("second, field", [
        (gin(target=50), "matches.1.options"),
        (gin(players=[PLAYERS[1], PLAYERS[0]]), "matches.1.players"),
        ({**gin(), "seed": "other"}, "matches.1.seed"),
        ({"variant": "gem", "players": PLAYERS}, "matches.1.variant"),
        (gin(players=[PLAYERS[0], {"open": True}]), "matches.1.players"),  # was a 500
    ])
    def test_a_pair_must_match(self, client, second, field):
        response = client.post("/v1/batches", headers=ADMIN_AUTH, json={
            "duplicate": True, "matches": [gin(), second]})
        assert response.status_code == 400, response.json
        assert field in response.json["errors"]

    def test_duplicate_needs_pairs(self, client):
        response = client.post("/v1/batches", headers=ADMIN_AUTH, json={
            "duplicate": True, "matches": [gin(), gin(), gin()]})
        assert response.status_code == 400 and "matches" in response.json["errors"]


class TestResults:
    @pytest.fixture
    def played(self, client) -> dict[str, Any]:
        club = organiser(client, "club")
        table = {**gin(["spring"]), "deck": DECK, "options": {"first_dealer": 0, "target": 1}}
        batch = client.post("/v1/batches", headers=club, json={
            "tags": ["round:1"], "matches": [{**table, "external_id": "t1"},
                                             {**table, "external_id": "t2"}]}).json
        for match in batch["matches"]:
            knock_out(client, match)
        create(client, club, gin(["spring", "round:1"]))  # still live: not a result
        return {"auth": club, "batch": batch}

    def test_results_as_json(self, client, played):
        response = client.get("/v1/results?tag=spring&tag=round:1", headers=played["auth"])
        assert response.status_code == 200
        results = response.json["matches"]
        assert [r["external_id"] for r in results] == ["t1", "t2"]
        view = client.get(f"/v1/matches/{results[0]['id']}").json
        for key in ("winner", "winners", "final_scores", "bonuses"):
            assert results[0][key] == view[key]
        ann, bob = results[0]["players"]
        assert (ann["external_id"], ann["winner"], bob["winner"]) == ("fide-1", False, True)
        assert bob["final_score"] == view["final_scores"][1]
        assert bob["bonus"] == view["bonuses"][1]["total"]
        assert client.get("/v1/results?tag=spring", headers=organiser(
            client, "rival")).json["matches"] == []

    def test_results_as_csv(self, client, played):
        response = client.get("/v1/results?tag=spring&format=csv", headers=played["auth"])
        assert response.status_code == 200 and response.mimetype == "text/csv"
        rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
        assert len(rows) == 4
        assert [(r["match_external_id"], r["seat"], r["name"], r["player_external_id"],
                 r["winner"]) for r in rows] == [
            ("t1", "0", "Ann", "fide-1", "false"), ("t1", "1", "Bob", "fide-2", "true"),
            ("t2", "0", "Ann", "fide-1", "false"), ("t2", "1", "Bob", "fide-2", "true")]
        view = client.get(f"/v1/matches/{rows[1]['match_id']}").json
        assert int(rows[1]["final_score"]) == view["final_scores"][1]
        assert rows[0]["tags"].split(";")[:2] == ["spring", "round:1"]
        assert rows[0]["batch"] == played["batch"]["id"]

    def test_csv_cells_a_spreadsheet_would_run_are_made_inert(self, client):
        club = organiser(client, "club")
        table = {**gin(["evil"]), "deck": DECK, "options": {"first_dealer": 0, "target": 1},
                 "players": [{"name": "=HYPERLINK(\"x\")", "external_id": "@cmd"},
                             {"name": "Bob", "external_id": "-1+1"}]}
        knock_out(client, create(client, club, table))
        text = client.get("/v1/results?tag=evil&format=csv", headers=club).get_data(as_text=True)
        rows = list(csv.DictReader(io.StringIO(text)))
        assert [(r["name"], r["player_external_id"]) for r in rows] == [
            ("'=HYPERLINK(\"x\")", "'@cmd"), ("Bob", "'-1+1")]
        assert int(rows[1]["final_score"]) > 0

    def test_results_need_an_organiser_and_a_tag(self, client):
        assert client.get("/v1/results?tag=x").status_code == 401
        assert client.get("/v1/results", headers=ADMIN_AUTH).status_code == 400
        assert client.get("/v1/results?tag=x&format=xml", headers=ADMIN_AUTH).status_code == 400


# --- no input is a 500 -----------------------------------------------------------------------

match_bodies = st.fixed_dictionaries({
    "variant": st.sampled_from(["gin", "gem", "rummy", "poker"]),
    "players": st.lists(st.fixed_dictionaries(
        {"name": st.sampled_from(["Ann", "Bob", ""])},
        optional={"external_id": st.one_of(st.none(), any_text),
                  "entropy": st.one_of(st.none(), any_text)}), min_size=1, max_size=4),
}, optional={"options": st.dictionaries(st.sampled_from(["target", "first_dealer", "x"]),
                                        json_values, max_size=2),
             "tags": st.lists(any_text, max_size=3), "external_id": any_text,
             "seed": any_text, "deck": st.lists(any_text, max_size=3)})
batch_bodies = st.fixed_dictionaries(
    {"matches": st.lists(fuzzed(match_bodies), max_size=4)},
    optional={"duplicate": st.one_of(st.booleans(), json_values),
              "tags": st.one_of(st.lists(any_text, max_size=3), json_values)})


@FUZZ
@given(body=fuzzed(batch_bodies))
def test_no_batch_body_is_a_server_error(client, body):
    check(client.post("/v1/batches", json=body, headers=ADMIN_AUTH), "POST")


@FUZZ
@given(path=st.sampled_from(["/v1/matches", "/v1/results", "/v1/batches/"]),
       query=st.lists(st.tuples(st.sampled_from(["tag", "status", "external_id", "limit",
                                                 "cursor", "format", "x"]), any_text),
                      max_size=4))
def test_no_query_is_a_server_error(client, path, query):
    encoded = "&".join(f"{name}={quote(value.encode('utf-8', 'surrogatepass'))}"
                       for name, value in query)
    url = path + ("x" if path.endswith("/") else "") + "?" + encoded
    check(client.get(url, headers=ADMIN_AUTH))
