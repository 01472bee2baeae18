"""Starting a process on a real Redis (service/bootstrap.py)."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from service.bootstrap import require_redis_7


class Server:
    """A Redis as far as ``INFO server`` goes."""

    def __init__(self, version: str | None) -> None:
        self.version = version

    def info(self, section: str) -> dict[str, Any]:
        assert section == "server"
        if self.version is None:
            raise redis.ConnectionError("not up yet")
        return {"redis_version": self.version}


@pytest.mark.parametrize("version", ["7.0.15", "7.2.4", "8.0.0", "10.1"])
def test_redis_7_or_newer_is_accepted(version):
    require_redis_7(Server(version))  # type: ignore[arg-type]


@pytest.mark.parametrize("version", ["6.2.14", "5.0.7"])
def test_an_older_redis_is_refused_at_start_with_the_reason(version):
    with pytest.raises(RuntimeError, match=f"Redis {version} is too old.*7.0 or newer"):
        require_redis_7(Server(version))  # type: ignore[arg-type]


def test_a_redis_that_is_not_up_yet_does_not_stop_the_start():
    require_redis_7(Server(None))  # type: ignore[arg-type]



def test_a_gunicorn_worker_that_exits_closes_what_its_app_started(redis_client, key_prefix):
    """``Wiring.close`` runs at the process's end (gunicorn's ``worker_exit`` hook): the
    stream hub closes, so open streams end and their clients reconnect elsewhere."""
    from types import SimpleNamespace

    from service import gunicorn_conf
    from service.api.app import create_app
    from service.config import Settings

    app = create_app(Settings(redis_url="redis://unused", key_prefix=key_prefix),
                     client=redis_client, jobs_inline=True)
    hub = app.extensions["rummy"].streams.live.hub
    subscription = hub.subscribe({f"{key_prefix}:k": "0-0"}, 60)
    gunicorn_conf.worker_exit(None, SimpleNamespace(wsgi=app))
    assert subscription.get() == [] and subscription.closed
