"""Abuse limits: 429 with Retry-After once a client passes a limit, RateLimit-* headers on
every limited route, and room enough for real play with the defaults."""

from __future__ import annotations

import time

import pytest
from limits import parse
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter

from domain.bots.policies import eager
from service.api.app import create_app
from service.api.limits import WindowFromHit, address_key
from service.config import RateLimits, Settings
from tests.conftest import REAL_REDIS_URL
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer, create
from tests.service.test_matches_api import DECK, act

TIGHT = RateLimits(create="2/minute", actions="3/minute", tickets="2/minute",
                   streams="2/minute")
GIN = {"variant": "gin", "players": [{"name": "A"}, {"name": "B"}]}


def limited_app(request, redis_client, key_prefix, limits: RateLimits):
    """The app with limits; counters in the real Redis on that backend, else in memory."""
    real = request.node.callspec.params["redis_backend"] == "real_redis"
    settings = Settings(redis_url=REAL_REDIS_URL if real else None, admin_token=ADMIN,
                        key_prefix=key_prefix, rate_limits=limits)
    return create_app(settings, client=redis_client, jobs_inline=True)


@pytest.fixture
def tight(request, redis_client, key_prefix):
    return limited_app(request, redis_client, key_prefix, TIGHT).test_client()


def refused_properly(answer) -> None:
    assert answer.status_code == 429, answer.get_data(as_text=True)
    assert answer.json["code"] == "rate_limited"
    assert int(answer.headers["Retry-After"]) > 0
    assert answer.headers["RateLimit-Remaining"] == "0"


def test_anonymous_creation_is_limited_per_address(tight):
    first = tight.post("/v1/matches", json=GIN)
    assert first.status_code == 201 and first.headers["RateLimit-Limit"] == "2"
    assert tight.post("/v1/matches", json=GIN).status_code == 201
    refused_properly(tight.post("/v1/matches", json=GIN))
    assert tight.post("/v1/matches", json=GIN, headers=ADMIN_AUTH).status_code == 201


def test_actions_are_limited_per_token(tight):
    match = create(tight, DECK)
    assert act(tight, match, 1, {"type": "pass"}).status_code == 200
    assert act(tight, match, 0, {"type": "pass"}).status_code == 200
    assert act(tight, match, 1, {"type": "draw", "source": "stock"}).status_code == 200
    assert act(tight, match, 1, {"type": "knock", "discard": "5S"}).status_code == 200
    refused_properly(act(tight, match, 1, {"type": "discard", "card": "AH"}))  # Bob's 4th
    assert act(tight, match, 0, {"type": "pass"}).status_code == 200  # Ann has her own budget
    assert tight.get(f"/v1/matches/{match['id']}").status_code == 200  # reads are not


def test_an_actions_budget_headers_count_down_with_each_action(tight):
    match = create(tight, DECK)
    answers = [act(tight, match, 1, {"type": "pass"}), act(tight, match, 0, {"type": "pass"}),
               act(tight, match, 1, {"type": "draw", "source": "stock"}),
               act(tight, match, 1, {"type": "knock", "discard": "5S"})]
    assert [a.status_code for a in answers] == [200] * 4
    assert [a.headers["RateLimit-Remaining"] for a in answers] == ["2", "2", "1", "0"]
    first_reset = int(answers[0].headers["RateLimit-Reset"])
    assert time.time() < first_reset <= time.time() + 61
    assert int(answers[3].headers["RateLimit-Reset"]) == first_reset  # Bob's first hit
    assert "Retry-After" not in answers[3].headers


@pytest.mark.parametrize("redis_backend", ["real_redis"], indirect=True)  # limits in Redis
def test_a_limited_action_asks_the_limits_storage_twice(request, redis_client, key_prefix,
                                                        monkeypatch):
    """The lockout's test (one ``LINDEX``) and the action's hit, whose answer carries the
    window the ``RateLimit-*`` headers are read from (no third script after the view)."""
    app = limited_app(request, redis_client, key_prefix, TIGHT)
    storage = next(iter(app.extensions["limiter"])).storage.get_connection()
    client = app.test_client()
    match = create(client, DECK)
    sent = []
    plain = storage.execute_command
    monkeypatch.setattr(storage, "execute_command",
                        lambda *args, **options: sent.append(args[0]) or plain(*args, **options))
    answer = act(client, match, 1, {"type": "pass"})
    assert answer.status_code == 200 and answer.headers["RateLimit-Remaining"] == "2"
    assert sent == ["LINDEX", "EVALSHA"]


@pytest.mark.parametrize("redis_backend", ["real_redis"], indirect=True)  # limits in Redis
def test_the_window_test_answers_as_limits_own(key_prefix):
    """``WindowFromHit.test`` (one ``LINDEX``) against limits' moving-window test (its
    script), on the same lists: empty, filling up, full, with old entries, for every cost."""
    storage = RedisStorage(REAL_REDIS_URL)
    ours, theirs = WindowFromHit(storage), MovingWindowRateLimiter(storage)
    item = parse("4/minute")
    key = (f"{key_prefix}:test-window", "someone")
    connection = storage.get_connection()
    listed = storage.prefixed_key(item.key_for(*key))
    try:
        for ages in ([], [1], [1, 2, 3], [1, 2, 3, 4], [1, 2, 70, 80], [1, 59.5, 61, 62],
                     [70, 80, 90, 100], [1, 2, 3, 4, 5]):
            connection.delete(listed)
            if ages:
                connection.rpush(listed, *[time.time() - age for age in ages])
            for cost in range(6):
                assert ours.test(item, *key, cost=cost) == theirs.test(item, *key, cost=cost), (
                    ages, cost)
    finally:
        connection.delete(listed)


