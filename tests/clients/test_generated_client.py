"""A Python client generated from openapi.yaml plays a whole match of every variant
(issue 12, part 2).

openapi-python-client (its CLI, as a user would run it) writes the client into a temporary
directory; the test imports it and plays gin, gem, rummy and rami against the real server
(gunicorn, ``live_server``) only through it: typed request bodies, typed views, and every
move chosen from the typed ``legal_actions`` and sent back as it came. Every answer is also
checked as raw JSON against the spec (tests/spec_check.py), so a field the spec does not
declare fails here instead of being dropped silently by the generated models.
"""

from __future__ import annotations

import importlib
import io
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from domain.bots.policies import ENDERS, PLACEMENTS, keen, of_type
from tests.conftest import LIVE_ADMIN
from tests.spec_check import SPEC_FILE, SpecChecker

PACKAGE = "rummy_client"
MATCHES = [  # small targets, so each match ends in a hand or a round
    ("gin", 2, {"target": 1}),
    ("gem", 3, {"target": 1}),
    ("rummy", 3, {"rounds": 1, "max_turns": 80}),
    ("rami", 2, {"rounds": 1, "max_turns": 80}),
]


@pytest.fixture(scope="module")
def client_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated client, imported from a fresh temporary directory."""
    out = tmp_path_factory.mktemp("generated")
    config = out / "config.yml"
    config.write_text("post_hooks: []\n")  # no formatter run: only the spec can warn
    command = [str(Path(sys.executable).parent / "openapi-python-client"), "generate",
               "--path", str(SPEC_FILE), "--output-path", str(out / PACKAGE), "--meta", "none",
               "--config", str(config)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    # issue 19: every operation generates, the two NDJSON ones included, with no warning
    assert "warning" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def checker() -> SpecChecker:
    return SpecChecker()


class Api:
    """The generated package's pieces, and clients whose every answer is spec-checked."""

    def __init__(self, package: ModuleType, url: str, checker: SpecChecker) -> None:
        self.url, self.checker = url, checker
        self.models = importlib.import_module(f"{PACKAGE}.models")
        self.matches = self._module("matches", "post_v1_matches")
        self.view = self._module("matches", "get_v1_matches_match_id")
        self.act = self._module("matches", "post_v1_matches_match_id_actions")
        self.events = self._module("matches", "get_v1_matches_match_id_events")
        self.state = self._module("audit", "get_v1_matches_match_id_state")
        self.export = self._module("audit", "get_v1_matches_match_id_export")
        self.audit = self._module("audits", "post_v1_audits")
        self.package = package
        self.opened: list[Any] = []
        self.public = self._open(package.Client(base_url=url, httpx_args=self._hooks(),
                                                raise_on_unexpected_status=True))

    def _open(self, client: Any) -> Any:
        """Keep the client, to close its connections at the end (no socket left open)."""
        self.opened.append(client)
        return client

    def close(self) -> None:
        for client in self.opened:
            client.get_httpx_client().close()

    @staticmethod
    def _module(tag: str, name: str) -> ModuleType:
        return importlib.import_module(f"{PACKAGE}.api.{tag}.{name}")

    def _hooks(self) -> dict[str, Any]:
        def check(response: httpx.Response) -> None:
            response.read()
            content_type = response.headers.get("content-type", "").split(";")[0]
            body = response.json() if content_type == "application/json" else None
            self.checker.check(response.request.method, response.request.url.path,
                               response.status_code, body, content_type or "application/json")
        return {"event_hooks": {"response": [check]}}

    def holder(self, token: str) -> Any:
        return self._open(self.package.AuthenticatedClient(
            base_url=self.url, token=token, httpx_args=self._hooks(),
            raise_on_unexpected_status=True))


@pytest.fixture(scope="module")
def api(client_package: ModuleType, live_server: str, checker: SpecChecker) -> Iterator[Api]:
    """Anonymous calls go through the generated ``Client``: the endpoints the spec marks
    ``security: [{}, {bearerAuth: []}]`` answer without a token."""
    opened = Api(client_package, live_server, checker)
    try:
        yield opened
    finally:
        opened.close()


def choose(rng: random.Random, legal: list[Any]) -> Any:
    """A legal action (a generated model), mostly one that moves the hand to its end."""
    offered = [action.to_dict() for action in legal]
    chosen = keen(rng, offered, (of_type(*ENDERS, *PLACEMENTS), 0.8))
    return legal[offered.index(chosen)]


def create(api: Api, admin: Any, variant: str, players: int, options: dict[str, Any]) -> Any:
    body = api.models.MatchCreate.from_dict({
        "variant": variant, "players": [{"name": f"P{i}"} for i in range(players)],
        "options": {"first_dealer": 0, **options}, "seed": f"generated-{variant}"})
    created = api.matches.sync(client=admin, body=body)
    assert isinstance(created, api.models.MatchCreated), created
    return created


def play(api: Api, match_id: str, seats: list[Any], rng: random.Random) -> Any:
    """Play from ``legal_actions`` until the match is over; the last public view."""
    public = api.public
    for _ in range(5000):
        view = api.view.sync(match_id, client=public)
        assert isinstance(view, api.models.MatchView), view
        if view.phase in ("complete", "aborted"):
            return view
        if view.turn is None:  # a background step (scoring, bonuses) is running
            time.sleep(0.01)
            continue
        mine = api.view.sync(match_id, client=seats[view.turn])
        answer = api.act.sync(match_id, client=seats[view.turn],
                              body=choose(rng, mine.legal_actions))
        assert isinstance(answer, api.models.MatchView), answer.to_dict()
    pytest.fail("the match did not end")


@pytest.mark.parametrize("variant, players, options", MATCHES)
def test_a_generated_client_plays_a_whole_match(api, variant, players, options):
    admin = api.holder(LIVE_ADMIN)
    created = create(api, admin, variant, players, options)
    seats = [api.holder(seat.token) for seat in created.seats]
    final = play(api, created.id, seats, random.Random(variant))
    assert final.phase == "complete" and final.final_scores, final.to_dict()
    log = api.events.sync(created.id, client=api.public)
    assert isinstance(log, api.models.EventList)
    types = {type(event).__name__ for event in log.events}
    assert "MatchCompletedEvent" in types and "HandScoredEvent" in types, types
    past = api.state.sync(created.id, client=seats[0], at=len(log.events) // 2)
    assert isinstance(past, api.models.MatchView)
    exported = api.export.sync(created.id, client=api.public)
    lines = exported.payload.read().decode().splitlines()
    assert len(lines) == len(log.events)
    types_module = importlib.import_module(f"{PACKAGE}.types")
    report = api.audit.sync(client=api.public, body=types_module.File(
        payload=io.BytesIO("\n".join(lines).encode()), mime_type="application/octet-stream"))
    assert isinstance(report, api.models.Audit), report
    assert report.report.ok, report.to_dict()


def test_report(checker):
    """Not a check: how many answers the generated clients got (shown with -s)."""
    print(f"\ngenerated client: {checker.total} responses validated")
