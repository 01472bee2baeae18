"""A tournament verified on the server: anybody asks with ``POST
/v1/tournaments/{id}/verifications`` and polls the ``Location`` for the report, the checks
``rummy verify`` makes of the export. Then the tournament's stream, and a table's, are
tampered with in Redis as a dishonest operator would (with and without re-hashing the
chain), and the report says where.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient
from rq import Queue

from domain.audit import parse_ndjson
from service.adapters.jobs import REPLAYS
from service.cli import main as rummy
from service.config import RateLimits, Settings
from service.usecases.audit import REPORT_TTL_S
from tests.service.conftest import ADMIN, create
from tests.service.test_audit_api import failed, replay_jobs, rewrite, stream_key
from tests.service.test_hosted_tournaments_api import bots, new
from tests.service.test_rate_limits import limited_app, refused_properly


def export(client: FlaskClient, tournament_id: str) -> list[dict[str, Any]]:
    response = client.get(f"/v1/tournaments/{tournament_id}/export")
    assert response.status_code == 200
    return parse_ndjson(response.get_data(as_text=True).splitlines())


def verified(client: FlaskClient, tournament_id: str) -> dict[str, Any]:
    """Ask for a verification and read it at its ``Location`` (run in-process here)."""
    asked = client.post(f"/v1/tournaments/{tournament_id}/verifications")
    assert asked.status_code == 202, asked.json
    answer = client.get(asked.headers["Location"])
    assert answer.status_code == 200 and answer.json["status"] == "finished"
    return dict(answer.json["report"])


def own_version(records: list[dict[str, Any]], type_: str, nth: int = 0) -> int:
    """The version of the tournament's ``nth`` event of ``type_`` (its tables' left out)."""
    return [r["version"] for r in records
            if r["type"] == type_ and "match_id" not in r][nth]


@pytest.fixture
def played(client: FlaskClient) -> dict[str, Any]:
    """A three-bot round robin, played to its end (three tables, a bye a round)."""
    return new(client, format="round_robin", players=bots(3))


class TestVerifying:
    def test_a_finished_tournament_verifies_as_rummy_verify_finds_it(self, client, played,
                                                                     tmp_path):
        url = f"/v1/tournaments/{played['id']}/verifications"
        asked = client.post(url)  # no token: a tournament is public
        assert asked.status_code == 202
        assert asked.headers["Location"] == f"{url}/{asked.json['id']}"
        assert asked.json["tournament_id"] == played["id"]
        record = client.get(asked.headers["Location"]).json
        tournament = client.get(f"/v1/tournaments/{played['id']}").json
        assert record["status"] == "finished" and record["version"] == tournament["version"]
        report = record["report"]
        assert report["ok"] and report["first_failing_version"] is None
        assert report["variant"] == "gin" and report["final_phase"] == "complete"
        assert {c["name"]: c["checked"] for c in report["checks"]} == {
            "hash_chain": report["events"], "pairings": report["events"], "results": 3}
        path = tmp_path / "tournament.ndjson"
        path.write_bytes(client.get(f"/v1/tournaments/{played['id']}/export").data)
        offline = CliRunner().invoke(rummy, ["verify", "--json", str(path)])
        assert offline.exit_code == 0 and json.loads(offline.output) == report

    def test_a_pairing_rewritten_in_redis_fails_pairings_even_with_a_consistent_chain(
            self, client, played, redis_client, key_prefix, tmp_path):
        paired = own_version(export(client, played["id"]), "RoundPaired", nth=1)

        def swap_seats(data: dict[str, Any]) -> None:
            data["tables"][0]["seats"].reverse()

        rewrite(redis_client, stream_key(key_prefix, played["id"]), paired, swap_seats,
                rehash=True)
        report = verified(client, played["id"])
        assert failed(report) == {"pairings": paired} and not report["ok"]
        results = next(c for c in report["checks"] if c["name"] == "results")
        assert results["notes"] == [
            f"not checked from version {paired}: the pairings' replay stopped there"]
        path = tmp_path / "forged.ndjson"
        path.write_bytes(client.get(f"/v1/tournaments/{played['id']}/export").data)
        offline = CliRunner().invoke(rummy, ["verify", str(path)])
        assert offline.exit_code == 1 and "NOT VERIFIED" in offline.output

    def test_an_event_edited_in_redis_breaks_the_chain_at_its_version(
            self, client, played, redis_client, key_prefix):
        recorded = own_version(export(client, played["id"]), "MatchRecorded", nth=2)

        def swap_points(data: dict[str, Any]) -> None:
            data["points"].reverse()

        rewrite(redis_client, stream_key(key_prefix, played["id"]), recorded, swap_points)
        report = verified(client, played["id"])
        assert failed(report)["hash_chain"] == recorded
        assert report["first_failing_version"] == recorded and not report["ok"]
        rewrite(redis_client, stream_key(key_prefix, played["id"]), recorded, swap_points)
        assert verified(client, played["id"])["ok"]  # put back, it verifies again

    def test_a_table_whose_match_log_was_rewritten_fails_results(
            self, client, played, redis_client, key_prefix):
        records = export(client, played["id"])
        table = next(r for r in records if r["type"] == "MatchRecorded"
                     and "match_id" not in r)
        match_id = table["data"]["match_id"]
        scored = next(r["version"] for r in records
                      if r.get("match_id") == match_id and r["type"] == "HandScored")

        def more_points(data: dict[str, Any]) -> None:
            data["points"] = [points + 10 if points else points for points in data["points"]]

        rewrite(redis_client, stream_key(key_prefix, match_id), scored, more_points,
                rehash=True)
        report = verified(client, played["id"])
        assert failed(report) == {"results": table["version"]}  # the tournament's own version
        results = next(c for c in report["checks"] if c["name"] == "results")
        assert match_id in results["first_failure"]["reason"]

    def test_unknown_tournaments_and_verifications_are_404s(self, client, played):
        for unknown in ("t-none", create(client)["id"]):  # a match is no tournament
            asked = client.post(f"/v1/tournaments/{unknown}/verifications")
            assert (asked.status_code, asked.json["code"]) == (404, "tournament_not_found")
            read = client.get(f"/v1/tournaments/{unknown}/verifications/any")
            assert (read.status_code, read.json["code"]) == (404, "tournament_not_found")
        read = client.get(f"/v1/tournaments/{played['id']}/verifications/nope")
        assert (read.status_code, read.json["code"]) == (404, "verification_not_found")


# --- requests: one job per log version in flight; records expire; limits -----------------


@pytest.fixture
def queued(redis_client: redis.Redis, key_prefix: str,
           serving: Callable[..., Flask]) -> Iterator[Flask]:
    """The app as real mode runs it: a verification is a ``replays`` job left to workers."""
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix)
    yield serving(settings, redis_client, jobs_inline=False)
    replays = Queue(REPLAYS, connection=redis_client)
    for job_id in replay_jobs(redis_client, key_prefix):
        replays.remove(job_id)


def two_people(client: FlaskClient) -> dict[str, Any]:
    """A round robin of two people: created, its first round paired, nothing played."""
    return new(client, format="round_robin", players=[{"name": "Ann"}, {"name": "Bob"}])


class TestRequests:
    def test_asking_again_while_one_is_in_flight_answers_that_one(
            self, queued: Flask, redis_client: redis.Redis, key_prefix: str) -> None:
        client = queued.test_client()
        tournament = two_people(client)
        url = f"/v1/tournaments/{tournament['id']}/verifications"
        answers = [client.post(url) for _ in range(3)]
        assert {answer.status_code for answer in answers} == {202}
        first = answers[0].json
        assert {answer.json["id"] for answer in answers} == {first["id"]}
        assert {answer.headers["Location"] for answer in answers} == {f"{url}/{first['id']}"}
        assert (first["status"], first["version"]) == ("queued", tournament["version"])
        assert replay_jobs(redis_client, key_prefix) == [
            f"{key_prefix}-replays-{tournament['id']}-{first['id']}"]

        queued.extensions["rummy"].tournament_audits.run(tournament["id"], first["id"])
        done = client.get(f"{url}/{first['id']}").json
        assert done["status"] == "finished" and done["report"]["ok"]
        fresh = client.post(url).json  # done: asking again verifies afresh
        assert fresh["id"] != first["id"] and fresh["status"] == "queued"
        assert len(replay_jobs(redis_client, key_prefix)) == 2

    def test_every_record_of_a_verification_expires(
            self, queued: Flask, redis_client: redis.Redis, key_prefix: str) -> None:
        client = queued.test_client()
        tournament = two_people(client)
        url = f"/v1/tournaments/{tournament['id']}/verifications"
        asked = client.post(url).json
        queued.extensions["rummy"].tournament_audits.run(tournament["id"], asked["id"])
        client.post(url)  # one left queued
        keys = list(redis_client.scan_iter(
            match=f"{key_prefix}:{{{tournament['id']}}}:verif*"))  # the tournament's slot
        assert len(keys) == 3  # two records and the queued one's version in flight
        for key in [*keys, f"{key_prefix}:{{{tournament['id']}}}:reports"]:
            assert 0 < redis_client.ttl(key) <= REPORT_TTL_S, key


def test_requests_are_limited_per_address_and_per_tournament(request, redis_client,
                                                             key_prefix):
    client = limited_app(request, redis_client, key_prefix,
                         RateLimits(verifications="2/minute")).test_client()
    first, second = two_people(client), two_people(client)

    def verify(tournament: dict[str, Any], address: str):
        return client.post(f"/v1/tournaments/{tournament['id']}/verifications",
                           environ_base={"REMOTE_ADDR": address})

    assert [verify(first, "192.0.2.1").status_code for _ in range(2)] == [202, 202]
    refused_properly(verify(second, "192.0.2.1"))  # this address's budget is spent
    refused_properly(verify(first, "192.0.2.2"))  # and so is this tournament's
    assert verify(second, "192.0.2.2").status_code == 202
