"""What the API's headers promise (issue 19, item 7): an ``ETag`` on views and a 304 for an
``If-None-Match`` that still holds, a ``Location`` for a created match, ``Retry-After`` only
where it means "come back then", and an operation a caller may not call refused before
its body is read."""

from __future__ import annotations

import pytest

from service.config import RateLimits
from tests.service.conftest import ADMIN_AUTH, bearer, create
from tests.service.test_organisers_api import new_organiser
from tests.service.test_rate_limits import GIN, limited_app
from tests.service.test_seats_api import claim, open_match


class TestConditionalViews:
    def test_a_view_carries_an_etag_and_an_unchanged_one_is_a_304_without_body(self, client):
        match = create(client)
        url = f"/v1/matches/{match['id']}"
        seat = bearer(match["seats"][0]["token"])
        first = client.get(url, headers=seat)
        etag = first.headers["ETag"]
        again = client.get(url, headers={**seat, "If-None-Match": etag})
        assert again.status_code == 304
        assert again.get_data() == b""
        assert again.headers["ETag"] == etag

    def test_a_move_changes_the_etag(self, client):
        match = create(client)
        url = f"/v1/matches/{match['id']}"
        seat = bearer(match["seats"][0]["token"])
        before = client.get(url, headers=seat)
        player = before.json["turn"]
        mover = bearer(match["seats"][player]["token"])
        action = client.get(url, headers=mover).json["legal_actions"][0]
        assert client.post(f"{url}/actions", json=action, headers=mover).status_code == 200
        after = client.get(url, headers={**seat, "If-None-Match": before.headers["ETag"]})
        assert after.status_code == 200
        assert after.headers["ETag"] != before.headers["ETag"]

    def test_each_viewer_has_its_own_etag(self, client):
        match = create(client)
        url = f"/v1/matches/{match['id']}"
        seat0 = client.get(url, headers=bearer(match["seats"][0]["token"]))
        seat1 = client.get(url, headers={**bearer(match["seats"][1]["token"]),
                                         "If-None-Match": seat0.headers["ETag"]})
        assert seat1.status_code == 200  # seat 0's tag never stands for seat 1's hand
        public = client.get(url, headers={"If-None-Match": seat0.headers["ETag"]})
        assert public.status_code == 200

    @pytest.mark.parametrize("path", ["/events?after=0", "/state?at=1"])
    def test_the_log_and_past_states_are_conditional_too(self, client, path):
        match = create(client)
        url = f"/v1/matches/{match['id']}{path}"
        first = client.get(url)
        assert first.status_code == 200
        assert client.get(url, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304

    def test_the_spec_says_so(self, client):
        spec = client.get("/openapi.json").json
        view = spec["paths"]["/v1/matches/{match_id}"]["get"]
        assert "304" in view["responses"]
        assert "ETag" in view["responses"]["200"]["headers"]
        assert any(p["name"] == "If-None-Match" for p in view["parameters"])


def test_creation_says_where_the_match_is(client):
    answer = client.post("/v1/matches", json=GIN)
    assert answer.status_code == 201
    assert answer.headers["Location"] == f"/v1/matches/{answer.json['id']}"
    assert client.get(answer.headers["Location"]).status_code == 200
    spec = client.get("/openapi.json").json
    assert "Location" in spec["paths"]["/v1/matches"]["post"]["responses"]["201"]["headers"]


def test_no_answer_sets_a_cookie(client):
    """Tokens travel in the Authorization header only: no answer, the reference client's
    pages and the errors included, sets a cookie (the tests' client keeps no cookie jar)."""
    match = create(client)
    url = f"/v1/matches/{match['id']}"
    seat = bearer(match["seats"][client.get(url).json["turn"]]["token"])
    action = client.get(url, headers=seat).json["legal_actions"][0]
    answers = [client.get(url), client.get(url, headers=seat),
               client.post(f"{url}/actions", json=action, headers=seat),
               client.get(url, headers=bearer("made-up")), client.get("/v1/nowhere"),
               client.get("/"), client.get("/openapi.json")]
    cookies = [a.headers.get_all("Set-Cookie") for a in answers]
    for answer in answers:
        answer.close()
    assert cookies == [[]] * len(answers)


@pytest.fixture
def limited(request, redis_client, key_prefix):
    limits = RateLimits(create="50/minute", actions="50/minute", tickets="50/minute",
                        streams="50/minute", auth_failures="50/minute")
    return limited_app(request, redis_client, key_prefix, limits).test_client()


def test_retry_after_only_on_a_refusal(limited):
    created = limited.post("/v1/matches", json=GIN)
    assert created.status_code == 201
    assert "RateLimit-Remaining" in created.headers  # a client still sees its budget
    assert "Retry-After" not in created.headers
    match = created.json
    token = bearer(match["seats"][0]["token"])
    wrong = limited.post(f"/v1/matches/{match['id']}/actions", json={"type": "nonsense"},
                         headers=token)
    assert wrong.status_code == 400 and "Retry-After" not in wrong.headers


class TestCallersFirst:
    """Finding: organiser endpoints answered 400 for a malformed body before 403 to a
    caller who may not call them at all."""

    @pytest.mark.parametrize(("method", "path"), [
        ("POST", "/v1/webhooks"), ("POST", "/v1/batches"), ("GET", "/v1/results"),
        ("GET", "/v1/matches"), ("POST", "/v1/feed/tickets"),
        ("POST", "/v1/organisers"), ("GET", "/v1/organisers")])
    def test_a_seat_token_is_refused_before_its_body_is_read(self, client, method, path):
        match = create(client)
        seat = bearer(match["seats"][0]["token"])
        answer = client.open(path, method=method, data="{not json",
                             content_type="application/json", query_string={"x": "?"},
                             headers=seat)
        assert answer.status_code == 403, answer.json
        expected = "admin_only" if path == "/v1/organisers" else "organiser_only"
        assert answer.json["code"] == expected

    def test_an_organiser_is_refused_the_admins_operations_first(self, client):
        key = bearer(new_organiser(client, "Club")["key"])
        answer = client.post("/v1/organisers", data="[", content_type="application/json",
                             headers=key)
        assert (answer.status_code, answer.json["code"]) == (403, "admin_only")

    def test_a_caller_who_may_call_still_gets_the_400(self, client):
        answer = client.post("/v1/webhooks", data="{", content_type="application/json",
                             headers=ADMIN_AUTH)
        assert answer.status_code == 400


def private(answer) -> bool:
    """Whether no cache may keep the answer, and caches key what they keep by token."""
    return (answer.headers.get("Cache-Control") == "no-store"
            and "Authorization" in answer.headers.get("Vary", ""))


class TestNoStore:
    """Answers that depend on a token, or carry a secret, are ``no-store`` and vary by
    ``Authorization``: a shared cache (a proxy, a CDN) must neither keep a seat's hand or
    a token nor give one caller's answer to another."""

    def test_a_seat_view_and_its_304_are_never_stored(self, client):
        match = create(client)
        url = f"/v1/matches/{match['id']}"
        seat = bearer(match["seats"][0]["token"])
        first = client.get(url, headers=seat)
        assert private(first)
        assert private(client.get(url, headers={**seat, "If-None-Match": first.headers["ETag"]}))
        assert private(client.get(url + "/events", headers=seat))
        assert private(client.get(url, headers=ADMIN_AUTH))

    def test_public_answers_keep_their_etag_caching_and_vary_by_token(self, client):
        match = create(client)
        public = client.get(f"/v1/matches/{match['id']}")
        assert public.headers.get("ETag") and "no-store" not in public.headers.get(
            "Cache-Control", "")
        assert "Authorization" in public.headers["Vary"]  # a token's answer is another
        assert "no-store" not in client.get("/v1/lobby").headers.get("Cache-Control", "")

    def test_answers_that_carry_tokens_or_keys_are_never_stored(self, client):
        created = client.post("/v1/matches", json=GIN)  # no credentials, yet seat tokens
        assert private(created)
        match = open_match(client)
        assert private(claim(client, match, 1))
        url = f"/v1/matches/{created.json['id']}"
        creator = bearer(created.json["creator_token"])
        assert private(client.post(url + "/seats/0/token", headers=creator))
        seat = bearer(created.json["seats"][1]["token"])
        assert private(client.post(url + "/stream-tickets", headers=seat))
        assert private(client.post("/v1/organisers", json={"name": "club"}, headers=ADMIN_AUTH))
        assert private(client.get("/v1/matches/nope", headers=bearer("made-up")))  # a 401
