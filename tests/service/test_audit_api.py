"""Auditing over HTTP: provably fair deals, replay to any step, export, verification.

A whole gin match is played through the API on each Redis backend; then the log is
exported, verified by the replay job and by the offline verifier, and tampered with in
Redis the way a dishonest operator would (with and without re-hashing the chain).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
import redis
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient
from rq import Queue

from domain.audit import parse_ndjson, verify
from domain.chain import GENESIS_HASH, event_hash
from domain.fairness import hand_seed, shuffled_deck
from domain.gin import GIN
from domain.gin.options import GinOptions
from domain.variants import VARIANTS
from service.adapters.jobs import REPLAYS
from service.adapters.store import decode_after, entry_fields
from service.cli import main as rummy
from service.config import Settings
from service.usecases.audit import REPORT_TTL_S
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer, create, play_to_the_end
from tests.service.test_matches_api import act


def play_out(client: FlaskClient, target: int = 60, entropy: str | None = "lucky 7",
             seed: int = 3) -> dict[str, Any]:
    """Create a gin match and play it to MatchCompleted: players knock when they may and
    otherwise take the upcard or stock at random and throw a best discard.

    Created over HTTP, played through the app's use cases (``play_to_the_end``)."""
    players = [{"name": "Ann", "entropy": entropy}, {"name": "Bob"}]
    match = client.post("/v1/matches", json={"variant": "gin", "players": players,
                                             "options": {"target": target},
                                             "seed": f"audit-{seed}"}, headers=ADMIN_AUTH).json
    rng = random.Random(seed)

    def choose(view: dict[str, Any]) -> dict[str, Any]:
        actions = view["legal_actions"]
        enders = [a for a in actions if a["type"] in ("knock", "big_gin")]
        best = [a for a in actions if a["type"] == "discard"
                and a["card"] in view.get("best_discard", {}).get("cards", ())]
        return (enders or best or [rng.choice(actions)])[0]

    play_to_the_end(client, match, choose)
    return match


def export(client: FlaskClient, match_id: str, headers: dict[str, str] | None = None
           ) -> list[dict[str, Any]]:
    response = client.get(f"/v1/matches/{match_id}/export", headers=headers or {})
    assert response.status_code == 200 and response.mimetype == "application/x-ndjson"
    return parse_ndjson(response.get_data(as_text=True).splitlines())


def verification(client: FlaskClient, match_id: str) -> dict[str, Any]:
    created = client.post(f"/v1/matches/{match_id}/verifications")
    assert created.status_code == 202
    report = client.get(created.headers["Location"]).json
    assert report["status"] == "finished"  # jobs run in-process in these tests
    return report["report"]


def failed(report: dict[str, Any]) -> dict[str, Any]:
    return {c["name"]: c["first_failure"]["version"] for c in report["checks"]
            if c["first_failure"] is not None}


@pytest.fixture
def finished(client: FlaskClient) -> dict[str, Any]:
    return play_out(client, target=10)


# --- tampering, as someone with write access to Redis would ------------------------------


def stream_key(key_prefix: str, match_id: str) -> str:
    return f"{key_prefix}:{{{match_id}}}:events"


def rewrite(redis_client: redis.Redis, key: str, version: int, change: Any,
            rehash: bool = False) -> None:
    """Rewrite the stream with event ``version``'s data changed; optionally re-hash the
    chain from there on, as a forger covering their tracks would."""
    events = decode_after(0, redis_client.xrange(key))
    redis_client.delete(key)
    previous = GENESIS_HASH
    for event in events:
        if event.version == version:
            change(event.data)
        if rehash and event.version >= version:
            event = replace(event, prev_hash=previous, hash=event_hash(
                event.version, event.type, event.schema, event.data, event.command_id,
                event.ts, previous, event.command))
        previous = event.hash
        redis_client.xadd(key, entry_fields(event), id=f"{event.version}-0")


def version_of(records: list[dict[str, Any]], type_: str, nth: int = 0) -> int:
    return [r["version"] for r in records if r["type"] == type_][nth]


