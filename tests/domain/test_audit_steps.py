"""The verifier recomputes steps, controls and timeouts with the code that wrote them: given
a log written by ``domain.steps``, ``domain.controls`` and ``domain.clocks``, when it is
verified as written or tampered with, then the report says so."""

from __future__ import annotations

import json
from typing import Any

from domain import controls
from domain.audit import verify
from domain.chain import GENESIS_HASH, event_hash
from domain.clocks import Clock, ClockSettings, decide_timeout, track
from domain.events import Event
from domain.fairness import UNFOLDED_EVENTS, Deal, MatchSecrets
from domain.gin import GIN
from domain.steps import decide_step, pending_step
from domain.variants import VARIANTS
from tests.builders import prepared_deck

SECRETS = MatchSecrets(b"audit-steps-seed", ("lucky 7", ""))
HANDS = ["2C 7C 3D 5D 9D JD 6H QH 8S KS", "4D 4S 4H 9C TC JC QC KC 2H 5S"]
"""Hand 1, dealer 0: seat 1 knocks with 2H + AH after drawing the AH."""


class Log:
    """A gin match written the way the server writes it: commands, ids, times, hashes."""

    def __init__(self, clock: dict[str, Any]) -> None:
        self.records: list[dict[str, Any]] = []
        self.state: Any = GIN.initial_state()
        self.clock: Clock | None = None
        self.ts = 1000.0
        options = GIN.parse_options({"first_dealer": 0}, 2)
        deal = Deal(tuple(prepared_deck(HANDS, "3C", "AH")), SECRETS.hand_seed(1), True)
        events = GIN.start_match(["Ann", "Bob"], options, 0, deal)
        events[1:1] = [SECRETS.committed(), ClockSettings.parse(clock).event()]
        self.append("create:m", events)

    def append(self, command_id: str, events: list[Event],
               command: dict[str, Any] | None = None) -> None:
        for index, event in enumerate(events):
            version = len(self.records) + 1
            prev = self.records[-1]["hash"] if self.records else GENESIS_HASH
            stored = command if index == 0 else None
            data = json.loads(json.dumps(dict(event.data)))
            self.records.append({
                "version": version, "type": event.type, "schema": event.schema,
                "data": data, "command_id": command_id, "command": stored, "ts": self.ts,
                "prev_hash": prev, "redacted": False,
                "hash": event_hash(version, event.type, event.schema, data, command_id,
                                   self.ts, prev, stored)})
            if event.type not in UNFOLDED_EVENTS:
                self.state = GIN.evolve(self.state, event)
            self.clock = track(self.clock, event, self.ts, version, self.state.turn, 2)

    def seat(self, seat: int, action: dict[str, Any]) -> None:
        self.ts += 1
        events = GIN.decide(self.state, GIN.command(seat, action))
        self.append(f"seat{seat}:{len(self.records)}", events, {"seat": seat, "action": action})

    def step(self) -> None:
        step = pending_step(GIN, self.state)
        assert step is not None
        self.append(f"job:{step.name}:{len(self.records)}",
                    decide_step(GIN, self.state, step, SECRETS))

    def time_out(self, late: float = 5.0) -> None:
        assert self.clock is not None and self.clock.deadline is not None
        self.ts = self.clock.deadline + late
        decision = decide_timeout(GIN, self.state, self.clock, len(self.records), SECRETS,
                                  self.ts)
        assert decision is not None
        self.append(decision.command_id, decision.events, decision.command)


def first_hand_scored(clock: dict[str, Any]) -> Log:
    log = Log(clock)
    log.seat(1, {"type": "pass"})
    log.seat(0, {"type": "pass"})
    log.seat(1, {"type": "draw", "source": "stock"})
    log.seat(1, {"type": "knock", "discard": "5S"})
    log.step()
    return log


def rehashed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records renumbered and re-chained, as a forger covering their tracks would."""
    previous = GENESIS_HASH
    for version, record in enumerate(records, start=1):
        record.update(version=version, prev_hash=previous)
        record["hash"] = previous = event_hash(
            version, record["type"], record["schema"], record["data"], record["command_id"],
            record["ts"], previous, record["command"])
    return records


def failures(records: list[dict[str, Any]]) -> dict[str, tuple[int, str]]:
    report = verify(records, VARIANTS).to_dict()
    return {c["name"]: (c["first_failure"]["version"], c["first_failure"]["reason"])
            for c in report["checks"] if c["first_failure"] is not None}


def test_a_scored_hand_and_a_clock_forfeit_verify() -> None:
    log = first_hand_scored({"turn_seconds": 10})
    log.time_out()
    assert [r["type"] for r in log.records[-3:]] == [
        "SeedRevealed", "MatchSeedRevealed", "SeatForfeited"]
    report = verify(log.records, VARIANTS)
    assert report.ok and report.final_phase == "complete"
    assert report.checks["scores"].checked == 1


def test_a_scoring_step_without_its_seed_reveal_fails_the_scores() -> None:
    log = first_hand_scored({"turn_seconds": 10})
    reveal = next(r for r in log.records if r["type"] == "SeedRevealed")
    records = rehashed([r for r in log.records if r is not reveal])
    assert failures(records) == {"scores": (reveal["version"], "recorded events differ from "
                                            f"what the rules make of {reveal['command_id']!r}")}


def test_auto_play_verifies_as_the_clock_decided_it() -> None:
    log = first_hand_scored({"turn_seconds": 10, "on_timeout": "auto_play"})
    log.time_out()
    log.time_out()
    assert [r["command"]["action"] for r in log.records[-2:]] == [{"type": "pass"}] * 2
    assert verify(log.records, VARIANTS).ok


def test_an_automatic_move_the_clock_would_not_make_fails_the_rules() -> None:
    log = first_hand_scored({"turn_seconds": 10, "on_timeout": "auto_play"})
    assert log.clock is not None and log.clock.seat is not None
    seat, started = log.clock.seat, log.clock.started_version
    log.ts = (log.clock.deadline or 0) + 1
    taken = {"type": "draw", "source": "discard"}  # the clock only ever passes the upcard
    version = len(log.records)
    log.append(f"clock:{seat}:{started}:{version}",
               GIN.decide(log.state, GIN.command(seat, taken)),
               {"seat": seat, "action": taken, "auto": True})
    failed = failures(log.records)
    assert list(failed) == ["rules"] and failed["rules"][0] == version + 1
    assert "not what the clock decides" in failed["rules"][1]


def test_an_organisers_abort_verifies_with_its_reveals_and_fails_without() -> None:
    log = first_hand_scored({"turn_seconds": 10})
    abort = controls.AbortMatch("void")
    log.append("organiser:abort", controls.ending_events(GIN, log.state, abort, SECRETS),
               controls.stored_command(abort))
    assert verify(log.records, VARIANTS).ok
    match_reveal = next(r for r in log.records if r["type"] == "MatchSeedRevealed")
    records = rehashed([r for r in log.records if r is not match_reveal])
    assert list(failures(records)) == ["rules"]
