"""The Flask app factory: wires settings, Redis, the event store, jobs and the blueprints."""

from __future__ import annotations

import logging
from typing import Any

import fakeredis
import redis
from flask import Flask

from service.adapters.clock_runner import ClockRunner, use_clock_runner
from service.adapters.deliveries import DeliveryRunner
from service.adapters.jobs import JobQueue
from service.adapters.store import RedisEventStore
from service.api import (
    audit,
    controls,
    errors,
    feed,
    health,
    matches,
    organisers,
    tournaments,
    variants,
    webhooks,
)
from service.api.base import RummyApi
from service.config import Settings
from service.usecases.lifecycle import use_runner
from service.usecases.matches import MatchService

log = logging.getLogger("rummy")

API_SPEC = {
    "API_TITLE": "Rummy game server",
    "API_VERSION": "1.0.0",
    "OPENAPI_VERSION": "3.0.3",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
    "API_SPEC_OPTIONS": {
        "info": {"description": "Referees Gin Rummy over HTTP. Every move is an immutable "
                                "event in the match's Redis stream."},
        "components": {"securitySchemes": {"bearerAuth": {
            "type": "http", "scheme": "bearer",
            "description": "A seat token (from match creation) or the organiser token "
                           "(RUMMY_ADMIN_TOKEN)"}}},
    },
}


def create_app(settings: Settings | None = None, client: redis.Redis | None = None,
               jobs_inline: bool | None = None) -> Flask:
    """Build the app. No arguments: settings from the environment (see README)."""
    settings = settings or Settings.from_env()
    client = client or _connect(settings)
    inline = settings.embedded if jobs_inline is None else jobs_inline
    app = Flask("rummy")
    app.config.update(API_SPEC, SETTINGS=settings, MAX_CONTENT_LENGTH=256 * 1024)
    app.extensions["rummy"] = MatchService(
        RedisEventStore(client, settings.key_prefix),
        JobQueue(client, settings.key_prefix, run_inline=inline),
        settings.admin_token,
    )
    api = RummyApi(app)
    for blueprint in (health.blp, variants.blp, matches.blp, audit.blp, organisers.blp,
                      tournaments.batches, tournaments.results):
        api.register_blueprint(blueprint)
    api.register_blueprint(controls.blp)
    for blueprint in (webhooks.blp, feed.blp):
        api.register_blueprint(blueprint)
    if inline:
        # jobs run on the appending thread here: webhooks go to background threads instead
        runner = DeliveryRunner(client, settings.key_prefix)
        use_runner(client, settings.key_prefix, runner)
        app.extensions["rummy_deliveries"] = runner
        # nor does an RQ worker run scheduled jobs: match clocks are timed in-process
        clocks = ClockRunner(app.extensions["rummy"].on_clock)
        use_clock_runner(client, settings.key_prefix, clocks)
        app.extensions["rummy_clocks"] = clocks
    errors.register(app)
    return app


def _connect(settings: Settings) -> redis.Redis:
    if settings.embedded:
        log.warning("EMBEDDED MODE: in-process fakeredis, jobs run in-process. "
                    "All data is in memory only and is lost when the server stops. "
                    "Set REDIS_URL to use a real Redis.")
        return fakeredis.FakeRedis(server=fakeredis.FakeServer())
    return redis.Redis.from_url(settings.redis_url)  # type: ignore[arg-type]


def wsgi() -> Any:
    """Entry point for gunicorn: ``gunicorn 'service.api.app:wsgi()'``."""
    logging.basicConfig(level=logging.INFO)
    return create_app()