class TestProvablyFairDeals:
    def test_each_deal_commits_to_a_seed_that_the_hand_end_reveals(self, client, finished):
        records = export(client, finished["id"])
        deals = [r for r in records if r["type"] == "HandDealt"]
        reveals = {r["data"]["hand_number"]: r["data"]["seed"]
                   for r in records if r["type"] == "SeedRevealed"}
        assert len(deals) >= 2 and set(reveals) == {d["data"]["hand_number"] for d in deals}
        for deal in deals:
            seed = bytes.fromhex(reveals[deal["data"]["hand_number"]])
            assert hashlib.sha256(seed).hexdigest() == deal["data"]["commitment"]
            assert tuple(deal["data"]["deck"]) == shuffled_deck(GIN.deck(GinOptions()), seed)

    def test_the_match_seed_revealed_at_the_end_yields_every_hand_seed(self, client, finished):
        records = export(client, finished["id"])
        committed = next(r["data"] for r in records if r["type"] == "SeedCommitted")
        assert committed["entropy"] == ["lucky 7", ""]
        match_seed = bytes.fromhex(next(r["data"]["seed"] for r in records
                                        if r["type"] == "MatchSeedRevealed"))
        assert hashlib.sha256(match_seed).hexdigest() == committed["seed_commitment"]
        for reveal in (r["data"] for r in records if r["type"] == "SeedRevealed"):
            seed = hand_seed(match_seed, reveal["hand_number"], committed["entropy"])
            assert seed.hex() == reveal["seed"]

    def test_a_live_hand_shows_its_commitment_but_never_its_seed(self, client):
        match = client.post("/v1/matches", json={"variant": "gin", "players": [
            {"name": "Ann"}, {"name": "Bob"}]}).json
        seat = bearer(match["seats"][0]["token"])
        for headers in ({}, seat):
            view = client.get(f"/v1/matches/{match['id']}", headers=headers).json
            assert len(view["commitment"]) == 64
            dealt = next(e for e in client.get(f"/v1/matches/{match['id']}/events",
                                               headers=headers).json["events"]
                         if e["type"] == "HandDealt")
            assert "seed" not in dealt["data"] and "deck" not in dealt["data"]
            assert dealt["redacted"] is True

    def test_a_prepared_deck_is_marked_in_the_log(self, client):
        deck = list(GIN.deck(GinOptions()))
        match = client.post("/v1/matches", json={
            "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}], "deck": deck},
            headers=ADMIN_AUTH).json
        records = export(client, match["id"], ADMIN_AUTH)
        assert next(r for r in records if r["type"] == "HandDealt")["data"]["prepared"] is True


class TestReplayToAnyStep:
    def test_a_revealed_hand_is_public_at_every_step(self, client, finished):
        records = export(client, finished["id"])
        at = version_of(records, "HandDealt") + 3
        past = client.get(f"/v1/matches/{finished['id']}/state?at={at}").json
        assert past["version"] == at and past["hand_number"] == 1
        assert len(past["all_hands"]) == 2 and past["stock"]

    def test_a_live_hand_stays_redacted_in_the_past(self, client):
        match = client.post("/v1/matches", json={"variant": "gin", "players": [
            {"name": "Ann"}, {"name": "Bob"}]}).json
        url = f"/v1/matches/{match['id']}/state?at=3"
        public = client.get(url).json
        assert "all_hands" not in public and "hand" not in public
        seat = client.get(url, headers=bearer(match["seats"][1]["token"])).json
        assert seat["seat"] == 1 and len(seat["hand"]) == 10
        assert "all_hands" in client.get(url, headers=ADMIN_AUTH).json

    def test_bad_steps_are_clear_errors(self, client, finished):
        url = f"/v1/matches/{finished['id']}/state"
        assert client.get(url).status_code == 400
        assert client.get(url + "?at=0").status_code == 400
        assert client.get(url + "?at=x").status_code == 400
        missing = client.get(url + "?at=100000")
        assert (missing.status_code, missing.json["code"]) == (404, "version_not_found")
        assert client.get("/v1/matches/nope/state?at=1").status_code == 404


class TestVerification:
    def test_a_played_match_verifies_on_the_server_and_offline(self, client, finished,
                                                              tmp_path):
        report = verification(client, finished["id"])
        assert report["ok"] and report["final_phase"] == "complete"
        assert all(c["checked"] > 0 for c in report["checks"])
        path = tmp_path / "match.ndjson"
        path.write_text(client.get(f"/v1/matches/{finished['id']}/export").get_data(
            as_text=True))
        result = CliRunner().invoke(rummy, ["verify", str(path)])
        assert result.exit_code == 0 and "VERIFIED" in result.output

    def test_editing_any_single_event_in_redis_fails_at_that_version(
            self, client, finished, redis_client, key_prefix):
        records = export(client, finished["id"])
        key = stream_key(key_prefix, finished["id"])
        for version in sorted(random.Random(5).sample(range(1, len(records) + 1), 4)):
            rewrite(redis_client, key, version, lambda data: data.update(forged=True))
            report = verification(client, finished["id"])
            assert failed(report)["hash_chain"] == version
            assert report["first_failing_version"] == version and not report["ok"]
            rewrite(redis_client, key, version, lambda data: data.pop("forged"))
        assert verification(client, finished["id"])["ok"]

    def test_a_removed_event_is_reported_with_its_version(self, client, finished,
                                                           redis_client, key_prefix):
        redis_client.xdel(stream_key(key_prefix, finished["id"]), "7-0")
        records = [event.to_dict() for event in
                   client.application.extensions["rummy"].store.read(finished["id"])]
        report = verify(records, VARIANTS).to_dict()
        assert failed(report)["hash_chain"] == 7 and report["first_failing_version"] == 7

    def test_a_wrong_revealed_seed_fails_even_with_a_consistent_chain(
            self, client, finished, redis_client, key_prefix):
        records = export(client, finished["id"])
        reveal = version_of(records, "SeedRevealed")
        rewrite(redis_client, stream_key(key_prefix, finished["id"]), reveal,
                lambda data: data.update(seed="00" * 32), rehash=True)
        assert failed(verification(client, finished["id"])) == {"deals": reveal}

    def test_a_score_changed_by_hand_fails_even_with_a_consistent_chain(
            self, client, finished, redis_client, key_prefix):
        records = export(client, finished["id"])
        scored = version_of(records, "HandScored")

        def more_points(data: dict[str, Any]) -> None:
            data["points"] = [p + 10 if p else p for p in data["points"]]

        rewrite(redis_client, stream_key(key_prefix, finished["id"]), scored, more_points,
                rehash=True)
        assert failed(verification(client, finished["id"])) == {"scores": scored}

    def test_an_unknown_verification_is_a_404(self, client, finished):
        response = client.get(f"/v1/matches/{finished['id']}/verifications/nope")
        assert (response.status_code, response.json["code"]) == (404, "verification_not_found")
        assert client.post("/v1/matches/nope/verifications").status_code == 404


# --- requests: anybody may ask; one job per log version in flight; records expire --------


@pytest.fixture
def queued(redis_client: redis.Redis, key_prefix: str, serving: Callable[..., Flask]) -> Any:
    """The app as real mode runs it: a verification is a ``replays`` job left to workers."""
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix)
    yield serving(settings, redis_client, jobs_inline=False)
    replays = Queue(REPLAYS, connection=redis_client)
    for job_id in replay_jobs(redis_client, key_prefix):
        replays.remove(job_id)


