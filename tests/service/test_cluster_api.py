"""The API on a real 3-master Redis Cluster (``tests.cluster``): matches played and read,
organiser keys (two hashes written in one transaction: one slot), the lobby, the catalog's
scan of every master, presence, ratings, and ``/healthz`` telling the truth when a master
goes down.

Each test works under its own key prefix on the session's cluster and deletes its keys
afterwards; the test that kills a master starts a small cluster of its own."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from redis.cluster import RedisCluster

from service.adapters.catalog import MatchIndex
from service.adapters.presence import Presence
from service.adapters.ratings import RedisRatings
from service.adapters.work import WorkIndex
from service.bootstrap import connect, require_redis_7
from service.config import Settings
from service.ports import RatingRecord
from service.usecases.tournament_progress import shown
from tests.cluster import ClusterProcesses, disconnect, missing, running_cluster
from tests.conftest import cannot_run, on_cluster
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer, create
from tests.service.test_matches_api import act, to_knock
from tests.service.test_organisers_api import new_organiser, seeded_match
from tests.service.test_seats_api import claim, open_match


def cluster_settings(url: str, prefix: str) -> Settings:
    return Settings(redis_url=url, redis_cluster=True, rq_redis_url="redis://jobs.invalid",
                    admin_token=ADMIN, key_prefix=prefix, sse_keepalive_ms=200)


@pytest.fixture
def on_the_cluster(redis_cluster: ClusterProcesses) -> Iterator[tuple[redis.Redis, str]]:
    with on_cluster(redis_cluster) as given:
        yield given


@pytest.fixture
def client(on_the_cluster: tuple[redis.Redis, str], redis_cluster: ClusterProcesses,
           serving: Callable[..., Flask]) -> FlaskClient:
    """The app on the cluster, jobs in-process (set up after the cluster's keys, so its
    wiring is closed before they are deleted)."""
    events, prefix = on_the_cluster
    return serving(cluster_settings(redis_cluster.url, prefix), events,
                   jobs_inline=True).test_client()


def closed_socket_polled() -> None:
    """What redis-py does when a command takes a socket another thread has just closed."""
    from redis._parsers.hiredis import _socket_is_closed

    _socket_is_closed(None)


def test_a_failure_inside_redis_py_is_a_connection_error_not_a_500(redis_cluster, monkeypatch):
    events = connect(cluster_settings(redis_cluster.url, "unused"))
    try:
        monkeypatch.setattr(RedisCluster, "execute_command",
                            lambda self, *args, **kwargs: closed_socket_polled())
        with pytest.raises(redis.ConnectionError) as failed:
            events.get("any key")
        assert isinstance(failed.value.__cause__, TypeError)
        monkeypatch.setattr(RedisCluster, "execute_command",
                            lambda self, *args, **kwargs: len(None))  # type: ignore[arg-type]
        with pytest.raises(TypeError):  # a fault of ours is not the store's
            events.get("any key")
    finally:
        monkeypatch.undo()
        disconnect(events)


def test_the_server_connects_with_the_cluster_client(redis_cluster):
    settings = cluster_settings(redis_cluster.url, "unused")
    events = connect(settings)
    try:
        assert isinstance(events, RedisCluster)
        assert events.ping() and events.get("no such key") is None  # bytes, as the plain
        require_redis_7(events)
        # blocking reads (the reconciler's BLPOP, the hub) are not cut by a read timeout
        pool = events.get_default_node().redis_connection.connection_pool  # type: ignore[attr-defined]
        assert pool.connection_kwargs.get("socket_timeout") is None
        assert WorkIndex(events, "unused", ("step",)).wait(0.05) is False
    finally:
        disconnect(events)


def test_a_match_is_created_played_and_its_events_read(client):
    match = to_knock(client)
    knock = act(client, match, 1, {"type": "knock", "discard": "5S"})
    assert knock.status_code == 200, knock.json
    events = client.get(f"/v1/matches/{match['id']}/events").json["events"]
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    assert len(events) >= 5
    again = client.get(f"/v1/matches/{match['id']}", headers=bearer(match["seats"][0]["token"]))
    assert again.status_code == 200 and again.json["version"] == events[-1]["version"]
    plain = create(client)
    assert client.get(f"/v1/matches/{plain['id']}").status_code == 200


def test_an_organiser_key_is_made_used_and_revoked(client, on_the_cluster):
    """The two hashes (and the revocation's announcement) share a hash tag: a transaction
    over them stays in one slot instead of failing with CROSSSLOT."""
    events, prefix = on_the_cluster
    club = new_organiser(client, "club")
    match = seeded_match(client, club["key"])
    url = f"/v1/matches/{match['id']}"
    assert "all_hands" in client.get(url, headers=bearer(club["key"])).json
    listed = client.get("/v1/organisers", headers=ADMIN_AUTH).json["organisers"]
    assert [o["id"] for o in listed] == [club["id"]]
    assert events.keyslot(f"{prefix}:{{organisers}}") == \
        events.keyslot(f"{prefix}:{{organisers}}:keys")
    revoked = client.delete(f"/v1/organisers/{club['id']}", headers=ADMIN_AUTH)
    assert revoked.status_code == 200 and revoked.json["revoked_at"] is not None
    assert client.get(url, headers=bearer(club["key"])).status_code == 401


def test_the_lobby_lists_and_seats_fill(client):
    gin = open_match(client)
    gem = open_match(client, variant="gem")
    assert [m["id"] for m in client.get("/v1/lobby").json["matches"]] == [gem["id"], gin["id"]]
    assert claim(client, gin, 1).status_code == 201
    assert [m["id"] for m in client.get("/v1/lobby").json["matches"]] == [gem["id"]]


def test_healthz_is_ok_when_every_master_answers(client):
    answer = client.get("/healthz")
    assert answer.status_code == 200
    assert answer.json == {"status": "ok", "redis": "ok", "mode": "redis-cluster"}


def test_the_catalog_rebuild_scans_every_master(client, on_the_cluster):
    events, prefix = on_the_cluster
    ids = [create(client)["id"] for _ in range(12)]
    masters = {events.get_node_from_key(f"{prefix}:{{{match_id}}}:meta").name
               for match_id in ids}
    assert len(masters) > 1, "the matches should spread over the masters"
    assert MatchIndex(events, prefix).rebuild() == len(ids)


def test_presence_is_refreshed_for_matches_in_many_slots(on_the_cluster):
    events, prefix = on_the_cluster
    presence = Presence(events, lambda match_id, suffix: f"{prefix}:{{{match_id}}}:{suffix}")
    held = {f"m{n}": [f"0:c{n}"] for n in range(8)}
    for match_id, members in held.items():
        presence.open(match_id, members[0])
    presence.refresh(held)
    assert all(presence.of(match_id, 2)[0]["online"] for match_id in held)


def test_ratings_update_in_a_watched_transaction(on_the_cluster):
    """WATCH, MULTI and EXEC over one variant's three keys (one hash tag)."""
    events, prefix = on_the_cluster
    ratings = RedisRatings(events, prefix, shown)

    def rated(before: list[RatingRecord | None]) -> list[RatingRecord]:
        return [RatingRecord(player, name, 25.0 + n, 8.0, 1)
                for n, (player, name) in enumerate([("p1", "Ann"), ("p2", "Bob")])]

    assert ratings.apply("gin", "r1", [("p1", "Ann"), ("p2", "Bob")], rated)
    assert not ratings.apply("gin", "r1", [("p1", "Ann"), ("p2", "Bob")], rated)
    total, top = ratings.top("gin", 0, 10)
    assert total == 2 and [r.player for r in top] == ["p2", "p1"]


def test_healthz_says_why_when_a_master_is_down(tmp_path: Path, serving):
    """A small cluster of this test's own: one master killed, ``/healthz`` answers 503 with
    the reason instead of "ok"."""
    why = missing()
    if why is not None:
        cannot_run("REDIS-CLUSTER", why)
    with running_cluster(tmp_path / "doomed") as cluster:
        events = connect(cluster_settings(cluster.url, "doomed"))
        try:
            api = serving(cluster_settings(cluster.url, "doomed"), events,
                          jobs_inline=True).test_client()
            assert api.get("/healthz").status_code == 200
            cluster.kill(cluster.ports[-1])
            deadline = time.monotonic() + 10
            answer = api.get("/healthz")
            while answer.status_code == 200 and time.monotonic() < deadline:
                time.sleep(0.2)
                answer = api.get("/healthz")
            assert answer.status_code == 503, answer.json
            assert answer.json["status"] == "degraded" and answer.json["mode"] == "redis-cluster"
            assert answer.json["reason"]
        finally:
            disconnect(events)


def test_a_live_stream_delivers_a_move_made_after_it_opened(client):
    """The stream hub on the cluster: the match's channel is heard on the master owning
    its slot (slot moves: tests/faults/test_9_cluster_reshard.py)."""
    match = to_knock(client)
    url = f"/v1/matches/{match['id']}/stream"
    response = client.get(url, headers={**bearer(match["seats"][0]["token"]),
                                        "Last-Event-ID": "6"})
    assert response.status_code == 200
    started = time.monotonic()
    mover = threading.Thread(target=lambda: (time.sleep(0.3), act(
        client, match, 1, {"type": "knock", "discard": "5S"})))
    mover.start()
    received = None
    for chunk in response.response:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        if text.startswith("id:"):
            received = text
            break
    response.close()
    mover.join()
    assert received is not None and received.startswith("id: 7")
    print(f"delivered after {time.monotonic() - started:.2f}s")
