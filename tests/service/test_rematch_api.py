"""A rematch over HTTP, on both backends: offered and accepted with seat tokens, followed
by anybody, each player's new token for them alone, the refusals' codes, and logs that
verify."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.audit import verify
from domain.variants import VARIANTS
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer
from tests.service.test_audit_api import export
from tests.service.test_bots_api import create, play_people


def resigned(client: FlaskClient, variant: str = "gin",
             players: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A match whose seat 0 resigned: ended, with a result."""
    match = create(client, variant, players or [{"name": "Ann"}, {"name": "Bob"}])
    answer = client.post(f"/v1/matches/{match['id']}/resign", json={},
                         headers=bearer(match["seats"][0]["token"]))
    assert answer.status_code == 200, answer.json
    return match


def rematch(client: FlaskClient, match: dict[str, Any], method: str = "post",
            token: str | None = None, status: int = 200) -> dict[str, Any]:
    answer = getattr(client, method)(f"/v1/matches/{match['id']}/rematch",
                                     headers=bearer(token) if token else {})
    assert answer.status_code == status, answer.json
    return answer.json


def holder(match: dict[str, Any], seat: int) -> str:
    return str(match["seats"][seat]["token"])


def test_two_people_rematch_and_each_gets_their_own_new_seats_token(client):
    match = resigned(client)
    offered = rematch(client, match, token=holder(match, 0))
    assert (offered["status"], offered["awaited"], offered["token"]) == ("offered", [1], None)
    started = rematch(client, match, token=holder(match, 1))
    new = {"id": started["new_match_id"]}
    ann = rematch(client, match, "get", holder(match, 0))
    assert (ann["new_seat"], started["new_seat"]) == (1, 0)
    assert ann["token"] not in (None, started["token"])
    view = client.get(f"/v1/matches/{new['id']}", headers=bearer(started["token"])).json
    assert view["seat"] == 0 and [s["name"] for s in view["seats"]] == ["Bob", "Ann"]
    assert client.get(f"/v1/matches/{new['id']}",
                      headers=bearer(ann["token"])).json["seat"] == 1
    for seat in (0, 1):
        old = client.post(f"/v1/matches/{new['id']}/actions", json={"type": "pass"},
                          headers=bearer(holder(match, seat)))
        assert (old.status_code, old.json["code"]) == (403, "forbidden")


def test_the_public_and_the_organiser_follow_it_without_tokens(client):
    match = resigned(client)
    assert rematch(client, match, "get")["status"] == "none"
    rematch(client, match, token=holder(match, 1))
    public = rematch(client, match, "get")
    assert (public["offered_by"], public["awaited"]) == (1, [0])
    rematch(client, match, token=holder(match, 0))
    for auth in (None, match["creator_token"]):
        seen = rematch(client, match, "get", auth)
        assert seen["status"] == "started" and seen["new_match_id"]
        assert (seen["seat"], seen["new_seat"], seen["token"]) == (None, None, None)
    organised = create(client, "gin", [{"name": "Ann"}, {"name": "Bob"}], ADMIN_AUTH)
    client.post(f"/v1/matches/{organised['id']}/resign", json={},
                headers=bearer(holder(organised, 1)))
    assert client.get(f"/v1/matches/{organised['id']}/rematch",
                      headers=ADMIN_AUTH).json["token"] is None


def test_a_person_against_a_bot_starts_the_rematch_on_their_offer(client):
    match = create(client, "gin", [{"name": "Ann"}, {"bot": "basic"}])
    for _ in play_people(client, match):
        pass
    answer = rematch(client, match, token=holder(match, 0))
    assert answer["status"] == "started" and answer["accepted"] == [0, 1]
    new = client.get(f"/v1/matches/{answer['new_match_id']}",
                     headers=bearer(answer["token"])).json
    assert new["seat"] == 1 and new["seats"][0]["bot"] == {"level": "basic", "think_ms": 0}
    assert new["turn"] in (1, None)  # the bot has played up to Ann's turn


def test_three_seats_rotate_in_rummy(client):
    match = resigned(client, "rummy", [{"name": n} for n in ("Ann", "Bob", "Cy")])
    for seat in (1, 2, 0):
        answer = rematch(client, match, token=holder(match, seat))
    assert [s["new_seat"] for s in answer["seats"]] == [2, 0, 1]
    new = client.get(f"/v1/matches/{answer['new_match_id']}").json
    assert [s["name"] for s in new["seats"]] == ["Bob", "Cy", "Ann"]


def test_a_decline_is_off_for_everyone(client):
    match = resigned(client)
    rematch(client, match, token=holder(match, 0))
    declined = rematch(client, match, "delete", holder(match, 1))
    assert (declined["status"], declined["declined_by"]) == ("declined", 1)
    again = rematch(client, match, token=holder(match, 0), status=409)
    assert again["code"] == "rematch_declined"


def test_retried_acceptances_create_one_match(client):
    match = resigned(client)
    rematch(client, match, token=holder(match, 0))
    answers = [rematch(client, match, token=holder(match, 1)) for _ in range(3)]
    assert len({(a["new_match_id"], a["token"]) for a in answers}) == 1
    log = client.get(f"/v1/matches/{match['id']}/events").json["events"]
    assert [e["type"] for e in log].count("RematchStarted") == 1


@pytest.mark.parametrize("method", ["post", "delete"])
def test_refusals_have_stable_codes(client, method):
    live = create(client, "gin", [{"name": "Ann"}, {"name": "Bob"}])
    refused = rematch(client, live, method, holder(live, 0), 409)
    assert refused["code"] == "match_not_finished"
    match = resigned(client)
    assert rematch(client, match, method, None, 401)["code"] == "missing_token"
    assert rematch(client, match, method, "made-up", 401)["code"] == "invalid_token"
    for other in (match["creator_token"], holder(live, 0)):
        assert rematch(client, match, method, other, 403)["code"] == "forbidden"
    assert rematch(client, match, method, ADMIN, 403)["code"] == "forbidden"
    unknown = client.open("/v1/matches/nope/rematch", method=method.upper(),
                          headers=bearer(holder(match, 0)))
    assert (unknown.status_code, unknown.json["code"]) == (404, "match_not_found")


def test_an_aborted_match_has_no_rematch(client):
    match = create(client, "gin", [{"name": "Ann"}, {"name": "Bob"}], ADMIN_AUTH)
    client.post(f"/v1/matches/{match['id']}/abort", json={"reason": "void"},
                headers=ADMIN_AUTH)
    assert rematch(client, match, token=holder(match, 0), status=422)["code"] == "no_rematch"


def test_both_logs_verify(client):
    match = resigned(client)
    for seat in (0, 1):
        answer = rematch(client, match, token=holder(match, seat))
    for match_id in (match["id"], answer["new_match_id"]):
        report = verify(export(client, match_id), VARIANTS)
        assert report.ok, report.to_dict()