def replay_jobs(redis_client: redis.Redis, key_prefix: str) -> list[str]:
    """This test's jobs in the ``replays`` queue (other tests may share the real one)."""
    return [job_id for job_id in Queue(REPLAYS, connection=redis_client).job_ids
            if job_id.startswith(f"{key_prefix}-")]


def report_keys(redis_client: redis.Redis, key_prefix: str, match_id: str) -> list[bytes]:
    return list(redis_client.scan_iter(match=f"{key_prefix}:{{{match_id}}}:verif*"))


class TestVerificationRequests:
    def test_asking_again_while_one_is_in_flight_answers_that_one(
            self, queued: Flask, redis_client: redis.Redis, key_prefix: str) -> None:
        client = queued.test_client()
        match = create(client)
        url = f"/v1/matches/{match['id']}/verifications"
        answers = [client.post(url) for _ in range(5)]
        assert {answer.status_code for answer in answers} == {202}
        first = answers[0].json
        assert {answer.json["id"] for answer in answers} == {first["id"]}
        assert {answer.headers["Location"] for answer in answers} == {f"{url}/{first['id']}"}
        assert (first["status"], first["version"]) == ("queued", match["version"])
        assert len(replay_jobs(redis_client, key_prefix)) == 1

        assert act(client, match, 1, {"type": "pass"}).status_code == 200
        newer = client.post(url).json  # a new log version is worth its own job
        assert newer["id"] != first["id"] and newer["version"] == match["version"] + 1
        assert len(replay_jobs(redis_client, key_prefix)) == 2

        queued.extensions["rummy"].audits.run(match["id"], newer["id"])  # a worker ran it
        assert client.get(f"{url}/{newer['id']}").json["status"] == "finished"
        fresh = client.post(url).json  # done: asking again verifies the log afresh
        assert fresh["id"] not in (first["id"], newer["id"]) and fresh["status"] == "queued"
        assert len(replay_jobs(redis_client, key_prefix)) == 3

    def test_every_record_of_a_verification_expires(
            self, queued: Flask, redis_client: redis.Redis, key_prefix: str) -> None:
        client = queued.test_client()
        match = create(client)
        asked = client.post(f"/v1/matches/{match['id']}/verifications").json
        queued.extensions["rummy"].audits.run(match["id"], asked["id"])
        client.post(f"/v1/matches/{match['id']}/verifications")  # one left queued
        keys = report_keys(redis_client, key_prefix, match["id"])
        assert keys
        for key in keys:
            assert 0 < redis_client.ttl(key) <= REPORT_TTL_S, key


