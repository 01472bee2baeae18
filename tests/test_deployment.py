"""docker-compose.yml describes the real set-up (no Docker engine runs here to start it):
Redis with AOF, the API under gunicorn, and a worker process (RQ jobs and the reconciler),
each restarted when it exits."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def test_redis_keeps_an_append_only_file():
    command = compose()["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"


def test_the_api_and_the_worker_share_the_redis():
    services = compose()
    assert services["api"]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    worker = services["worker"]
    assert worker["command"] == ["python", "-m", "workers"]
    assert worker["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    for name in ("RQ_REDIS_URL",):
        assert services["api"]["environment"][name] == worker["environment"][name]


def test_the_api_and_the_worker_share_the_webhook_address_policy():
    """The API checks a URL at registration, the worker at each delivery: one setting."""
    services = compose()
    assert services["api"]["environment"]["RUMMY_WEBHOOK_PRIVATE"] == \
        services["worker"]["environment"]["RUMMY_WEBHOOK_PRIVATE"] == \
        "${RUMMY_WEBHOOK_PRIVATE:-}"  # unset: the server's default (deny)


def test_every_process_is_restarted_when_it_exits():
    """Every service but the cluster's one-shot creation, which runs once and ends."""
    restarts = {name: service.get("restart") for name, service in compose().items()}
    assert restarts.pop("cluster-create") is None
    assert set(restarts.values()) == {"unless-stopped"}


def test_the_cluster_profile_puts_the_events_on_the_cluster_and_the_jobs_apart():
    services = compose()
    cluster = {name for name, service in services.items()
               if "cluster" in service.get("profiles", [])}
    assert cluster == {"cluster-1", "cluster-2", "cluster-3", "cluster-create",
                       "cluster-jobs", "cluster-api", "cluster-worker"}
    api, worker = services["cluster-api"], services["cluster-worker"]
    assert api["environment"] == worker["environment"]
    assert api["environment"]["RUMMY_REDIS_CLUSTER"] == "true"
    assert api["environment"]["REDIS_URL"] == "redis://cluster-1:7000/0"
    assert api["environment"]["RQ_REDIS_URL"] == \
        api["environment"]["RUMMY_RATE_LIMIT_STORAGE"] == "redis://cluster-jobs:6379/0"
    assert api["depends_on"]["cluster-create"] == {
        "condition": "service_completed_successfully"}
    for node in ("cluster-1", "cluster-2", "cluster-3"):
        command = services[node]["command"]
        assert command[command.index("--cluster-enabled") + 1] == "yes"
        assert command[command.index("--appendonly") + 1] == "yes"


def test_the_image_serves_the_app_factory_under_gunicorn_gevent():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert ('"gunicorn", "-c", "python:service.gunicorn_conf", "service.api.app:wsgi()"'
            in dockerfile)
    assert "pip install --no-cache-dir ." in dockerfile


def test_the_stream_server_uses_the_gevent_worker_and_its_open_file_limit():
    from service import gunicorn_conf

    assert gunicorn_conf.worker_class == "gevent"
    assert gunicorn_conf.worker_connections == gunicorn_conf.stream_capacity(
        gunicorn_conf.fd_limit)
    nofile = compose()["api"]["ulimits"]["nofile"]
    assert nofile["soft"] == nofile["hard"] >= 10_000


def test_the_worker_serves_its_metrics_to_the_compose_network():
    worker = compose()["worker"]["environment"]
    assert worker["RUMMY_WORKER_METRICS_PORT"] == "9101"
    assert worker["RUMMY_WORKER_METRICS_HOST"] == "0.0.0.0"


def test_every_gunicorn_process_keeps_its_figures_for_one_scrape_and_logs_json():
    from service import gunicorn_conf, logs

    assert callable(gunicorn_conf.on_starting) and callable(gunicorn_conf.child_exit)
    assert gunicorn_conf.access_log_format == logs.ACCESS_FORMAT
    assert "{x-request-id}o" in gunicorn_conf.access_log_format
    loggers = gunicorn_conf.logconfig_dict["loggers"]
    assert loggers["gunicorn.access"]["handlers"] == ["access"]
