"""The Flask app factory: the bootstrap's wiring behind the blueprints."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from flask import Flask
from flask_cors import CORS
from swagger_ui import api_doc

from service import logs
from service.api import (
    analyses,
    audit,
    controls,
    errors,
    feed,
    health,
    hosted_tournaments,
    log_audits,
    matches,
    observed,
    organisers,
    rematches,
    seats,
    tournament_verifications,
    tournaments,
    variants,
    web,
    webhooks,
)
from service.api.action_schemas import document_actions
from service.api.answers_json import answer_with_orjson
from service.api.base import (
    RummyApi,
    keep_private,
    null_only_for_none,
    one_meta_read_per_token_check,
)
from service.api.control_schemas import document_clock
from service.api.deadlines import BodyDeadlines
from service.api.event_schemas import document_commands, document_events, document_options
from service.api.limits import limit_abuse
from service.api.schemas import document_players
from service.bootstrap import Wiring, bootstrap, limiter_options
from service.config import Settings

log = logging.getLogger("rummy")

API_SPEC = {
    "API_TITLE": "Rummy game server",
    "API_VERSION": "1.0.0",
    "OPENAPI_VERSION": "3.0.3",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
    "API_SPEC_OPTIONS": {
        "info": {"description": "Referees Gin Rummy, Gem Rummy and two-deck Rummy/Rami "
                                "over HTTP. Every move is an immutable event in the match's "
                                "Redis stream. Every answer to a request that sends a token "
                                "or a ticket, and every answer to a POST, PUT, PATCH or "
                                "DELETE, is `Cache-Control: no-store`; every answer has "
                                "`Vary: Authorization`. Every request body "
                                "has a deadline: one that does not arrive in time is "
                                "answered 408 `body_timeout` and its connection closed "
                                "(docs/configuration.md, `RUMMY_BODY_*`). Every answer carries "
                                "`X-Request-Id`: the request's own when it sent a sensible "
                                "one, else one the server made; quote it when reporting a "
                                "problem (docs/operations.md)."},
        "components": {"securitySchemes": {"bearerAuth": {
            "type": "http", "scheme": "bearer",
            "description": "A seat token (from match creation) or the organiser token "
                           "(RUMMY_ADMIN_TOKEN)"}}},
    },
}


def create_app(settings: Settings | None = None, client: Any = None,
               jobs_inline: bool | None = None,
               clock: Callable[[], float] = time.time) -> Flask:
    """Build the app. No arguments: settings from the environment (see docs/configuration.md).

    ``jobs_inline``, for tests: True runs background work in this process and pays what
    a write makes due at once (a hand's scoring, the next deal) before the write answers,
    so a test reads the next hand right after a knock; False leaves it to workers
    (``python -m workers``); None (the default, as ``make serve`` runs) follows the
    settings: embedded mode pays it on its timer thread, right after the answer.
    ``clock``: the wall clock of every part (``bootstrap``), for tests. The app is wrapped
    in the body and answer deadlines (``service.api.deadlines``), around the request ids
    and figures (``service.api.observed``).
    """
    wiring = wire(settings, client, jobs_inline, clock)
    app = Flask("rummy")
    answer_with_orjson(app)
    app.config.update(API_SPEC, MAX_CONTENT_LENGTH=256 * 1024)
    one_meta_read_per_token_check(app)
    serve_wiring(app, wiring)
    allow_browsers(app, wiring.settings.cors_origins)
    api = RummyApi(app, spec_kwargs={"extra_plugins": [observed.RequestIdHeader()]})
    null_only_for_none(api.spec)
    document_actions(api.spec)
    document_players(api.spec)
    document_clock(api.spec)
    document_options(api.spec)
    document_commands(api.spec)
    document_events(api.spec)
    for blueprint in (health.blp, variants.blp, matches.blp, seats.blp, audit.blp, analyses.blp,
                      organisers.blp,
                      tournaments.batches, tournaments.results, controls.blp, webhooks.blp,
                      feed.blp, log_audits.blp, rematches.blp, hosted_tournaments.blp,
                      tournament_verifications.blp, hosted_tournaments.ratings_blp,
                      hosted_tournaments.lobby_blp):
        api.register_blueprint(blueprint)
    app.register_blueprint(web.blp)  # the reference web client: pages, not API operations
    app.register_blueprint(observed.blp)  # GET /metrics, for Prometheus: not an API operation
    errors.register(app, wiring.unavailable)
    app.after_request(keep_private)
    limit_abuse(app, wiring.settings, limiter_options(wiring.settings))
    serve_reference(app, api.spec.to_dict())
    app.wsgi_app = BodyDeadlines(  # type: ignore[method-assign]
        observed.Observed(app, app.wsgi_app), wiring.settings.deadlines)
    return app


def wire(settings: Settings | None = None, client: Any = None, jobs_inline: bool | None = None,
         clock: Callable[[], float] = time.time, *, job_client: Any = None) -> Wiring:
    """The wiring ``create_app`` serves, from the same arguments (``job_client``: the jobs'
    Redis when not the events' own, as ``bootstrap`` takes it)."""
    return bootstrap(settings, client, in_process=jobs_inline, clock=clock,
                     pay_inline=bool(jobs_inline), job_client=job_client)


def serve_wiring(app: Flask, wiring: Wiring) -> None:
    """Answer ``app``'s requests with ``wiring``: its use cases and its settings are all a
    request reads of it. The rest of the app (routes, CORS, limits, deadlines, the OpenAPI
    document) is built once from the settings; tests that share one app, since building it
    costs far more than a test, serve each test's own wiring through here."""
    app.config["SETTINGS"] = wiring.settings
    app.extensions["rummy"] = wiring


def serve_reference(app: Flask, spec: dict[str, Any]) -> None:
    """``/docs``: Swagger UI over this app's own spec (the one ``/openapi.json`` serves).
    Its files come from the swagger-ui-py package and are served by this app, so the
    reference works offline (no CDN)."""
    api_doc(app, config=spec, url_prefix="/docs", title="Rummy game server API",
            host_inject=False)


ALLOWED_HEADERS = ("Authorization", "Content-Type", "If-Match", "Idempotency-Key",
                   "Last-Event-ID", "X-Request-Id")
"""Request headers a page on another origin may send (its preflight asks for them)."""
EXPOSED_HEADERS = ("ETag", "Location", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining",
                   "RateLimit-Reset", "RateLimit-Policy", "X-Request-Id")
"""Response headers a page on another origin may read."""


def allow_browsers(app: Flask, origins: tuple[str, ...]) -> None:
    """CORS for pages on other origins (flask-cors): preflights, and the allow/expose
    headers on every response, errors included. No cookies are involved: clients send
    their bearer token themselves."""
    CORS(app, origins="*" if "*" in origins else list(origins),
         methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
         allow_headers=list(ALLOWED_HEADERS), expose_headers=list(EXPOSED_HEADERS),
         supports_credentials=False, max_age=600)


def wsgi() -> Any:
    """Entry point for gunicorn: ``gunicorn 'service.api.app:wsgi()'``; every log line
    JSON with its request id (``service.logs``)."""
    logs.configure(logging.INFO)
    return create_app()
