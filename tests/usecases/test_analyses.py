"""Analyses as background work: embedded mode's runs in a child process off the asking
thread; a failure of any kind is filed with its reason, and asking again queues it anew;
records expire (in flight within the hour, once ended after a day)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from service.adapters.analyses import AnalysisRecords
from service.adapters.analyst import ChildAnalyst
from service.bootstrap import ANALYSIS_CHILD, Wiring
from service.usecases.analyses import (
    IN_FLIGHT_TTL_S,
    RESULT_TTL_S,
    analyse_records,
    run_analysis,
)
from tests.usecases.conftest import wait_for

QUICK = {"budget_ms": 2, "samples": 8}


def all_bot_match(wiring: Wiring) -> str:
    """An all-bot gin match to 1 point, played out (``inline``) or being played."""
    created = wiring.creation.create({"variant": "gin", "options": {"target": 1}, "players": [
        {"bot": "basic"}, {"bot": "basic"}]}, None)
    return str(created["id"])


def records_of(wiring: Wiring) -> AnalysisRecords:
    return AnalysisRecords(wiring.client, wiring.store.key, RESULT_TTL_S, IN_FLIGHT_TTL_S)


@pytest.mark.slow
def test_embedded_mode_analyses_in_a_child_process_off_the_asking_thread(embedded):
    match_id = all_bot_match(embedded)
    wait_for(lambda: embedded.repository.get(match_id).is_over)
    asked = embedded.analyses.request(match_id, None, QUICK)
    assert asked["status"] in ("queued", "running")
    done = wait_for(lambda: (lambda found: found if found["status"] == "done" else None)(
        embedded.analyses.analysis(match_id, asked["id"], None)), timeout=60)
    records = [{"type": e.type, "data": e.data, "schema": e.schema}
               for e in embedded.repository.stored(match_id)]
    assert done["decisions"] == analyse_records("gin", records, "analysis", **QUICK)


def failing(status: int) -> ChildAnalyst:
    return ChildAnalyst([sys.executable, "-c", f"import sys; sys.exit({status})"], 30)


def test_a_failure_is_filed_with_its_reason_and_asking_again_queues_it_anew(inline):
    match_id = all_bot_match(inline)
    asked = inline.analyses.request(match_id, None, QUICK)
    records = records_of(inline)
    for analyst, reason in [(failing(3), "the analysis exited with status 3"),
                            (ChildAnalyst(["/nonexistent/python"], 30),
                             "the analysis could not start"),
                            (ChildAnalyst([*ANALYSIS_CHILD[:3], "--no-such-option"], 30),
                             "the analysis exited with status 2")]:
        assert not run_analysis(inline.repository, records, analyst, match_id, asked["id"])
        failed = inline.analyses.analysis(match_id, asked["id"], None)
        assert failed["status"] == "failed" and failed["reason"].startswith(reason), failed
        assert "decisions" not in failed
    again = inline.analyses.request(match_id, None, QUICK)  # queued anew, done inline
    assert again["id"] == asked["id"] and again["status"] == "done"


def test_an_analyst_that_raises_is_a_failure_not_an_error(inline):
    match_id = all_bot_match(inline)
    asked = inline.analyses.request(match_id, None, QUICK)

    def broken(*args: Any) -> list[dict[str, Any]]:
        raise KeyError("lost")

    assert not run_analysis(inline.repository, records_of(inline), broken, match_id,
                            asked["id"])
    reason = inline.analyses.analysis(match_id, asked["id"], None)["reason"]
    assert "KeyError" in reason


def test_every_record_of_an_analysis_expires(queued, clock):
    match_id = all_bot_match(queued)
    while queued.obligations.pay(match_id, "bots").appended \
            or queued.obligations.pay(match_id, "steps").appended:
        pass
    asked = queued.analyses.request(match_id, None, QUICK)
    index, record = records_of(queued).keys_of(match_id)
    assert record == queued.store.key(match_id, f"analysis:{asked['id']}")
    assert 0 < queued.client.ttl(record) <= IN_FLIGHT_TTL_S  # a lost job frees it
    assert 0 < queued.client.ttl(index) <= RESULT_TTL_S
    queued.analyses.run(match_id, asked["id"])
    assert IN_FLIGHT_TTL_S < queued.client.ttl(record) <= RESULT_TTL_S
