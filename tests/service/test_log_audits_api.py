"""POST /v1/audits: an exported log verified as `rummy verify` does, with the table at each
step for the replay viewer; and the reference web client's files served at /."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from domain.chain import canonical_json
from service.cli import main as rummy
from service.usecases.uploaded_logs import MAX_LOG_BYTES
from tests.service.test_audit_api import play_out


def ndjson(records: list[dict[str, Any]]) -> bytes:
    return "".join(canonical_json(r) + "\n" for r in records).encode()


def audit(client: FlaskClient, body: bytes, states: bool = True) -> Any:
    return client.post(f"/v1/audits?states={str(states).lower()}", data=body,
                       content_type="application/x-ndjson")


@pytest.fixture
def exported(client: FlaskClient) -> tuple[str, bytes]:
    match = play_out(client, target=30)
    response = client.get(f"/v1/matches/{match['id']}/export")
    return match["id"], response.get_data()


def test_an_export_verifies_as_rummy_verify_says_with_the_table_at_every_step(client,
                                                                              exported):
    match_id, body = exported
    answer = audit(client, body)
    assert answer.status_code == 200, answer.json
    offline = CliRunner().invoke(rummy, ["verify", "--json", "-"], input=body.decode())
    assert answer.json["report"] == json.loads(offline.output) and answer.json["report"]["ok"]

    states, lines = answer.json["states"], body.decode().splitlines()
    assert len(states) == len(lines) and answer.json["states_note"] is None
    for at in (1, 5, len(lines) // 2, len(lines)):
        stored = client.get(f"/v1/matches/{match_id}/state?at={at}").json
        for seat in stored["seats"]:
            del seat["external_id"]  # the match's metadata: not in its log
        mine = states[at - 1]
        assert mine == {k: v for k, v in stored.items() if k in mine}
        assert mine["version"] == at
    assert "states" not in audit(client, body, states=False).json


def test_an_edited_log_fails_at_the_edited_event(client, exported):
    _, body = exported
    records = [json.loads(line) for line in body.decode().splitlines()]
    records[9]["ts"] += 1
    report = audit(client, ndjson(records)).json["report"]
    assert not report["ok"] and report["first_failing_version"] == 10


def test_a_redacted_export_is_drawn_up_to_its_first_hidden_event(client):
    match = client.post("/v1/matches", json={"variant": "gin", "players": [
        {"name": "Ann"}, {"name": "Bob"}]}).json
    token = match["seats"][0]["token"]
    body = client.get(f"/v1/matches/{match['id']}/export",
                      headers={"Authorization": f"Bearer {token}"}).get_data()
    answer = audit(client, body).json
    dealt = [json.loads(line)["redacted"] for line in body.decode().splitlines()].index(True)
    assert len(answer["states"]) == dealt and "redacted" in answer["states_note"]
    assert all("hand" not in state and "all_hands" not in state for state in answer["states"])


@pytest.mark.parametrize("body, status, code", [
    (b"", 400, "not_a_log"), (b"not json\n", 400, "not_a_log"), (b"[1, 2]\n", 400, "not_a_log"),
    (b'{"a": NaN}\n', 400, "not_a_log"), (b"\xff\xfe\n", 400, "not_a_log"),
    (b"[" * 100_000, 400, "not_a_log"), (b'{"n": 1' + b"0" * 5000 + b"}\n", 400, "not_a_log"),
    (b'{"version": 1, "type": "MatchCreated", "data": 5}\n', 422, "unverifiable_log"),
])
def test_what_is_not_a_log_is_refused_with_a_stable_code(client, body, status, code):
    answer = audit(client, body)
    assert (answer.status_code, answer.json["code"]) == (status, code)


def test_odd_records_get_a_failed_report_never_a_server_error(client, exported):
    _, body = exported
    records = [json.loads(line) for line in body.decode().splitlines()]
    for broken in ({**records[0], "data": {"variant": "nope"}},
                   {**records[3], "ts": "soon"}, {**records[3], "schema": None},
                   {**records[3], "type": "Unheard"}, {**records[3], "data": {}}):
        for at in (0, 3):
            edited = records[:at] + [broken] + records[at + 1:]
            answer = audit(client, ndjson(edited))
            assert answer.status_code in (200, 422), answer.json
            if answer.status_code == 200:
                assert not answer.json["report"]["ok"]


def test_a_log_over_the_limit_is_a_413(client):
    answer = audit(client, b" " * (MAX_LOG_BYTES + 1))
    assert (answer.status_code, answer.json["code"]) == (413, "payload_too_large")


def test_the_reference_client_is_served_at_the_root_under_a_strict_policy(client):
    with client.get("/") as page:  # files are streamed: close them
        assert page.status_code == 200 and page.mimetype == "text/html"
        assert "default-src 'self'" in page.headers["Content-Security-Policy"]
        assert b'src="/web/js/app.js"' in page.data
    with client.get("/web/js/app.js") as module:
        assert module.status_code == 200 and module.mimetype == "text/javascript"
        assert module.headers["X-Content-Type-Options"] == "nosniff"
    missing = client.get("/web/js/nope.js")
    assert (missing.status_code, missing.json["code"]) == (404, "not_found")
