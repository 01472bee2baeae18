"""A tournament's verification through the use cases: asked for by anybody, run in-process
in embedded mode and as a ``replays`` job in real mode, its report filed with the
tournament; the same verdict ``rummy verify`` gives of the export."""

from __future__ import annotations

from typing import Any

import pytest
from rq import Queue

from domain.audit import parse_ndjson
from domain.tournaments.audit import verify_tournament
from domain.variants import VARIANTS
from service.adapters.jobs import REPLAYS
from service.bootstrap import Wiring
from service.usecases.errors import NotFound
from tests.usecases.conftest import ADMIN, new_match


def round_robin(wiring: Wiring, players: list[dict[str, Any]]) -> str:
    made = wiring.hosted.create({"variant": "gin", "options": {"target": 10},
                                 "format": "round_robin", "players": players}, ADMIN)
    return str(made["id"])


def replay_jobs(wiring: Wiring) -> list[str]:
    return Queue(REPLAYS, connection=wiring.client).job_ids


def test_a_finished_tournament_verifies_in_process_as_rummy_verify_finds_it(inline):
    tournament_id = round_robin(inline, [{"bot": "basic"} for _ in range(3)])
    asked = inline.tournament_audits.request_verification(tournament_id)
    assert asked["tournament_id"] == tournament_id and asked["status"] == "finished"
    assert asked["version"] == inline.hosted.get(tournament_id)["version"]
    report = asked["report"]
    assert report["ok"] and report["final_phase"] == "complete"
    assert {check["name"]: check["checked"] for check in report["checks"]} == {
        "hash_chain": report["events"], "pairings": report["events"], "results": 3}
    offline = verify_tournament(parse_ndjson(inline.hosted.export(tournament_id)), VARIANTS)
    assert report == offline.to_dict()
    assert inline.tournament_audits.verification(tournament_id, asked["id"]) == asked


def test_one_job_per_log_version_is_queued_at_a_time(queued):
    tournament_id = round_robin(queued, [{"name": "Ann"}, {"name": "Bob"}])
    first = queued.tournament_audits.request_verification(tournament_id)
    again = queued.tournament_audits.request_verification(tournament_id)
    assert again == first and first["status"] == "queued"
    assert replay_jobs(queued) == [f"uc-replays-{tournament_id}-{first['id']}"]

    queued.obligations.pay(tournament_id, "tournaments")  # the tables open: a new version
    newer = queued.tournament_audits.request_verification(tournament_id)
    assert newer["id"] != first["id"] and newer["version"] == first["version"] + 1
    assert len(replay_jobs(queued)) == 2

    assert queued.tournament_audits.run(tournament_id, newer["id"])  # a worker ran it
    done = queued.tournament_audits.verification(tournament_id, newer["id"])
    assert done["status"] == "finished" and done["report"]["final_phase"] == "running"
    fresh = queued.tournament_audits.request_verification(tournament_id)
    assert fresh["id"] not in (first["id"], newer["id"]) and fresh["status"] == "queued"
    assert len(replay_jobs(queued)) == 3


def test_an_unknown_tournament_or_verification_is_not_found(queued):
    tournament_id = round_robin(queued, [{"name": "Ann"}, {"name": "Bob"}])
    match_id = new_match(queued)["id"]
    for unknown in ("t-none", match_id, "{t}"):
        with pytest.raises(NotFound) as refused:
            queued.tournament_audits.request_verification(unknown)
        assert refused.value.code == "tournament_not_found"
        with pytest.raises(NotFound) as refused:
            queued.tournament_audits.verification(unknown, "any")
        assert refused.value.code == "tournament_not_found"
    with pytest.raises(NotFound) as refused:
        queued.tournament_audits.verification(tournament_id, "nope")
    assert refused.value.code == "verification_not_found"
    assert replay_jobs(queued) == []
