"""POST /v1/audits: an exported log verified as `rummy verify` does, with the table at each
step for the replay viewer; and the reference web client's files served at /."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from domain.chain import canonical_json
from service.cli import main as rummy
from service.usecases import uploaded_logs
from service.usecases.uploaded_logs import MAX_LOG_BYTES
from tests.service.test_audit_api import play_out

GOLDEN = Path(__file__).parents[1] / "fixtures" / "golden" / "gin-2p-schema1.ndjson"
CHUNK = 64 * 1024
LIMITS = {"MAX_LOG_BYTES": 6 * 1024 * 1024, "MAX_LOG_LINES": 15_000,
          "MAX_LINE_BYTES": 128 * 1024, "MAX_GUESSED_MOVES": 1_500}
"""This server's limits (service/usecases/log_upload.py), as docs/audit-and-replay.md and the
reference client state them."""


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


class Endless(io.RawIOBase):
    """A body that never ends, as a chunked upload may not: ``head``, then ``filler`` over
    and over. ``served`` counts the bytes the server read."""

    def __init__(self, head: bytes, filler: bytes) -> None:
        self.pending, self.filler, self.served = head, filler, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while len(self.pending) < len(buffer):
            self.pending += self.filler * max(1, CHUNK // len(self.filler))
        size = len(buffer)
        buffer[:size], self.pending = self.pending[:size], self.pending[size:]
        self.served += size
        return size


def stream(client: FlaskClient, body: Endless, states: bool = False) -> Any:
    """POST ``body`` as a server hands a chunked upload to the app: no length, a stream
    the server ends (``wsgi.input_terminated``)."""
    return client.post(f"/v1/audits?states={str(states).lower()}",
                       content_type="application/x-ndjson",
                       environ_overrides={"wsgi.input": body, "wsgi.input_terminated": True})


def golden() -> list[bytes]:
    return GOLDEN.read_bytes().splitlines(keepends=True)


@pytest.mark.parametrize("at, line, status, code", [
    (1, b"not json\n", 400, "not_a_log"), (3, b"[1, 2]\n", 400, "not_a_log"),
    (2, b"{}\n", 422, "unverifiable_log"),
])
def test_reading_stops_at_the_first_line_that_is_not_a_record(client, at, line, status, code):
    body = Endless(b"".join(golden()[:at - 1]) + line, b"\n")
    answer = stream(client, body)
    assert (answer.status_code, answer.json["code"]) == (status, code)
    assert f"line {at}:" in answer.json["message"] or f"line {at} " in answer.json["message"]
    assert body.served <= 2 * CHUNK, "the rest of the body was read"


@pytest.mark.parametrize("edit", [
    {"ts": None}, {"ts": "soon"}, {"version": "4"}, {"version": True}, {"data": [1]},
    {"schema": None}, {"type": 7}, {"hash": None}, {"command": "draw"}, {"command_id": 3},
])
def test_a_record_the_verifier_cannot_walk_is_a_422_naming_its_line(client, edit):
    records = [json.loads(line) for line in golden()]
    records[3] = {**records[3], **edit}
    answer = audit(client, ndjson(records))
    assert (answer.status_code, answer.json["code"]) == (422, "unverifiable_log")
    assert "line 4:" in answer.json["message"] and next(iter(edit)) in answer.json["message"]


@pytest.mark.parametrize("missing", ["version", "type", "schema", "ts", "prev_hash", "hash",
                                     "data"])
def test_a_record_without_a_field_the_verifier_needs_is_a_422(client, missing):
    records = [json.loads(line) for line in golden()]
    del records[5][missing]
    answer = audit(client, ndjson(records))
    assert (answer.status_code, answer.json["code"]) == (422, "unverifiable_log")
    assert f"line 6: no '{missing}'" in answer.json["message"]


def test_a_chunked_body_past_the_limit_is_a_413_as_soon_as_it_passes(client):
    body = Endless(b"", b" " * 1000 + b"\n")  # blank lines: nothing to refuse but the size
    answer = stream(client, body)
    assert (answer.status_code, answer.json["code"]) == (413, "payload_too_large")
    assert str(MAX_LOG_BYTES) in answer.json["message"]
    assert MAX_LOG_BYTES < body.served <= MAX_LOG_BYTES + CHUNK


def test_a_body_of_the_limit_exactly_is_read_to_its_end(client):
    head, blank = golden()[0], b" " * 1000 + b"\n"
    rest = MAX_LOG_BYTES - len(head)
    body = head + blank * (rest // len(blank)) + b" " * (rest % len(blank) - 1) + b"\n"
    assert len(body) == MAX_LOG_BYTES
    answer = audit(client, body, states=False)
    assert answer.status_code == 200, answer.json
    assert answer.json["report"]["events"] == 1


def test_a_log_of_too_many_lines_is_a_413(client):
    lines = LIMITS["MAX_LOG_LINES"]
    record = ndjson([{"version": 1, "type": "Noted", "schema": 1, "ts": 0, "prev_hash": "",
                      "hash": "", "data": {}}])  # short: the lines run out before the bytes
    assert audit(client, record * lines, states=False).status_code == 200
    body = Endless(b"", record)
    answer = stream(client, body)
    assert (answer.status_code, answer.json["code"]) == (413, "log_too_long")
    assert str(lines) in answer.json["message"]
    assert body.served <= (lines + 1) * len(record) + CHUNK


def test_a_line_too_long_is_a_413_before_it_ends(client):
    body = Endless(golden()[0] + b'{"version": 2, "data": "', b"x")
    answer = stream(client, body)
    assert (answer.status_code, answer.json["code"]) == (413, "line_too_long")
    assert "line 2 " in answer.json["message"]
    assert body.served <= LIMITS["MAX_LINE_BYTES"] + 2 * CHUNK
    longest = golden()[0][:-1] + b" " * (LIMITS["MAX_LINE_BYTES"] - len(golden()[0])) + b"\n"
    assert audit(client, longest, states=False).status_code == 200


def test_a_log_of_too_many_moves_without_their_command_is_a_413(client):
    first, *moves = golden()[:4]  # the first release recorded no commands
    moves = [line for line in moves if b'"command_id": "seat' in line]
    assert len({json.loads(line)["command_id"] for line in moves}) == 2  # two moves
    assert not any(b'"command"' in line for line in moves)
    assert audit(client, GOLDEN.read_bytes(), states=False).json["report"]["ok"]
    body = Endless(first, b"".join(moves))
    answer = stream(client, body)
    assert (answer.status_code, answer.json["code"]) == (413, "log_too_long")
    guessed = LIMITS["MAX_GUESSED_MOVES"]
    assert f"line {guessed + 2}: more than {guessed} moves recorded without their command" \
        in answer.json["message"]
    assert body.served <= len(first) + (guessed + 1) * max(map(len, moves)) + CHUNK


def test_the_limits_are_the_ones_documented(client):
    from service.usecases import log_upload

    assert {name: getattr(log_upload, name) for name in LIMITS} == LIMITS
    assert MAX_LOG_BYTES == LIMITS["MAX_LOG_BYTES"]
    web = (Path(__file__).parents[2] / "service" / "web" / "js" / "api.js").read_text()
    stated = re.search(r"export const AUDIT_MAX_BYTES = ([\d *]+);", web)
    assert stated and eval(stated.group(1)) == MAX_LOG_BYTES  # noqa: S307 - digits and *
    page = (Path(__file__).parents[2] / "docs" / "audit-and-replay.md").read_text()
    for value in (f"{MAX_LOG_BYTES // (1024 * 1024)} MiB", f"{LIMITS['MAX_LOG_LINES']:,}",
                  f"{LIMITS['MAX_GUESSED_MOVES']:,}",
                  f"{uploaded_logs.MAX_STATES_BYTES // (1024 * 1024)} MiB"):
        assert value in page, value


def test_the_tables_stop_at_their_size_limit_with_a_note(client, monkeypatch):
    body = GOLDEN.read_bytes()
    full = audit(client, body).json["states"]
    sizes = [len(json.dumps(s, separators=(",", ":"))) + 1 for s in full]
    budget = sum(sizes) // 2
    monkeypatch.setattr(uploaded_logs, "MAX_STATES_BYTES", budget)
    answer = audit(client, body)
    drawn = len(answer.json["states"])
    assert 0 < drawn < len(full) and sum(sizes[:drawn]) <= budget < sum(sizes[:drawn + 1])
    assert answer.json["states"] == full[:drawn]
    assert answer.json["states_note"] == (f"tables are drawn for the first {drawn} events "
                                          f"only: together they would pass {budget} bytes, "
                                          "this server's limit")
    assert answer.json["report"]["ok"]


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
