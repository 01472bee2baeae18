"""Ending matches early and enforcing clocks: the appends behind ``domain.controls`` and
``domain.clocks``, shared by the API (organiser controls), the in-process clock runner
(embedded mode) and the RQ ``clocks`` job (real mode).

Every append here uses the expected version it read, so running a timeout check twice
appends nothing the second time; every successful append is passed to
``service.usecases.lifecycle.notify``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from domain import controls
from domain.clocks import Clock, auto_action
from domain.errors import RuleError
from domain.events import Event
from domain.fairness import SEED_REVEALED, MatchSecrets
from domain.family import Family
from domain.variants import VARIANTS
from service.adapters.codec import fold_clock, to_store
from service.adapters.jobs import QUEUES, JobQueue
from service.adapters.store import GENESIS_HASH, RedisEventStore, StoredEvent, VersionConflict
from service.usecases.lifecycle import notify

ATTEMPTS = 5
TIMEOUT_REASON = "time ran out"
AUTO_MOVES = 4
"""At most this many automatic moves per timeout (gin: draw, then discard)."""


@dataclass(frozen=True)
class Current:
    """A match as it stands in the store: folded state and clock, and its head."""

    family: Family
    state: Any
    clock: Clock | None
    stored: list[StoredEvent]
    meta: dict[str, str]

    @property
    def version(self) -> int:
        return len(self.stored)

    @property
    def last_hash(self) -> str:
        return self.stored[-1].hash if self.stored else GENESIS_HASH


def current(store: RedisEventStore, match_id: str) -> Current | None:
    """The match read and folded afresh; None when unknown."""
    meta = store.meta(match_id)
    if meta is None:
        return None
    family = VARIANTS[meta["variant"]]
    stored = store.read(match_id)
    state, clock = fold_clock(family, family.initial_state(), None, stored)
    return Current(family, state, clock, stored, meta)


def secrets_of(meta: dict[str, str]) -> MatchSecrets:
    return MatchSecrets(bytes.fromhex(meta["seed"]), tuple(json.loads(meta.get("entropy", "[]"))))


def ending_events(now: Current, control: controls.Control) -> list[Event]:
    """The control's event after the reveals that keep the log verifiable: the current
    hand's seed (unless already revealed) and the match seed (docs/fairness.md)."""
    decided = controls.decide(now.state, control, now.family.low_scores_win)
    secrets = secrets_of(now.meta)
    hand = getattr(now.state, "hand_number", 0)
    revealed = {e.data.get("hand_number") for e in now.stored if e.type == SEED_REVEALED}
    events = [secrets.revealed(hand)] if hand and hand not in revealed else []
    return events + [secrets.match_revealed()] + decided


def end_match(store: RedisEventStore, match_id: str, control: controls.Control,
              command_id: str) -> tuple[StoredEvent, ...]:
    """Append the control (``RuleError`` when the match is over); retried on lost races."""
    conflict: VersionConflict | None = None
    for _ in range(ATTEMPTS):
        now = current(store, match_id)
        if now is None:
            raise RuleError("match_not_found", f"no match {match_id!r}")
        events = ending_events(now, control)
        try:
            result = store.append(match_id, now.version, to_store(events),
                                  command_id=command_id, prev_hash=now.last_hash,
                                  command=controls.stored_command(control))
        except VersionConflict as exc:
            conflict = exc
            continue
        notify(store, match_id, result.events)
        return result.events
    assert conflict is not None
    raise conflict


# --- timeouts ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timeout:
    """What a timeout check did: the events it appended, or when to look again."""

    appended: tuple[StoredEvent, ...] = ()
    not_before: float | None = None


def check_timeout(store: RedisEventStore, match_id: str, turn_version: int,
                  now: float) -> Timeout:
    """Apply the clock's ``on_timeout`` if the turn that started at ``turn_version`` is
    still running and its deadline has passed at ``now``; otherwise append nothing."""
    appended: list[StoredEvent] = []
    moves = 0
    for _ in range(ATTEMPTS + AUTO_MOVES):
        match = current(store, match_id)
        clock = match.clock if match else None
        if match is None or clock is None or clock.started_version != turn_version:
            break
        if not clock.expired(now):
            return Timeout(tuple(appended), clock.deadline)
        if moves == AUTO_MOVES:
            break
        try:
            appended += _time_out(store, match_id, match, clock)
        except VersionConflict:
            continue
        moves += 1
    return Timeout(tuple(appended))


def _time_out(store: RedisEventStore, match_id: str, match: Current,
              clock: Clock) -> tuple[StoredEvent, ...]:
    """One automatic move for the seat, or its forfeit (also when no safe move exists)."""
    seat = clock.seat
    assert seat is not None
    family, state = match.family, match.state
    prefix = f"clock:{seat}:{clock.started_version}"
    if clock.settings.on_timeout == "auto_play":
        view = family.view(state, seat)
        action = auto_action(family.legal_actions(state, seat),
                             (view.get("best_discard") or {}).get("cards"))
        if action is not None:
            try:
                events = family.decide(state, family.command(seat, action))
            except RuleError:
                events = []
            if events:
                result = store.append(match_id, match.version, to_store(events),
                                      command_id=f"{prefix}:{match.version}",
                                      prev_hash=match.last_hash,
                                      command={"seat": seat, "action": action, "auto": True})
                notify(store, match_id, result.events)
                return result.events
    control = controls.ForfeitSeat(seat, TIMEOUT_REASON, "clock")
    result = store.append(match_id, match.version, to_store(ending_events(match, control)),
                          command_id=f"{prefix}:forfeit", prev_hash=match.last_hash,
                          command=controls.stored_command(control))
    notify(store, match_id, result.events)
    return result.events


def on_timeout(store: RedisEventStore, jobs: JobQueue, match_id: str, turn_version: int,
               now: float) -> Timeout:
    """``check_timeout``, then what falls due after it: the job the match waits for (an
    automatic discard may end the hand) and the next turn's clock."""
    outcome = check_timeout(store, match_id, turn_version, now)
    if outcome.not_before is not None:
        jobs.schedule_clock(match_id, turn_version, outcome.not_before)
        return outcome
    if outcome.appended:
        follow_up(store, jobs, match_id)
    return outcome


def follow_up(store: RedisEventStore, jobs: JobQueue, match_id: str) -> None:
    """Queue the job the match waits for and schedule its running turn's timeout check."""
    match = current(store, match_id)
    if match is None:
        return
    job = match.family.awaiting_job(match.state)
    if job in QUEUES:
        jobs.enqueue(job, match_id, match.version)
    schedule(jobs, match_id, match.clock)


def schedule(jobs: JobQueue, match_id: str, clock: Clock | None) -> None:
    """Schedule the timeout check of the running turn, if the match has a clock."""
    if clock is not None and clock.deadline is not None:
        jobs.schedule_clock(match_id, clock.started_version, clock.deadline)


def schedule_current(store: RedisEventStore, jobs: JobQueue, match_id: str) -> None:
    """``schedule`` for the match as it stands in the store."""
    match = current(store, match_id)
    if match is not None:
        schedule(jobs, match_id, match.clock)
