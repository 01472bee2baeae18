"""The API's JSON: what a client reads is what the standard library would have given it."""

from __future__ import annotations

import dataclasses
import datetime
import json

from flask import Flask

from service.api.answers_json import FastJSON, answer_with_orjson
from tests.service.conftest import bearer


def _app() -> Flask:
    app = Flask("answers")
    answer_with_orjson(app)
    return app


def test_an_answer_is_compact_with_its_keys_sorted_and_its_text_in_utf8():
    app = _app()
    with app.app_context():
        body = app.json.response({"seat": 1, "name": "Zoë", "hand": ["7♣", "K♦"]}).get_data()
    assert body == '{"hand":["7♣","K♦"],"name":"Zoë","seat":1}\n'.encode()
    assert json.loads(body) == {"seat": 1, "name": "Zoë", "hand": ["7♣", "K♦"]}


def test_what_orjson_refuses_is_encoded_as_flask_would():
    app = _app()
    huge = {"b": 2**70, "a": 1}
    assert app.json.dumps(huge) == '{"a":1,"b":1180591620717411303424}'


def test_dates_and_dataclasses_are_encoded_as_flask_encodes_them():
    @dataclasses.dataclass
    class Seat:
        name: str

    app = _app()
    day = datetime.datetime(2026, 11, 28, 12, 0, tzinfo=datetime.UTC)
    assert json.loads(app.json.dumps({"at": day, "seat": Seat("Ann")})) == {
        "at": "Sat, 28 Nov 2026 12:00:00 GMT", "seat": {"name": "Ann"}}


def test_a_body_is_read_as_the_standard_library_reads_it():
    provider = FastJSON(_app())
    assert provider.loads('{"n": 123456789012345678901234567890}') == {
        "n": 123456789012345678901234567890}


def test_the_api_answers_with_it(client):
    """A seat's view of a match between Zoë and Björn: their names as UTF-8, where Flask's
    own provider would have sent escapes."""
    match = client.post("/v1/matches", json={"variant": "gin", "players": [
        {"name": "Zoë"}, {"name": "Björn"}]}).json
    answer = client.get(f"/v1/matches/{match['id']}", headers=bearer(match["seats"][0]["token"]))
    text = answer.get_data(as_text=True)
    assert answer.mimetype == "application/json"
    assert "Zoë".encode() in answer.get_data() and "Bj\\u00f6rn" not in text
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"),
                              ensure_ascii=False) + "\n"
