"""Round trips to the matches' Redis per request: each command sent alone, and each
pipeline, counts one. A view or an action that reads something twice, or one thing per
command where one pipeline would do, shows here as a larger number."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from redis.client import Pipeline
from redis.cluster import ClusterPipeline, RedisCluster

from tests.service.conftest import bearer, create
from tests.service.test_matches_api import DECK


@pytest.fixture
def trips(redis_client, monkeypatch) -> Callable[[Callable[[], Any]], tuple[Any, int]]:
    """``trips(request)``: what ``request()`` answered and the round trips it made."""
    made = [0]

    def counted(method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **options: Any) -> Any:
            made[0] += 1
            return method(*args, **options)
        return call

    monkeypatch.setattr(redis_client, "execute_command", counted(redis_client.execute_command))
    for pipeline in (Pipeline, ClusterPipeline):
        monkeypatch.setattr(pipeline, "execute", counted(pipeline.execute))
    # a pipeline's own commands sent at once (the SCRIPT EXISTS before a pipelined script)
    monkeypatch.setattr(Pipeline, "immediate_execute_command",
                        counted(Pipeline.immediate_execute_command))

    def measure(request: Callable[[], Any]) -> tuple[Any, int]:
        made[0] = 0
        answer = request()
        return answer, made[0]
    return measure


@pytest.fixture
def match(client) -> dict[str, Any]:
    """A gin match whose first action was played and whose views were read (its fold,
    meta and scripts are where a match in play finds them), seat 0 to take or pass the
    upcard."""
    created = create(client, DECK)
    assert client.post(f"/v1/matches/{created['id']}/actions", json={"type": "pass"},
                       headers=bearer(created["seats"][1]["token"])).status_code == 200
    for seat in created["seats"]:
        assert client.get(f"/v1/matches/{created['id']}",
                          headers=bearer(seat["token"])).status_code == 200
    return created


def test_a_public_view_reads_the_new_events_and_the_presence_together(client, match, trips,
                                                                      redis_client):
    """One pipeline; on a Redis Cluster, which takes no scripts in a pipeline, two."""
    answer, made = trips(lambda: client.get(f"/v1/matches/{match['id']}"))
    assert answer.status_code == 200
    assert [seat["presence"] for seat in answer.json["seats"]] == [
        {"online": False, "last_action_at": None},
        {"online": False, "last_action_at": pytest.approx(time.time(), abs=60)}]
    assert made == (2 if isinstance(redis_client, RedisCluster) else 1)


def test_a_seat_view_reads_the_meta_with_its_events_in_one_round_trip(client, match, trips,
                                                                       redis_client):
    """The token check reads the meta (the seat hashes) together with the new events and
    the presence the view reads next, and hands it on to the view's own check of the same
    token. On a Redis Cluster the meta is read apart, and the events and presence take two
    more."""
    token = bearer(match["seats"][0]["token"])
    answer, made = trips(lambda: client.get(f"/v1/matches/{match['id']}", headers=token))
    assert answer.status_code == 200 and answer.json["legal_actions"]
    assert made == (3 if isinstance(redis_client, RedisCluster) else 1)


def test_a_seat_view_read_ahead_shows_what_another_process_appended(client, match, wiring):
    """The events read ahead follow the version this process holds, so a move made by
    another process (its own wiring on the same Redis) is in the very next seat view."""
    url = f"/v1/matches/{match['id']}"
    held = client.get(url, headers=bearer(match["seats"][0]["token"])).json["version"]
    wiring.play.act(match["id"], match["seats"][0]["token"], {"type": "pass"})
    seen = client.get(url, headers=bearer(match["seats"][1]["token"])).json
    assert seen["version"] == held + 1 and seen["turn"] == 1 and seen["legal_actions"]


def test_a_token_rotated_by_another_process_is_refused_by_the_next_seat_view(client, match,
                                                                            wiring):
    """The meta read ahead is read with each request, as the token check's own read was:
    a rotation elsewhere stops the old token at once here."""
    url = f"/v1/matches/{match['id']}"
    old = match["seats"][1]["token"]
    assert client.get(url, headers=bearer(old)).status_code == 200
    fresh = wiring.seats.rotate(match["id"], 1, match["creator_token"])["token"]
    assert client.get(url, headers=bearer(old)).status_code == 401
    assert client.get(url, headers=bearer(fresh)).json["legal_actions"] == []
    assert client.get(url, headers=bearer(match["seats"][0]["token"])).json["legal_actions"]


def test_an_action_reads_the_meta_once_and_no_event(client, match, trips):
    """The meta, the append script (decided on the match as this process holds it: the
    seat view brought it up to date), the seat's action time."""
    token = bearer(match["seats"][0]["token"])
    answer, made = trips(lambda: client.post(f"/v1/matches/{match['id']}/actions",
                                             json={"type": "pass"}, headers=token))
    assert answer.status_code == 200 and answer.json["turn"] == 1
    assert made == 3


def test_a_rotated_token_is_refused_at_once(client, match):
    """The meta is read on every request: the next request with the old token is a 401."""
    creator = bearer(match["creator_token"])
    old = bearer(match["seats"][1]["token"])
    rotated = client.post(f"/v1/matches/{match['id']}/seats/1/token", headers=creator)
    assert rotated.status_code == 200, rotated.json
    assert client.get(f"/v1/matches/{match['id']}", headers=old).status_code == 401
    fresh = bearer(rotated.json["token"])
    assert client.get(f"/v1/matches/{match['id']}", headers=fresh).status_code == 200
