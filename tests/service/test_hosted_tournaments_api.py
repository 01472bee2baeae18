"""Tournaments over HTTP: an organiser creates one, the server pairs, opens and records
every round as owed work, anybody reads standings and rounds, an entrant finds their
table with their player token, and an auditor verifies the export."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner

from service.cli import main as rummy
from service.config import Settings
from tests.service.conftest import ADMIN_AUTH, bearer, create


def bots(count: int) -> list[dict[str, Any]]:
    return [{"bot": "basic"} for _ in range(count)]


def new(client, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/tournaments", json={
        "variant": "gin", "options": {"target": 10}, **body}, headers=ADMIN_AUTH)
    assert response.status_code == 201, response.json
    return response.json


def test_a_bot_swiss_is_played_to_its_end_and_ranked(client):
    made = new(client, name="Friday Swiss", format="swiss", rounds=3, players=bots(7))
    assert [e["token"] for e in made["entrants"]] == [None] * 7  # bots need none
    tournament = client.get(f"/v1/tournaments/{made['id']}").json
    assert tournament["status"] == "complete" and tournament["round"] == 3
    standings = client.get(f"/v1/tournaments/{made['id']}/standings").json["standings"]
    assert [row["rank"] for row in standings] == sorted(row["rank"] for row in standings)
    assert sum(row["byes"] for row in standings) == 3  # seven entrants: a bye a round
    first = client.get(f"/v1/tournaments/{made['id']}/rounds/1").json
    assert len(first["tables"]) == 3 and len(first["byes"]) == 1
    table = first["tables"][0]
    match = client.get(f"/v1/matches/{table['match_id']}").json
    assert match["phase"] == "complete"
    assert [s["name"] for s in table["seats"]] == [s["name"] for s in match["seats"]]


def test_standings_come_as_csv(client):
    made = new(client, format="round_robin", players=bots(3))
    response = client.get(f"/v1/tournaments/{made['id']}/standings?format=csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    header, *rows = response.get_data(as_text=True).splitlines()
    assert header.startswith("rank,entrant,name,points,played,wins,byes,withdrawn,buchholz")
    assert len(rows) == 3


def test_an_entrant_plays_their_table_with_their_player_token(client):
    made = new(client, format="round_robin", players=[{"name": "Ann"}, {"bot": "basic"}])
    ann = made["entrants"][0]["token"]
    me = client.get(f"/v1/tournaments/{made['id']}/me", headers=bearer(ann)).json
    assert me["name"] == "Ann" and me["table"]["seat"] == 0
    view = client.get(f"/v1/matches/{me['table']['match_id']}", headers=bearer(ann)).json
    assert view["seat"] == 0 and len(view["hand"]) >= 10  # Ann's own cards


def test_the_export_verifies_and_a_tampered_one_does_not(client, tmp_path):
    made = new(client, format="single_elimination", players=bots(4))
    export = client.get(f"/v1/tournaments/{made['id']}/export")
    assert export.status_code == 200 and export.mimetype == "application/x-ndjson"
    lines = export.get_data(as_text=True).splitlines()
    path = tmp_path / "tournament.ndjson"
    path.write_text("\n".join(lines) + "\n")
    verified = CliRunner().invoke(rummy, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
    assert "tournament" in verified.output and "VERIFIED" in verified.output
    records = [json.loads(line) for line in lines]
    recorded = next(r for r in records if r["type"] == "MatchRecorded")
    recorded["data"]["points"] = list(reversed(recorded["data"]["points"]))
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    refused = CliRunner().invoke(rummy, ["verify", str(path)])
    assert refused.exit_code == 1 and "NOT VERIFIED" in refused.output


def test_only_an_organiser_creates_one(client):
    body = {"variant": "gin", "players": bots(2)}
    assert client.post("/v1/tournaments", json=body).json["code"] == "missing_token"
    match = create(client)
    seat = bearer(match["seats"][0]["token"])
    refused = client.post("/v1/tournaments", json=body, headers=seat)
    assert refused.status_code == 403 and refused.json["code"] == "organiser_only"


def test_bad_requests_get_a_clear_code(client):
    bad = client.post("/v1/tournaments", json={"variant": "gin", "players": bots(2),
                                               "format": "knockout"}, headers=ADMIN_AUTH)
    assert bad.status_code == 400 and "format" in bad.json["errors"]
    assert client.get("/v1/tournaments/t-none").json["code"] == "tournament_not_found"
    made = new(client, format="round_robin", players=bots(2))
    assert client.get(f"/v1/tournaments/{made['id']}/rounds/9").json["code"] == \
        "round_not_found"
    me = client.get(f"/v1/tournaments/{made['id']}/me", headers=ADMIN_AUTH)
    assert me.status_code == 403 and me.json["code"] == "not_an_entrant"
    assert client.get(f"/v1/matches/{made['id']}").status_code == 404


def test_a_withdrawn_entrant_forfeits_their_table_and_is_paired_no_more(client):
    made = new(client, format="round_robin",
               players=[{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}, {"name": "Di"}])
    ann = made["entrants"][0]["token"]
    table = client.get(f"/v1/tournaments/{made['id']}/me", headers=bearer(ann)).json["table"]
    withdrawn = client.post(f"/v1/tournaments/{made['id']}/withdraw",
                            json={"entrant": 0, "reason": "ill"}, headers=ADMIN_AUTH)
    assert withdrawn.status_code == 200 and withdrawn.json["entrants"][0]["withdrawn"]
    match = client.get(f"/v1/matches/{table['match_id']}").json
    assert match["phase"] == "complete" and match["ended"]["seat"] == 0
    again = client.post(f"/v1/tournaments/{made['id']}/withdraw",
                        json={"entrant": 0, "reason": "ill"}, headers=ADMIN_AUTH)
    assert again.status_code == 422 and again.json["code"] == "already_withdrawn"
    for entrant in (1, 2, 3):  # the others' tables end too: the round completes
        me = client.get(f"/v1/tournaments/{made['id']}/me",
                        headers=bearer(made["entrants"][entrant]["token"])).json
        if me["table"] and not client.get(
                f"/v1/matches/{me['table']['match_id']}").json["phase"] == "complete":
            client.post(f"/v1/matches/{me['table']['match_id']}/forfeit",
                        json={"seat": me["table"]["seat"], "reason": "test"},
                        headers=ADMIN_AUTH)
    second = client.get(f"/v1/tournaments/{made['id']}/rounds/2").json
    assert all(0 not in [s["entrant"] for s in t["seats"]] for t in second["tables"])
    assert 0 not in [bye["entrant"] for bye in second["byes"]]


def test_the_owner_aborts_a_tournament(client):
    made = new(client, format="swiss", rounds=3, players=[{"name": "Ann"}, {"name": "Bob"}])
    aborted = client.post(f"/v1/tournaments/{made['id']}/abort", json={"reason": "rain"},
                          headers=ADMIN_AUTH)
    assert aborted.status_code == 200 and aborted.json["status"] == "aborted"
    again = client.post(f"/v1/tournaments/{made['id']}/abort", json={"reason": "rain"},
                        headers=ADMIN_AUTH)
    assert again.status_code == 422 and again.json["code"] == "tournament_over"


def test_a_player_token_names_its_entrant_before_any_table_exists(redis_client, key_prefix,
                                                                  serving):
    queued = serving(Settings(redis_url="redis://unused", admin_token="admin-secret",
                              key_prefix=key_prefix), redis_client, jobs_inline=False)
    http = queued.test_client()
    made = http.post("/v1/tournaments", headers=ADMIN_AUTH, json={
        "variant": "gin", "format": "round_robin",
        "players": [{"name": "Ann"}, {"name": "Bob"}]}).json
    me = http.get(f"/v1/tournaments/{made['id']}/me",
                  headers=bearer(made["entrants"][0]["token"]))
    assert me.status_code == 200 and me.json["table"] is None  # paired, not opened yet


def test_ratings_list_the_rated_players_best_first(client):
    new(client, format="round_robin", players=[{"bot": "expert"}, {"bot": "basic"},
                                                 {"bot": "random"}])
    board = client.get("/v1/ratings/gin?limit=2")
    assert board.status_code == 200 and board.json["total"] == 3
    assert [p["rank"] for p in board.json["players"]] == [1, 2]
    assert board.json["players"][0]["rating"] >= board.json["players"][1]["rating"]
    assert client.get("/v1/ratings/gin?offset=2").json["players"][0]["rank"] == 3
    assert client.get("/v1/ratings/canasta").status_code == 404
    assert client.get("/v1/ratings/gin?limit=0").status_code == 400


def test_players_join_a_tournament_listed_in_the_lobby_before_it_starts(client):
    made = new(client, format="round_robin", players=[{"bot": "basic"}],
               registration={"max_players": 3})
    assert made["status"] == "registering" and made["round"] == 0
    lobby = client.get("/v1/lobby/tournaments?variant=gin").json
    assert made["id"] in [t["id"] for t in lobby["tournaments"]]
    joined = client.post(f"/v1/tournaments/{made['id']}/join", json={"name": "Ann"})
    assert joined.status_code == 201 and joined.json["entrant"] == 1
    taken = client.post(f"/v1/tournaments/{made['id']}/join", json={"name": "ANN"})
    assert taken.status_code == 400 and taken.json["code"] == "name_taken"
    assert client.post(f"/v1/tournaments/{made['id']}/join", json={}).status_code == 400
    ann = bearer(joined.json["token"])
    assert client.get(f"/v1/tournaments/{made['id']}/me", headers=ann).json["name"] == "Ann"
    refused = client.post(f"/v1/tournaments/{made['id']}/start", headers=ann)
    assert refused.status_code == 403 and refused.json["code"] == "organiser_only"
    started = client.post(f"/v1/tournaments/{made['id']}/start", headers=ADMIN_AUTH)
    assert started.status_code == 200 and started.json["status"] == "running"
    table = client.get(f"/v1/tournaments/{made['id']}/me", headers=ann).json["table"]
    view = client.get(f"/v1/matches/{table['match_id']}", headers=ann).json
    assert view["seat"] == table["seat"] and view["hand"]  # the player token is the seat's
    late = client.post(f"/v1/tournaments/{made['id']}/join", json={"name": "Bob"})
    assert late.status_code == 422 and late.json["code"] == "entry_closed"
    assert made["id"] not in [t["id"] for t in
                              client.get("/v1/lobby/tournaments").json["tournaments"]]


def test_a_started_round_is_not_paired_again(client):
    made = new(client, format="swiss", rounds=2, players=[{"name": "Ann"}, {"name": "Bob"}])
    repaired = client.post(f"/v1/tournaments/{made['id']}/rounds/1/repair", json={},
                           headers=ADMIN_AUTH)
    assert repaired.status_code == 422 and repaired.json["code"] == "round_started"
    missing = client.post(f"/v1/tournaments/{made['id']}/rounds/5/repair", json={},
                          headers=ADMIN_AUTH)
    assert missing.status_code == 404 and missing.json["code"] == "round_not_found"


def test_a_round_break_shows_the_next_table_and_may_be_repaired(client):
    made = new(client, format="swiss", rounds=2, round_break_s=600,
               players=[{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}])
    ann = bearer(made["entrants"][0]["token"])
    me = client.get(f"/v1/tournaments/{made['id']}/me", headers=ann).json
    assert me["table"] is None and (me["upcoming"] is not None or me["bye"])
    placed = client.post(f"/v1/tournaments/{made['id']}/rounds/1/repair",
                         json={"tables": [[2, 0]], "byes": [1]}, headers=ADMIN_AUTH)
    assert placed.status_code == 200 and placed.json["pairings"] == 2
    assert [s["name"] for s in placed.json["tables"][0]["seats"]] == ["Cy", "Ann"]
    assert placed.json["opens_at"] is not None and not placed.json["opened"]
    wrong = client.post(f"/v1/tournaments/{made['id']}/rounds/1/repair",
                        json={"tables": [[2, 0]]}, headers=ADMIN_AUTH)
    assert wrong.status_code == 422 and wrong.json["code"] == "manual_pairing"


def test_an_entrant_leaves_with_their_player_token(client):
    made = new(client, players=[{"name": "Ann"}], registration={"starts_at": None})
    left = client.post(f"/v1/tournaments/{made['id']}/leave",
                       headers=bearer(made["entrants"][0]["token"]))
    assert left.status_code == 200 and left.json["withdrawn"]
    assert client.post(f"/v1/tournaments/{made['id']}/leave").status_code == 401
