"""A computer player's turn as owed work: paid by ``PlayBot`` through the one runner, as an
ordinary seat command naming the bot; never for a turn that is not the bot's; after its
think time, by the reconciler (real mode) or the timer thread (embedded mode)."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from domain import bots
from domain.bots.expert.budget import DEFAULT_MS
from domain.fairness import MatchSecrets
from domain.match import BotTurn
from service.bootstrap import Wiring
from service.usecases.commands import PlayBot, bot_seed
from service.usecases.obligations import KINDS, MAX_PAYMENTS
from tests.usecases.conftest import Clock, new_match, token, wait_for
from workers.reconciler import Reconciler


def against(wiring: Wiring, level: str = "random", think_ms: int = 0) -> dict[str, Any]:
    """Ann (seat 0) against a bot (seat 1), which is offered the upcard first."""
    return new_match(wiring, players=[{"name": "Ann"},
                                      {"bot": level, "think_ms": think_ms}])


def owed_bot(wiring: Wiring, match_id: str) -> BotTurn | None:
    return next((o for o in wiring.repository.get(match_id).owed()
                 if isinstance(o, BotTurn)), None)


def test_a_bots_move_is_a_seat_command_that_names_the_bot(queued):
    match = against(queued, "basic")
    version = queued.repository.get(match["id"]).version
    paid = queued.obligations.pay(match["id"], "bots")
    first = paid.appended[0]
    assert first.command_id == f"seat1:bot:basic:{version}"
    assert first.command is not None and first.command["seat"] == 1
    assert first.command["bot"] == "basic" and first.command["action"]["type"] in (
        "pass", "draw")
    assert owed_bot(queued, match["id"]) is None  # Ann's turn now


def test_a_bot_never_moves_for_a_turn_that_is_not_its_own(queued):
    match = against(queued)
    loaded = queued.repository.get(match["id"])
    for stale in (PlayBot(1, loaded.version - 1), PlayBot(0, loaded.version),
                  PlayBot(1, loaded.version + 1)):
        assert queued.runner.run(match["id"], stale).appended == ()
    paid = queued.runner.run(match["id"], PlayBot(1, loaded.version))
    assert paid.appended
    assert queued.runner.run(match["id"], PlayBot(1, loaded.version)).appended == ()


def test_a_bot_draws_its_randomness_from_the_public_log_never_the_secret_seed(queued):
    loaded = queued.repository.get(against(queued)["id"])
    decisions = [PlayBot(1, loaded.version).decide(loaded, MatchSecrets(seed))
                 for seed in (b"one secret", b"another secret")]
    assert decisions[0] == decisions[1]
    assert bot_seed(loaded.head_hash, 1, loaded.version) == bot_seed(loaded.head_hash, 1,
                                                                     loaded.version)
    assert bot_seed(loaded.head_hash, 1, loaded.version) != bot_seed(loaded.head_hash, 0,
                                                                     loaded.version)


def test_a_bot_that_fails_plays_a_random_legal_move_and_says_so(queued, monkeypatch,
                                                                caplog):
    choose = bots.choose

    def broken(level: str, *args: Any) -> dict[str, Any]:
        if level == "expert":
            raise RuntimeError("search blew up")
        return choose(level, *args)

    monkeypatch.setattr(bots, "choose", broken)
    match = against(queued, "expert")
    with caplog.at_level(logging.ERROR):
        paid = queued.obligations.pay(match["id"], "bots")
    assert paid.appended and paid.appended[0].command["bot"] == "expert"
    assert "the expert bot failed for seat 1" in caplog.text


@pytest.mark.parametrize("seat, budget_ms", [({"bot": "expert", "budget_ms": 7}, 7),
                                              ({"bot": "expert"}, DEFAULT_MS),
                                              ({"bot": "basic"}, None)])
def test_a_bot_searches_within_the_budget_its_seat_was_given(queued, monkeypatch, seat,
                                                             budget_ms):
    asked: list[int | None] = []
    choose = bots.choose

    def recording(*args: Any, budget_ms: int | None = None) -> dict[str, Any]:
        asked.append(budget_ms)
        return choose(*args, budget_ms=budget_ms)

    monkeypatch.setattr(bots, "choose", recording)
    match = new_match(queued, players=[{"name": "Ann"}, seat])
    assert queued.obligations.pay(match["id"], "bots").appended
    assert asked and set(asked) == {budget_ms}


def test_real_mode_pays_a_bot_once_its_think_time_has_run(queued, clock):
    match = against(queued, think_ms=500)
    assert queued.client.zscore(queued.index.key("bots"), match["id"]) == clock.now + 0.5
    reconciler = Reconciler(queued.index, queued.obligations, now=clock)
    version = queued.repository.get(match["id"]).version
    assert reconciler.drain() == 0 and queued.repository.get(match["id"]).version == version
    assert 0 < reconciler.wait_s() <= 0.5  # it wakes for it
    clock.now += 0.5
    assert reconciler.drain() >= 1 and queued.repository.get(match["id"]).version > version
    thinking = owed_bot(queued, match["id"])  # it took the upcard: it thinks again
    assert thinking is None or thinking.due_at == clock.now + 0.5


def test_embedded_mode_pays_a_bot_on_its_timer_once_its_think_time_has_run(embedded, clock):
    match = against(embedded, think_ms=500)
    version = embedded.repository.get(match["id"]).version
    assert wait_for(lambda: embedded.work.timer.pending() >= 1)
    assert owed_bot(embedded, match["id"]) is not None  # not before its time
    clock.now += 0.5
    assert wait_for(lambda: embedded.repository.get(match["id"]).version > version,
                    timeout=3.0)


def test_a_persons_move_answers_before_the_bot_replies_on_the_timer_thread(embedded,
                                                                           monkeypatch):
    paid_on: list[str] = []
    pay = embedded.obligations.pay

    def noted(match_id: str, kind: str, now: float | None = None):
        paid_on.append(threading.current_thread().name)
        return pay(match_id, kind, now)

    monkeypatch.setattr(embedded.obligations, "pay", noted)
    match = against(embedded)
    for _ in range(4):  # Ann plays until her move hands the turn to the bot
        loaded = wait_for(lambda: (m := embedded.repository.get(match["id"])).state.turn == 0
                          and m)
        legal = loaded.variant.legal_actions(loaded.state, 0)
        move = next((a for a in legal if a["type"] in ("pass", "draw")), legal[0])
        answer = embedded.play.act(match["id"], token(match, 0), move)
        if answer["turn"] == 1:
            break
    assert answer["turn"] == 1  # as of Ann's own move: the bot had not replied
    assert wait_for(lambda: embedded.repository.get(match["id"]).version > answer["version"])
    assert paid_on and set(paid_on) == {"rummy-work"}  # never on the thread of a move


@pytest.mark.parametrize("variant", ["rummy", "rami"])
def test_the_reconciler_plays_an_all_bot_match_out_and_then_rests(queued, clock, variant):
    match = queued.creation.create({"variant": variant, "players": [
        {"bot": "random"}, {"bot": "basic"}, {"bot": "expert"}], "options": {"rounds": 1}},
        None)
    reconciler = Reconciler(queued.index, queued.obligations, now=clock)
    for _ in range(2000):
        if not reconciler.tick():
            break
    loaded = queued.repository.get(match["id"])
    assert loaded.state.phase == "complete" and loaded.owed() == ()
    assert reconciler.tick() == 0  # nothing left to claim: no loop on a finished match
    assert [queued.index.pending(kind) for kind in KINDS] == [0] * len(KINDS)


def test_one_payment_plays_a_bounded_run_of_bot_moves(queued, clock):
    match = queued.creation.create({"variant": "rummy", "players": [
        {"bot": "random"}, {"bot": "random"}], "options": {"rounds": 1}}, None)
    paid = queued.obligations.pay(match["id"], "bots")
    commands = {event.command_id for event in paid.appended}
    assert 1 < len(commands) <= MAX_PAYMENTS
    assert queued.client.zscore(queued.index.key("bots"), match["id"]) == clock.now  # still due


def test_a_clock_is_left_to_time_a_bot_that_thinks_past_its_deadline(queued, clock):
    match = new_match(queued, players=[{"name": "Ann"}, {"bot": "basic", "think_ms": 5000}],
                      clock={"turn_seconds": 1, "on_timeout": "auto_play"})
    clock.now += 1
    paid = queued.obligations.pay(match["id"], "clocks")
    assert [e.command_id.split(":")[0] for e in paid.appended] == ["clock"]
    assert queued.obligations.pay(match["id"], "bots").appended == ()  # that turn is over


def test_a_bots_seats_are_kept_off_the_token_index(queued: Wiring, clock: Clock):
    match = against(queued)
    hashes = queued.access.seat_hashes(match["id"])
    assert hashes[0] and hashes[1] == ""
    assert match["seats"][1]["token"] is None and match["seats"][1]["bot"] == {
        "level": "random", "think_ms": 0}
