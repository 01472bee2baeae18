"""Use cases driven through the bootstrap, on fakeredis, with a wall clock the test holds:
no HTTP, no Flask."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import fakeredis
import pytest

from service.bootstrap import Wiring, bootstrap
from service.config import Settings
from service.usecases.obligations import OBLIGATIONS
from service.usecases.repository import CACHE_SIZE
from tests.service.test_matches_api import DECK

ADMIN = "usecases-admin"


class Clock:
    """The wall clock every part of the wiring reads; the test moves it."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def wired(clock: Clock, in_process: bool, server: fakeredis.FakeServer | None = None,
          keep_finished: int = 1000, pay_inline: bool = False,
          cache_size: int = CACHE_SIZE) -> Wiring:
    """One process's wiring; give two the same ``server`` for two processes on one Redis."""
    settings = Settings(redis_url=None if in_process else "redis://unused",
                        admin_token=ADMIN, key_prefix="uc", keep_finished=keep_finished)
    client = fakeredis.FakeRedis(server=server or fakeredis.FakeServer())
    return bootstrap(settings, client, in_process=in_process, clock=clock,
                     pay_inline=pay_inline, cache_size=cache_size)


@pytest.fixture
def queued(clock: Clock) -> Iterator[Wiring]:
    """Real mode's wiring: steps and clocks are left to workers (the work index)."""
    wiring = wired(clock, in_process=False)
    yield wiring
    wiring.close()


@pytest.fixture
def embedded(clock: Clock) -> Iterator[Wiring]:
    """Embedded mode's wiring, as the server runs it: owed work is paid on the in-process
    timer thread as it falls due, off the thread whose write made it due."""
    wiring = wired(clock, in_process=True)
    yield wiring
    wiring.close()


@pytest.fixture
def inline(clock: Clock) -> Iterator[Wiring]:
    """Embedded mode as the HTTP tests run it (``pay_inline``): work due at once is paid
    before the write that made it due answers."""
    wiring = wired(clock, in_process=True, pay_inline=True)
    yield wiring
    wiring.close()


def wait_for(predicate: Callable[[], Any], timeout: float = 5.0) -> Any:
    """``predicate()`` once it is truthy (polled), for work another thread does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(0.005)
    raise AssertionError("timed out waiting")


def new_match(wiring: Wiring, **body: Any) -> dict[str, Any]:
    """A two-seat gin match from the prepared deck: seat 1 passes, seat 0 passes, seat 1
    draws AH, then a knock discarding 5S leaves 3 against 70."""
    return wiring.creation.create({"variant": "gin", "players": [{"name": "Ann"},
                                                                 {"name": "Bob"}],
                                   "options": {"first_dealer": 0}, "deck": DECK, **body},
                                  ADMIN)


def token(match: dict[str, Any], seat: int) -> str:
    return str(match["seats"][seat]["token"])


def to_knock(wiring: Wiring, match: dict[str, Any]) -> None:
    for seat, action in [(1, {"type": "pass"}), (0, {"type": "pass"}),
                         (1, {"type": "draw", "source": "stock"})]:
        wiring.play.act(match["id"], token(match, seat), action)


def knocked(wiring: Wiring, clock: Clock) -> str:
    """A match whose hand seat 1 has just ended: it owes its scoring step, due now."""
    match = new_match(wiring)
    to_knock(wiring, match)
    wiring.play.act(match["id"], token(match, 1), {"type": "knock", "discard": "5S"})
    return str(match["id"])


def timed_out(wiring: Wiring, clock: Clock) -> str:
    """A match whose running turn (30 s, auto play) has just run out: it owes its clock's
    move, due now."""
    match = new_match(wiring, clock={"turn_seconds": 30, "on_timeout": "auto_play"})
    clock.now += 31
    return str(match["id"])


def bots_turn(wiring: Wiring, clock: Clock) -> str:
    """A match whose computer player (seat 1, no think time) is offered the upcard: it
    owes the bot's move, due now."""
    return str(new_match(wiring, players=[{"name": "Ann"}, {"bot": "random"}])["id"])


def tournament_paired(wiring: Wiring, clock: Clock) -> str:
    """A tournament whose first round is paired: it owes its tables opened, due now."""
    made = wiring.hosted.create({"variant": "gin", "format": "round_robin",
                                 "players": [{"name": "Ann"}, {"name": "Bob"}]}, ADMIN)
    return str(made["id"])


def result_recorded(wiring: Wiring, clock: Clock) -> str:
    """A tournament whose first table's result (a forfeit) is recorded and not rated yet:
    it owes its rating, due now."""
    tournament_id = tournament_paired(wiring, clock)
    wiring.obligations.pay(tournament_id, "tournaments")
    table = wiring.hosted.round(tournament_id, 1)["tables"][0]
    wiring.hosted.tables.forfeit(table["match_id"], 1)
    wiring.obligations.pay(tournament_id, "tournaments")
    return tournament_id


OWING: dict[str, Callable[[Wiring, Clock], str]] = {"steps": knocked, "clocks": timed_out,
                                                    "bots": bots_turn,
                                                    "tournaments": tournament_paired,
                                                    "ratings": result_recorded}
"""For each kind of owed work, a match (a tournament for a tournament's kind) that owes
it, due now (a test holds it to the table's kinds, so a new kind comes with its
example)."""


def owing(wiring: Wiring, kind: str, aggregate_id: str) -> tuple[Any, ...]:
    """What the match or tournament owes now, loaded by its own kind's repository."""
    runner = wiring.obligations.runners[OBLIGATIONS[kind].aggregate]
    return tuple(runner.repository.get(aggregate_id).owed())