class TestExport:
    def test_a_finished_match_exports_in_full_to_everyone(self, client, finished):
        public = export(client, finished["id"])
        assert not any(r["redacted"] for r in public)
        assert public == export(client, finished["id"], ADMIN_AUTH)

    def test_a_live_match_exports_redacted_and_still_links_up(self, client):
        match = client.post("/v1/matches", json={"variant": "gin", "players": [
            {"name": "Ann"}, {"name": "Bob"}]}).json
        records = export(client, match["id"])
        assert any(r["redacted"] for r in records)
        report = verify(records, VARIANTS).to_dict()
        assert report["ok"] and "not checked from version" in " ".join(
            note for c in report["checks"] for note in c["notes"])


# --- every variant ---------------------------------------------------------------------------

PLACING = ("knock", "big_gin", "lay_down", "lay_off", "exchange_joker")
SHORT = {"gin": (2, {"target": 30}), "gem": (3, {"target": 30}),
         "rummy": (3, {"rounds": 1}), "rami": (2, {"rounds": 1})}


def play_variant(client: FlaskClient, variant: str, seed: int) -> dict[str, Any]:
    """A whole short match of ``variant`` from random legal actions, keen to end hands."""
    players, options = SHORT[variant]
    match = client.post("/v1/matches", json={
        "variant": variant, "players": [{"name": f"P{n}", "entropy": f"e{n}"}
                                        for n in range(players)],
        "options": options, "seed": f"{variant}-{seed}"}, headers=ADMIN_AUTH).json
    rng = random.Random(seed)
    for _ in range(4000):
        full = client.get(f"/v1/matches/{match['id']}", headers=ADMIN_AUTH).json
        if full["phase"] == "complete":
            return match
        token = bearer(match["seats"][full["turn"]]["token"])
        view = client.get(f"/v1/matches/{match['id']}", headers=token).json
        legal = view["legal_actions"]
        placing = [a for a in legal if a["type"] in PLACING]
        best = [a for a in legal if a["type"] == "discard"
                and a["card"] in view.get("best_discard", {}).get("cards", ())]
        action = rng.choice(placing or best or legal) if rng.random() < 0.9 else \
            rng.choice(legal)
        response = client.post(f"/v1/matches/{match['id']}/actions", json=action,
                               headers=token)
        assert response.status_code == 200, (action, response.json)
    raise AssertionError(f"the {variant} match did not end")


@pytest.mark.parametrize("variant", sorted(SHORT))
def test_every_variant_verifies_online_and_offline(client, variant, tmp_path):
    match = play_variant(client, variant, seed=11)
    report = verification(client, match["id"])
    assert report["ok"], report
    assert report["variant"] == variant and report["final_phase"] == "complete"
    assert {c["name"]: c["checked"] > 0 for c in report["checks"]} == dict.fromkeys(
        ("hash_chain", "deals", "rules", "scores"), True)
    path = tmp_path / f"{variant}.ndjson"
    path.write_text(client.get(f"/v1/matches/{match['id']}/export").get_data(as_text=True))
    result = CliRunner().invoke(rummy, ["verify", str(path)])
    assert result.exit_code == 0, result.output
