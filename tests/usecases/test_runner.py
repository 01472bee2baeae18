"""The command runner (service/usecases/runner.py): every write goes through it."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest

from domain.errors import RuleError
from domain.match import Match
from service.codec import to_store
from service.usecases.commands import Decision, SeatAction
from service.usecases.errors import Conflict, Rejected
from service.usecases.runner import CommandRunner, Idempotency
from tests.usecases.conftest import new_match, to_knock, token

PASS = {"type": "pass"}


@dataclass(frozen=True)
class RacedPass:
    """The seat on turn passes; while it is decided on version 3 another writer appends
    that seat's pass first: the runner must decide again on the newer version (where the
    other seat is on turn)."""

    runner: CommandRunner
    match_id: str
    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: object) -> Decision:
        if match.version == 3:  # only while deciding on the version both read
            self.runner.run(self.match_id, SeatAction(1, PASS, "seat1:other"))
        seat = match.state.turn
        events = match.variant.decide(match.state, match.variant.command(seat, PASS))
        return Decision(events, f"seat{seat}:raced", {"seat": seat, "action": PASS})


@dataclass(frozen=True)
class OvertakenPass:
    """The seat on turn passes under an idempotency key, slowly: its key's claim lapses and
    the key's first request, retried meanwhile, appends the same pass while this one
    decides on version 3."""

    runner: CommandRunner
    match_id: str
    key: str
    retry_on_conflict: bool = True

    def decide(self, match: Match, secrets: object) -> Decision:
        seat = match.state.turn
        events = match.variant.decide(match.state, match.variant.command(seat, PASS))
        if match.version == 3:
            self.runner.store.append(self.match_id, 3, to_store(events), idempotency_key=self.key,
                                     fingerprint="fingerprint", prev_hash=match.head_hash)
        return Decision(events, f"seat{seat}:key", {"seat": seat, "action": PASS})


class TestConflicts:
    def test_a_lost_race_is_decided_again_on_the_newer_version(self, queued):
        match = new_match(queued)
        outcome = queued.runner.run(match["id"], RacedPass(queued.runner, match["id"]))
        # the other writer's pass is version 4; this one was decided again on it: 5
        assert [e.version for e in outcome.appended] == [5]
        assert outcome.aggregate.version == 5 and outcome.aggregate.state.phase == "draw"

    def test_a_stale_expected_version_is_a_conflict(self, queued):
        match = new_match(queued)
        with pytest.raises(Conflict) as refused:
            queued.runner.run(match["id"], SeatAction(1, PASS, "seat1:a"), expected_version=2)
        assert refused.value.code == "version_conflict"

    def test_a_command_that_may_not_retry_gives_up(self, queued):
        match = new_match(queued)
        command = RacedPass(queued.runner, match["id"], retry_on_conflict=False)
        with pytest.raises(Conflict):
            queued.runner.run(match["id"], command)


class TestIdempotency:
    def test_a_retry_gets_the_first_answer_and_appends_nothing(self, queued):
        match = new_match(queued)
        once = Idempotency("1:key", "fingerprint")
        first = queued.runner.run(match["id"], SeatAction(1, PASS, "seat1:key"),
                                  idempotency=once)
        again = queued.runner.run(match["id"], SeatAction(1, PASS, "seat1:key"),
                                  idempotency=once)
        assert first.appended and not again.appended and again.replayed == 4
        assert queued.repository.get(match["id"]).version == 4

    def test_a_request_overtaken_by_its_keys_first_answers_with_the_match_it_left(self, queued):
        match = new_match(queued)
        once = Idempotency("1:key", "fingerprint")
        outcome = queued.runner.run(match["id"], OvertakenPass(queued.runner, match["id"], "1:key"),
                                    idempotency=once)
        assert outcome.replayed == 4 and not outcome.appended
        assert outcome.aggregate.version == 4  # the pass as it landed, not version 3
        assert queued.repository.get(match["id"]).version == 4

    def test_a_refusal_is_kept_for_the_retries_and_a_reused_key_refused(self, queued):
        match = new_match(queued)
        once = Idempotency("0:key", "fingerprint")
        for _ in range(2):  # not seat 0's turn: refused, then refused again, not decided
            with pytest.raises(RuleError) as refused:
                queued.runner.run(match["id"], SeatAction(0, PASS, "seat0:key"),
                                  idempotency=once)
            assert refused.value.code == "not_your_turn"
        with pytest.raises(Rejected) as reused:
            queued.runner.run(match["id"], SeatAction(0, PASS, "seat0:key"),
                              idempotency=Idempotency("0:key", "another"))
        assert reused.value.code == "idempotency_key_reused"

    def test_a_retry_in_flight_waits_for_the_first_answer(self, queued):
        match = new_match(queued)
        once = Idempotency("1:slow", "fingerprint")
        assert queued.store.claim_idempotency(match["id"], once.key, 4000)  # the first
        answers: list[object] = []
        retry = threading.Thread(target=lambda: answers.append(queued.runner.run(
            match["id"], SeatAction(1, PASS, "seat1:slow"), idempotency=once)))
        retry.start()
        retry.join(0.2)
        assert retry.is_alive()  # waiting, not deciding on its own
        queued.store.release_idempotency(match["id"], once.key)  # the first died
        retry.join(5)
        assert not retry.is_alive() and answers[0].appended  # so the retry went ahead


def test_a_knock_leaves_the_step_to_the_workers_in_real_mode(queued):
    match = new_match(queued)
    to_knock(queued, match)
    outcome = queued.play.act(match["id"], token(match, 1), {"type": "knock",
                                                              "discard": "5S"})
    assert outcome["phase"] == "scoring"
    assert [o.kind for o in queued.repository.get(match["id"]).owed()] == ["steps"]
