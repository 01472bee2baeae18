"""``GET /metrics``: what an operator scrapes (service/adapters/metrics.py, docs/operations.md).

Each test's wiring counts in a registry of its own, so every figure here is this test's.
The figures are read back from the scrape itself, parsed as Prometheus parses it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.adapters.fanout import StreamHub, notify
from service.adapters.metrics import NAMES, PrometheusMetrics
from service.adapters.work_timer import WorkTimer
from service.config import Settings
from service.ports import VersionConflict
from service.usecases.obligations import KINDS
from tests.service.conftest import ADMIN, create
from tests.service.test_matches_api import DECK, act, knocked
from workers.reconciler import Reconciler

ROOT = Path(__file__).resolve().parents[2]


def scrape(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics``: (name, sorted labels) -> value."""
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.content_type.startswith("text/plain; version=0.0.4")
    return samples(answer.get_data(as_text=True))


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(found: dict, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def test_requests_are_timed_by_route_template_and_actions_counted_by_variant_and_outcome(
        client):
    match = create(client, DECK)
    assert act(client, match, 1, {"type": "pass"}).status_code == 200
    assert act(client, match, 1, {"type": "pass"}).json["code"] == "not_your_turn"
    for _ in range(2):
        assert client.get(f"/v1/matches/{match['id']}").status_code == 200
    assert client.get("/no/such/page").status_code == 404
    found = scrape(client)
    latency = "rummy_http_request_duration_seconds_count"
    assert value(found, latency, route="/v1/matches/<match_id>", method="GET",
                 status="200") == 2
    assert value(found, latency, route="/v1/matches/<match_id>/actions", method="POST",
                 status="200") == 1
    assert value(found, latency, route="/v1/matches/<match_id>/actions", method="POST",
                 status="422") == 1
    assert value(found, latency, route="<unmatched>", method="GET", status="404") == 1
    assert not [key for key in found if match["id"] in str(key)], "an id became a label"
    assert value(found, "rummy_actions_total", variant="gin", outcome="accepted") == 1
    assert value(found, "rummy_actions_total", variant="gin", outcome="not_your_turn") == 1
    assert value(found, "rummy_appends_total", aggregate="match") == 1
    assert value(found, "rummy_store_round_trips_total", store="matches",
                 operation="append") == 1
    assert value(found, "rummy_store_round_trips_total", store="matches",
                 operation="create") == 1


def test_every_metric_the_adapter_names_is_scraped_and_documented(client):
    create(client, DECK)
    families = {family.name for family in text_string_to_metric_families(
        client.get("/metrics").get_data(as_text=True))}
    exported = {name.removesuffix("_total") for name in NAMES}
    assert exported <= families
    operations = (ROOT / "docs" / "operations.md").read_text()
    for name in NAMES:
        assert f"`{name}`" in operations, name


def test_a_lost_race_is_a_conflict_and_a_retry_and_a_repeated_key_a_replay(client, app,
                                                                           monkeypatch):
    match = create(client, DECK)
    store = app.extensions["rummy"].store
    append = store.append
    lost: list[int] = []

    def lose_the_first_race(match_id: str, expected: int, *args: Any, **kwargs: Any) -> Any:
        if not lost:
            lost.append(expected)
            raise VersionConflict(expected, expected + 1)
        return append(match_id, expected, *args, **kwargs)

    monkeypatch.setattr(store, "append", lose_the_first_race)
    assert act(client, match, 1, {"type": "pass"}).status_code == 200
    monkeypatch.setattr(store, "append", append)
    key = {"Idempotency-Key": "pass-once"}
    for _ in range(2):
        assert act(client, match, 0, {"type": "pass"}, **key).status_code == 200
    stale = act(client, match, 1, {"type": "draw", "source": "stock"}, **{"If-Match": "1"})
    assert stale.status_code == 409
    found = scrape(client)
    # a stale If-Match is refused before any append: the client's conflict, not a race
    assert value(found, "rummy_version_conflicts_total", aggregate="match") == 1
    assert value(found, "rummy_command_retries_total", aggregate="match") == 1
    assert value(found, "rummy_idempotent_replays_total", aggregate="match") == 1
    assert value(found, "rummy_appends_total", aggregate="match") == 2
    assert value(found, "rummy_actions_total", variant="gin", outcome="replayed") == 1
    assert value(found, "rummy_actions_total", variant="gin", outcome="version_conflict") == 1


@pytest.fixture
def real_mode(redis_client, key_prefix, serving):
    """Real mode (work left to workers) on a clock the test moves."""
    now = [time.time()]
    settings = Settings(redis_url="redis://unused", admin_token=ADMIN, key_prefix=key_prefix)
    app = serving(settings, redis_client, jobs_inline=False, clock=lambda: now[0])
    return app, now


def test_owed_work_is_read_from_the_work_index_at_scrape_time(real_mode):
    app, now = real_mode
    client = app.test_client()
    found = scrape(client)
    assert value(found, "rummy_owed_work_due", kind="steps") == 0
    knocked(client)
    now[0] += 30
    found = scrape(client)
    assert value(found, "rummy_owed_work_due", kind="steps") == 1
    assert 30 <= value(found, "rummy_owed_work_oldest_age_seconds", kind="steps") < 31
    assert value(found, "rummy_owed_work_due", kind="clocks") == 0
    wiring = app.extensions["rummy"]
    assert Reconciler(wiring.index, wiring.obligations, now=lambda: now[0],
                      metrics=wiring.metrics).drain() == 1
    found = scrape(client)
    assert value(found, "rummy_owed_work_due", kind="steps") == 0
    assert value(found, "rummy_owed_work_oldest_age_seconds", kind="steps") == 0
    assert value(found, "rummy_reconciler_redrives_total", kind="steps", result="paid") == 1


def test_embedded_owed_work_is_read_from_the_timer():
    """Embedded mode keeps owed work on its timer thread, not in the index."""
    timer = WorkTimer()  # never started: what is scheduled stays due
    timer.schedule("steps", "m1", time.time() - 5)
    timer.schedule("steps", "m2", time.time() + 60)
    timer.schedule("clocks", "m1", time.time() - 1)
    metrics = PrometheusMetrics()
    metrics.watch_owed_work(timer, KINDS)
    found = samples(metrics.exposition()[0].decode())
    assert value(found, "rummy_owed_work_due", kind="steps") == 1
    assert 5 <= value(found, "rummy_owed_work_oldest_age_seconds", kind="steps") < 6
    assert value(found, "rummy_owed_work_due", kind="clocks") == 1
    assert value(found, "rummy_owed_work_due", kind="bots") == 0


def test_open_streams_and_the_fan_out_delay(redis_client, key_prefix):
    metrics = PrometheusMetrics()
    hub = StreamHub(redis_client, f"{key_prefix}:hub:wake", idle_ms=50, metrics=metrics)
    key = f"{key_prefix}:feed"
    try:
        first = hub.subscribe({key: "0-0"}, 5.0)
        second = hub.subscribe({key: "0-0"}, 5.0)
        found = samples(metrics.exposition()[0].decode())
        assert value(found, "rummy_open_streams") == 2
        time.sleep(0.2)  # the hub's channel subscription is confirmed
        redis_client.xadd(key, {"ts": repr(time.time() - 0.25)})
        notify(redis_client, key)
        deadline = time.monotonic() + 5
        while not first.get() and time.monotonic() < deadline:
            pass
        hub.unsubscribe(second)
        found = samples(metrics.exposition()[0].decode())
        assert value(found, "rummy_open_streams") == 1
        assert value(found, "rummy_fanout_delay_seconds_count") == 1
        assert 0.25 <= value(found, "rummy_fanout_delay_seconds_sum") < 5
    finally:
        hub.close()
    found = samples(metrics.exposition()[0].decode())
    assert value(found, "rummy_open_streams") == 0


def test_rate_limit_refusals_are_counted_by_route(request, redis_client, key_prefix):
    from service.config import RateLimits
    from tests.service.test_rate_limits import GIN, limited_app

    app = limited_app(request, redis_client, key_prefix, RateLimits(create="1/minute"))
    client = app.test_client()
    assert client.post("/v1/matches", json=GIN).status_code == 201
    assert client.post("/v1/matches", json=GIN).status_code == 429
    found = scrape(client)
    assert value(found, "rummy_rate_limited_total", route="/v1/matches") == 1
    assert value(found, "rummy_http_request_duration_seconds_count", route="/v1/matches",
                 method="POST", status="429") == 1
    app.extensions["rummy"].close()


def test_methods_outside_the_usual_ones_share_one_label(client):
    client.open("/healthz", method="BREW")
    found = scrape(client)
    assert value(found, "rummy_http_request_duration_seconds_count", route="<unmatched>",
                 method="other", status="405") == 1
