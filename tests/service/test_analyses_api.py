"""Post-game analyses over HTTP: a finished match's every decision weighed against the
expert's, the same for the same parameters, never of a match in play or in the lobby.

All-bot gin matches to 1 point are played out when their creation answers
(``jobs_inline``), and analyses are done when their request answers; a small budget and
few samples keep each analysis to a fraction of a second. The real mode's job is run by
an RQ worker at the end.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from rq import Queue, SimpleWorker

from domain.bots.analysis import KNOCKING_THRESHOLDS, LABELS, RUMMY_THRESHOLDS, label
from service.adapters.jobs import ANALYSES
from service.config import Settings
from tests.service.conftest import ADMIN, ADMIN_AUTH, bearer, create
from tests.service.test_audit_api import export
from tests.service.test_rematch_api import resigned
from workers.reconciler import Reconciler

QUICK = {"budget_ms": 2, "samples": 8}


def finished(client: FlaskClient, variant: str = "gin", seed: str | None = None
             ) -> dict[str, Any]:
    """An all-bot match of ``variant`` that ends after its first decided hand or round;
    with ``seed`` (the organiser's) always the same one."""
    options = {"target": 1} if variant in ("gin", "gem") else {"rounds": 1}
    body = {"variant": variant, "options": options,
            "players": [{"bot": "basic"}, {"bot": "basic"}]}
    match = (client.post("/v1/matches", json=body) if seed is None else
             client.post("/v1/matches", json={**body, "seed": seed}, headers=ADMIN_AUTH))
    assert match.status_code == 201, match.json
    assert client.get(f"/v1/matches/{match.json['id']}").json["phase"] == "complete"
    return match.json


def ask(client: FlaskClient, match_id: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(f"/v1/matches/{match_id}/analyses",
                       **({} if body is None else {"json": body}))


def analysed(client: FlaskClient, match_id: str, body: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    asked = ask(client, match_id, QUICK if body is None else body)
    assert asked.status_code == 202, asked.json
    assert asked.headers["Location"] == f"/v1/matches/{match_id}/analyses/{asked.json['id']}"
    answer = client.get(asked.headers["Location"])
    assert answer.status_code == 200 and answer.json["status"] == "done", answer.json
    return answer.json


@pytest.mark.parametrize("variant, thresholds", [("gin", KNOCKING_THRESHOLDS),
                                                 ("rami", RUMMY_THRESHOLDS)])
def test_a_finished_match_is_analysed_decision_by_decision(client, variant, thresholds):
    # a shuffle may end the hand before one seat has a choice; this seed's does not
    match = finished(client, variant, seed="both seats decide")
    result = analysed(client, match["id"])
    assert result["parameters"] == {"seed": "analysis", **QUICK}
    assert result["thresholds"] == dict(zip(LABELS[1:], thresholds, strict=True))
    decisions = result["decisions"]
    assert decisions and {d["seat"] for d in decisions} == {0, 1}
    log = export(client, match["id"])
    for decision in decisions:
        assert log[decision["index"]]["data"]["seat"] == decision["seat"]
        assert decision["label"] == label(decision["cost"], thresholds)
        assert (decision["samples"] == 0) == (decision["played"] == decision["expert"])
    for seat in result["summary"]:
        own = [d for d in decisions if d["seat"] == seat["seat"]]
        assert seat["decisions"] == len(own) == sum(seat["labels"].values())
        assert seat["labels"] == {name: sum(d["label"] == name for d in own) for name in LABELS}
        assert seat["mean_cost"] == pytest.approx(sum(d["cost"] for d in own) / len(own),
                                                  abs=0.01)


def test_the_same_parameters_answer_the_same_analysis_and_it_recomputes_alike(client, app):
    match = finished(client)
    first = analysed(client, match["id"])
    again = ask(client, match["id"], QUICK)
    assert (again.status_code, again.json["id"]) == (202, first["id"])
    app.extensions["rummy"].analyses.run(match["id"], first["id"])  # computed afresh
    recomputed = client.get(f"/v1/matches/{match['id']}/analyses/{first['id']}").json
    assert recomputed["decisions"] == first["decisions"]
    assert recomputed["summary"] == first["summary"]
    other = ask(client, match["id"], {**QUICK, "seed": "another"}).json
    assert other["id"] != first["id"] and other["parameters"]["seed"] == "another"


def test_a_rematch_logged_after_the_end_changes_nothing_analysed(client):
    match = resigned(client)
    first = analysed(client, match["id"])
    offered = client.post(f"/v1/matches/{match['id']}/rematch",
                          headers=bearer(match["seats"][0]["token"]))
    assert offered.status_code == 200 and offered.json["status"] == "offered"
    again = ask(client, match["id"], QUICK)
    assert (again.status_code, again.json["id"], again.json["status"]) == \
        (202, first["id"], "done")


def test_the_defaults_are_filled_in_and_sent_back(client):
    match = finished(client)
    asked = ask(client, match["id"], {"samples": 4})
    assert asked.json["parameters"] == {"seed": "analysis", "budget_ms": 50, "samples": 4}
    assert asked.json["variant"] == "gin" and asked.json["players"] == 2
    no_body = ask(client, match["id"].upper())  # an unknown match, asked without a body
    assert (no_body.status_code, no_body.json["code"]) == (404, "match_not_found")


class TestRefused:
    def test_a_match_in_play_is_refused(self, client):
        match = create(client)
        answer = ask(client, match["id"], QUICK)
        assert (answer.status_code, answer.json["code"]) == (409, "match_not_finished")
        seat = {"Authorization": f"Bearer {match['seats'][0]['token']}"}
        for headers in (seat, ADMIN_AUTH):  # not even for a seat or the organiser
            answer = client.post(f"/v1/matches/{match['id']}/analyses", json=QUICK,
                                 headers=headers)
            assert (answer.status_code, answer.json["code"]) == (409, "match_not_finished")

    def test_a_match_waiting_in_the_lobby_is_refused(self, client):
        waiting = client.post("/v1/matches", json={"variant": "gin", "players": [
            {"open": True}, {"bot": "basic"}]}).json
        answer = ask(client, waiting["id"], QUICK)
        assert (answer.status_code, answer.json["code"]) == (409, "match_not_finished")

    @pytest.mark.parametrize("body, field", [
        ({"seed": ""}, "seed"), ({"seed": "x" * 65}, "seed"),
        ({"budget_ms": 0}, "budget_ms"), ({"budget_ms": 2001}, "budget_ms"),
        ({"samples": 0}, "samples"), ({"samples": 1001}, "samples"),
    ])
    def test_parameters_out_of_bounds_are_refused_naming_the_field(self, client, body,
                                                                   field):
        answer = ask(client, finished(client)["id"], body)
        assert (answer.status_code, answer.json["code"]) == (400, "invalid_analysis")
        assert list(answer.json["errors"]) == [field]

    @pytest.mark.parametrize("body", [{"seed": 5}, {"budget_ms": "fast"}, {"samples": 1.5},
                                      {"budget_ms": True}, {"depth": 3}, [1]])
    def test_a_malformed_body_is_refused_by_the_schema(self, client, body):
        answer = client.post(f"/v1/matches/{finished(client)['id']}/analyses", json=body)
        assert (answer.status_code, answer.json["code"]) == (400, "invalid_request")

    def test_an_unknown_analysis_is_a_404(self, client):
        match = finished(client)
        answer = client.get(f"/v1/matches/{match['id']}/analyses/nope")
        assert (answer.status_code, answer.json["code"]) == (404, "analysis_not_found")
        assert client.get("/v1/matches/{x}/analyses/nope").status_code == 404


# --- real mode: an ``analyses`` job left to workers -------------------------------------


@pytest.fixture
def queued(redis_client, jobs_redis, key_prefix, serving):
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix)
    yield serving(settings, redis_client, jobs_inline=False, job_client=jobs_redis)
    queue = Queue(ANALYSES, connection=jobs_redis)
    for job_id in analysis_jobs(jobs_redis, key_prefix):
        queue.remove(job_id)


def analysis_jobs(redis_client, key_prefix: str) -> list[str]:
    """This test's jobs in the ``analyses`` queue (other tests may share the real one)."""
    return [job_id for job_id in Queue(ANALYSES, connection=redis_client).job_ids
            if job_id.startswith(f"{key_prefix}-")]


def test_real_mode_queues_one_job_per_analysis_and_a_worker_runs_it(queued, jobs_redis,
                                                                    key_prefix):
    client = queued.test_client()
    wiring = queued.extensions["rummy"]
    match = client.post("/v1/matches", json={"variant": "gin", "options": {"target": 1},
                                             "players": [{"bot": "basic"}, {"bot": "basic"}]})
    match_id = match.json["id"]
    reconciler = Reconciler(wiring.index, wiring.obligations)
    for _ in range(200):  # the workers' reconciler plays the bots out
        if client.get(f"/v1/matches/{match_id}").json["phase"] == "complete":
            break
        reconciler.drain()
    assert ask(client, match_id, QUICK).json["status"] == "queued"
    answers = [ask(client, match_id, QUICK) for _ in range(3)]
    assert {a.json["id"] for a in answers} == {answers[0].json["id"]}
    assert answers[0].json["status"] == "queued"
    assert len(analysis_jobs(jobs_redis, key_prefix)) == 1
    worker = SimpleWorker([Queue(ANALYSES, connection=jobs_redis)], connection=jobs_redis)
    worker.work(burst=True)
    done = client.get(answers[0].headers["Location"]).json
    assert done["status"] == "done" and done["decisions"] and done["finished_at"]
