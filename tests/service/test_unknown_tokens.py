"""A token that names nobody is refused (401 ``invalid_token``) wherever a token is read,
and failed authentication is limited per client address (issue 16, findings 1 and 6)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service.config import RateLimits
from tests.service.conftest import ADMIN_AUTH, bearer, create
from tests.service.test_organisers_api import new_organiser
from tests.service.test_rate_limits import GIN, limited_app, refused_properly

MADE_UP = bearer("Xq3s-made-up-but-well-formed-token-1234")


def refused(answer: Any) -> bool:
    return (answer.status_code, answer.json["code"]) == (401, "invalid_token")


def test_a_made_up_token_cannot_create_a_match(client):
    """Finding 1: creation ignored a token that belongs to nobody (and so exempted it
    from the creation limit)."""
    assert refused(client.post("/v1/matches", json=GIN, headers=MADE_UP))
    assert refused(client.post("/v1/matches", json=GIN, headers={"Authorization": "Bearer "}))
    assert client.post("/v1/matches", json=GIN).status_code == 201


def operations(client) -> list[tuple[str, str]]:
    """Every (method, path) of the spec whose security lets a bearer token in."""
    spec = client.get("/openapi.json").json
    found = []
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            securities = [] if method == "parameters" else operation.get("security", [])
            if any("bearerAuth" in s for s in securities):
                found.append((method.upper(), path))
    return found


def test_every_operation_that_reads_a_token_refuses_a_made_up_one(client):
    match = create(client)
    values = {"match_id": match["id"], "seat": "0", "number": "1"}
    checked = 0
    for method, path in operations(client):
        url = re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "x1"), path)
        answer = client.open(url, method=method, json={}, headers=MADE_UP)
        assert refused(answer), (method, path, answer.status_code, answer.json)
        checked += 1
    assert checked >= 25


def test_real_tokens_still_get_their_own_answers(client):
    match = create(client)
    seat = bearer(match["seats"][0]["token"])
    creator = bearer(match["creator_token"])
    assert client.get("/v1/matches", headers=seat).json["code"] == "organiser_only"
    assert client.get(f"/v1/matches/{match['id']}", headers=seat).status_code == 200
    acting = client.post(f"/v1/matches/{match['id']}/actions", json={"type": "pass"},
                         headers=creator)
    assert (acting.status_code, acting.json["code"]) == (403, "forbidden")
    other = create(client)
    assert client.post(f"/v1/matches/{other['id']}/actions", json={"type": "pass"},
                       headers=seat).status_code == 403


@pytest.fixture
def guarded(request, redis_client, key_prefix):
    limits = RateLimits(create="2/minute", auth_failures="3/minute")
    return limited_app(request, redis_client, key_prefix, limits).test_client()


def test_only_an_organiser_or_the_admin_lifts_the_creation_limit(guarded):
    guesser = {"REMOTE_ADDR": "192.0.2.6"}
    for _ in range(3):
        assert refused(guarded.post("/v1/matches", json=GIN, headers=MADE_UP,
                                    environ_base=guesser))
    match = guarded.post("/v1/matches", json=GIN, headers=ADMIN_AUTH).json
    seat = bearer(match["seats"][0]["token"])
    other = {"REMOTE_ADDR": "192.0.2.7"}
    assert guarded.post("/v1/matches", json=GIN, headers=seat,
                        environ_base=other).status_code == 201
    assert guarded.post("/v1/matches", json=GIN, environ_base=other).status_code == 201
    refused_properly(guarded.post("/v1/matches", json=GIN, headers=seat, environ_base=other))
    club = new_organiser(guarded, "club")
    assert guarded.post("/v1/matches", json=GIN, headers=bearer(club["key"]),
                        environ_base=other).status_code == 201


def test_guessing_tokens_is_limited_per_address(guarded):
    """Finding 6: 400 made-up tokens from one address got 400 x 401 and no 429."""
    match = guarded.post("/v1/matches", json=GIN, headers=ADMIN_AUTH).json
    url = f"/v1/matches/{match['id']}"
    seat = bearer(match["seats"][0]["token"])
    for guess in range(3):
        assert refused(guarded.get(url, headers=bearer(f"guess-{guess}")))
    refused_properly(guarded.get(url, headers=bearer("guess-3")))
    refused_properly(guarded.get(url, headers=seat))  # the address is held, whatever it sends
    refused_properly(guarded.get(url + "/stream?ticket=guess"))
    assert guarded.get(url).status_code == 200  # the public's reads still go
    elsewhere = {"REMOTE_ADDR": "192.0.2.8"}
    assert guarded.get(url, headers=seat, environ_base=elsewhere).status_code == 200


def test_made_up_stream_tickets_count_as_failures(guarded):
    match = guarded.post("/v1/matches", json=GIN, headers=ADMIN_AUTH).json
    url = f"/v1/matches/{match['id']}/stream"
    for guess in range(3):
        answer = guarded.get(f"{url}?ticket=guess-{guess}")
        assert (answer.status_code, answer.json["code"]) == (401, "invalid_ticket")
    refused_properly(guarded.get(f"{url}?ticket=guess-3"))


def test_failed_authentications_count_an_ipv6_client_by_its_64(guarded):
    match = guarded.post("/v1/matches", json=GIN, headers=ADMIN_AUTH).json
    url = f"/v1/matches/{match['id']}"
    for guess in range(3):
        here = {"REMOTE_ADDR": f"2001:db8:7:7::{guess + 1}"}
        assert refused(guarded.get(url, headers=bearer(f"guess-{guess}"), environ_base=here))
    refused_properly(guarded.get(url, headers=bearer("guess-3"),
                                 environ_base={"REMOTE_ADDR": "2001:db8:7:7:abcd::1"}))
    assert refused(guarded.get(url, headers=bearer("guess-4"),
                               environ_base={"REMOTE_ADDR": "2001:db8:7:8::1"}))


def test_only_tokens_that_name_nobody_count_as_failed_authentications(guarded):
    """A real token sent where it may not go is a 403, not a guess: it never locks its
    address out. Views, tickets and controls answer alike."""
    match = guarded.post("/v1/matches", json=GIN, headers=ADMIN_AUTH).json
    other = guarded.post("/v1/matches", json=GIN, headers=ADMIN_AUTH).json
    url = f"/v1/matches/{match['id']}"
    foreign, creator = bearer(other["seats"][0]["token"]), bearer(match["creator_token"])
    for _ in range(2):
        for method, path, headers in (("POST", "/resign", creator), ("POST", "/resign", foreign),
                                      ("GET", "", foreign), ("GET", "/events", creator),
                                      ("POST", "/stream-tickets", foreign)):
            answer = guarded.open(url + path, method=method, json={}, headers=headers)
            assert (answer.status_code, answer.json["code"]) == (403, "forbidden"), path
    for guess in range(3):
        assert refused(guarded.get(url, headers=bearer(f"guess-{guess}")))
    refused_properly(guarded.get(url, headers=foreign))


class TestLockoutSparesValidKeys:
    """The lockout is for guessers: the admin token and a live organiser key from a
    locked-out address still get in (they were refused with everything else)."""

    GUESSER = {"REMOTE_ADDR": "192.0.2.50"}

    def locked_out(self, guarded) -> tuple[str, dict[str, str]]:
        club = bearer(new_organiser(guarded, "club")["key"])
        match = guarded.post("/v1/matches", json=GIN, headers=club).json
        url = f"/v1/matches/{match['id']}"
        for guess in range(3):
            assert refused(guarded.get(url, headers=bearer(f"g{guess}"),
                                       environ_base=self.GUESSER))
        refused_properly(guarded.get(url, headers=bearer(match["seats"][0]["token"]),
                                     environ_base=self.GUESSER))
        return url, club

    def test_the_admin_token_and_a_live_organiser_key_are_never_locked_out(self, guarded):
        url, club = self.locked_out(guarded)
        for _ in range(5):
            for credential in (ADMIN_AUTH, club):
                answer = guarded.get(url, headers=credential, environ_base=self.GUESSER)
                assert answer.status_code == 200
        refused_properly(guarded.get(url, headers=bearer("g9"), environ_base=self.GUESSER))

    def test_a_locked_out_address_checks_few_keys(self, guarded):
        """Looking a key up is not free for a guesser: each made-up key a locked-out address
        sends is refused (429) and uses one of its key checks; once they are used up, no key
        from it is looked up until the window moves, a valid one included."""
        url, club = self.locked_out(guarded)
        for guess in range(3):
            made_up = bearer(f"rk_{'x' * 42}{guess}")
            refused_properly(guarded.get(url, headers=made_up, environ_base=self.GUESSER))
        refused_properly(guarded.get(url, headers=club, environ_base=self.GUESSER))
        assert guarded.get(url, headers=ADMIN_AUTH, environ_base=self.GUESSER).status_code == 200
        assert guarded.get(url, headers=club).status_code == 200  # from elsewhere
