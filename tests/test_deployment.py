"""docker-compose.yml describes the real set-up (no Docker engine runs here to start it):
Redis with AOF, the API under gunicorn, and an RQ worker on the job queues."""

from __future__ import annotations

from pathlib import Path

import yaml

from service.adapters.jobs import QUEUES

ROOT = Path(__file__).resolve().parents[1]


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def test_redis_keeps_an_append_only_file():
    command = compose()["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"


def test_the_api_and_the_worker_share_the_redis():
    services = compose()
    assert services["api"]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    worker = services["worker"]["command"]
    assert worker[:2] == ["rq", "worker"] and "redis://redis:6379/0" in worker
    assert set(QUEUES) <= set(worker)


def test_the_image_serves_the_app_factory_under_gunicorn():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert '"gunicorn", "service.api.app:wsgi()"' in dockerfile
    assert "pip install --no-cache-dir ." in dockerfile