def test_tickets_and_stream_opens_are_limited(tight):
    match = create(tight, DECK)
    token = bearer(match["seats"][0]["token"])
    url = f"/v1/matches/{match['id']}"
    for _ in range(2):
        assert tight.post(url + "/stream-tickets", headers=token).status_code == 201
    refused_properly(tight.post(url + "/stream-tickets", headers=token))
    for _ in range(2):
        tight.get(url + "/stream?after=100").close()
    refused_properly(tight.get(url + "/stream?after=100"))


def test_verifications_are_limited_per_address_and_per_match(request, redis_client,
                                                             key_prefix):
    """Anybody may ask for a verification, but not without end: a budget per address and
    one per match, however many addresses ask."""
    limits = RateLimits(verifications="3/minute")
    client = limited_app(request, redis_client, key_prefix, limits).test_client()
    first, second = create(client), create(client)

    def verify(match: dict, address: str):
        return client.post(f"/v1/matches/{match['id']}/verifications",
                           environ_base={"REMOTE_ADDR": address})

    answers = [verify(first, "192.0.2.1").status_code for _ in range(3)]
    assert answers == [202, 202, 202]
    refused_properly(verify(second, "192.0.2.1"))  # this address's budget is spent
    refused_properly(verify(first, "192.0.2.2"))  # and so is this match's
    assert verify(second, "192.0.2.2").status_code == 202


def test_analyses_are_limited_per_address_and_per_match(request, redis_client, key_prefix):
    """Each analysis is up to a minute of a worker's CPU: a budget per address and one per
    match, counted for every request (a refused one too: it still made the server look)."""
    limits = RateLimits(analyses="2/minute")
    client = limited_app(request, redis_client, key_prefix, limits).test_client()
    first, second = create(client), create(client)

    def analyse(match: dict, address: str):
        return client.post(f"/v1/matches/{match['id']}/analyses",
                           environ_base={"REMOTE_ADDR": address})

    answers = [analyse(first, "192.0.2.1") for _ in range(2)]
    assert [a.json["code"] for a in answers] == ["match_not_finished", "match_not_finished"]
    assert answers[0].headers["RateLimit-Limit"] == "2"
    refused_properly(analyse(second, "192.0.2.1"))  # this address's budget is spent
    refused_properly(analyse(first, "192.0.2.2"))  # and so is this match's
    assert analyse(second, "192.0.2.2").status_code == 409


def test_the_defaults_leave_room_for_a_whole_game_played_at_machine_speed(
        request, redis_client, key_prefix):
    """A whole match, each seat knocking when it can and else discarding its best card,
    sent as fast as the test client goes: no 429 (a person plays far slower)."""
    client = limited_app(request, redis_client, key_prefix, RateLimits()).test_client()
    body = {**GIN, "options": {"target": 10}, "seed": "a quick game"}
    match = client.post("/v1/matches", json=body, headers=ADMIN_AUTH).json
    tokens = [seat["token"] for seat in match["seats"]]
    url = f"/v1/matches/{match['id']}"
    sent = [0, 0]
    while (view := client.get(url).json)["phase"] != "complete":
        seat = view["turn"]
        mine = client.get(url, headers=bearer(tokens[seat])).json
        answer = act(client, match, seat, sensible(mine))
        assert answer.status_code == 200, answer.json
        sent[seat] += 1
    assert max(sent) < 300


def sensible(view: dict) -> dict:
    return eager(view["legal_actions"], (view.get("best_discard") or {}).get("cards") or ())


def test_the_limits_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("RUMMY_LIMIT_ACTIONS", "10/second")
    monkeypatch.setenv("RUMMY_LIMIT_VERIFICATIONS", "2/minute")
    assert Settings.from_env().rate_limits == RateLimits(actions="10/second",
                                                         verifications="2/minute")
    monkeypatch.setenv("RUMMY_RATE_LIMITS", "off")
    assert Settings.from_env().rate_limits is None
    assert Settings().rate_limits is None  # built in code (tests, tools): off


class TestAddresses:
    """Per-address limits count an IPv6 client by its /64: one subscriber holds a whole
    /64, so counting each address gave it 2^64 budgets."""

    @staticmethod
    def create_from(client, address: str):
        return client.post("/v1/matches", json=GIN, environ_base={"REMOTE_ADDR": address})

    def test_an_ipv6_client_is_counted_by_its_64(self, tight):
        assert self.create_from(tight, "2001:db8:1:2::1").status_code == 201
        assert self.create_from(tight, "2001:db8:1:2::2").status_code == 201
        refused_properly(self.create_from(tight, "2001:db8:1:2:ffff:ffff:ffff:9"))
        assert self.create_from(tight, "2001:db8:1:3::1").status_code == 201

    def test_an_ipv4_client_by_its_address_and_a_mapped_one_as_ipv4(self, tight):
        assert self.create_from(tight, "192.0.2.1").status_code == 201
        assert self.create_from(tight, "::ffff:192.0.2.1").status_code == 201
        refused_properly(self.create_from(tight, "192.0.2.1"))
        assert self.create_from(tight, "192.0.2.2").status_code == 201

    @pytest.mark.parametrize(("address", "key"), [
        ("192.0.2.7", "192.0.2.7"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("not an address", "not an address"),
    ])
    def test_the_key_of_an_address(self, address, key):
        assert address_key(address) == key
