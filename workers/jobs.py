"""RQ job functions: score an ended hand (and deal the next), apply end-of-match bonuses.

Jobs take ids, load the events, call the pure domain and append with the expected
version. Running a job twice changes nothing: the second run finds the match no longer
waiting for it. Exceptions reach RQ, so failures land in RQ's failed-job registry.
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis
from rq import get_current_job

from domain.audit import duplicate_deals, verify
from domain.events import Event
from domain.fairness import MatchSecrets
from domain.family import Family
from domain.variants import VARIANTS
from service.adapters.codec import fold, to_store
from service.adapters.jobs import QUEUES, JobQueue
from service.adapters.store import (
    RedisEventStore,
    StoredEvent,
    VerificationReports,
    VersionConflict,
)
from service.usecases import controls
from service.usecases.lifecycle import notify

ATTEMPTS = 5


def run_scoring(match_id: str, prefix: str = "rummy", inline: bool = False) -> int:
    """Record the ended hand's score and deal the next hand; queue bonuses at the target."""
    return _run("scoring", match_id, prefix, inline)


def run_bonuses(match_id: str, prefix: str = "rummy", inline: bool = False) -> int:
    """Record the end-of-match bonuses and final totals."""
    return _run("bonuses", match_id, prefix, inline)


def run_replay(match_id: str, verification_id: str, prefix: str = "rummy") -> bool:
    """Rebuild the match from its whole log, verify it (``domain.audit``), file the report."""
    current = get_current_job()
    if current is None:
        raise RuntimeError("workers.jobs functions run inside an RQ job")
    store = RedisEventStore(current.connection, prefix)
    reports = VerificationReports(store)
    reports.save(match_id, verification_id, {"status": "running"})
    records = [event.to_dict() for event in store.read(match_id)]
    verdict = verify(records, VARIANTS)
    partner = (store.meta(match_id) or {}).get("duplicate_partner")
    if partner:
        partner_records = [event.to_dict() for event in store.read(partner)]
        check = duplicate_deals(records, partner_records, partner)
        verdict.checks[check.name] = check
    report = verdict.to_dict()
    reports.save(match_id, verification_id, {"status": "finished", "report": report})
    return bool(report["ok"])


def _run(job: str, match_id: str, prefix: str, inline: bool) -> int:
    current = get_current_job()
    if current is None:
        raise RuntimeError("workers.jobs functions run inside an RQ job")
    connection: redis.Redis = current.connection
    store = RedisEventStore(connection, prefix)
    outcome = _advance(store, match_id, job)
    if outcome is None:
        return 0
    family, state, version, appended = outcome
    follow_up = family.awaiting_job(state)
    jobs = JobQueue(connection, prefix, run_inline=inline)
    if follow_up in QUEUES:
        jobs.enqueue(follow_up, match_id, version)
    if appended:
        controls.schedule_current(store, jobs, match_id)  # a new deal starts a turn
    return len(appended)


def run_clock(match_id: str, turn_version: int, prefix: str = "rummy",
              inline: bool = False) -> int:
    """Time out the turn that started at ``turn_version`` if it is still running and its
    deadline has passed (``service.usecases.controls``); a check that came early raises, so RQ
    retries it."""
    current = get_current_job()
    if current is None:
        raise RuntimeError("workers.jobs functions run inside an RQ job")
    store = RedisEventStore(current.connection, prefix)
    jobs = JobQueue(current.connection, prefix, run_inline=inline)
    outcome = controls.on_timeout(store, jobs, match_id, turn_version, time.time())
    if outcome.not_before is not None and not inline:
        raise ClockNotDue(f"match {match_id}: the turn's deadline is {outcome.not_before}")
    return len(outcome.appended)


class ClockNotDue(RuntimeError):
    """A timeout check ran before the deadline (clocks differ): RQ's retry runs it again."""


def job_events(family: Family, state: Any, job: str, secrets: MatchSecrets) -> list[Event]:
    """The events ``job`` appends: its own, the seed reveal that ends a hand or a match,
    then the next deal when one falls due."""
    ended = state.hand_number
    events = list(family.decide(state, family.job_command(job, state, None)))
    for event in events:
        state = family.evolve(state, event)
    if job == "scoring":
        events.append(secrets.revealed(ended))
    if job == "bonuses":
        events.insert(0, secrets.match_revealed())
    if family.awaiting_job(state) == "deal":
        deal = family.deal_for(state.options, secrets, state.hand_number + 1)
        events += family.decide(state, family.job_command("deal", state, deal))
    return events


def match_secrets(meta: dict[str, str]) -> MatchSecrets:
    """The secrets kept in a match's meta: its seed and the players' entropy."""
    return MatchSecrets(bytes.fromhex(meta["seed"]), tuple(json.loads(meta.get("entropy", "[]"))))


def advance(store: RedisEventStore, match_id: str, job: str) -> tuple[StoredEvent, ...]:
    """Do ``job`` for the match if it still waits for it; () when there is nothing to do."""
    outcome = _advance(store, match_id, job)
    return outcome[3] if outcome else ()


def _advance(store: RedisEventStore, match_id: str,
             job: str) -> tuple[Family, Any, int, tuple[StoredEvent, ...]] | None:
    """(family, state after, version after, appended events), or None for an unknown match."""
    meta = store.meta(match_id)
    if meta is None:
        return None
    family = VARIANTS[meta["variant"]]
    secrets = match_secrets(meta)
    for _ in range(ATTEMPTS):
        stored = store.read(match_id)
        state = fold(family, family.initial_state(), stored)
        if family.awaiting_job(state) != job:
            return family, state, len(stored), ()
        events = job_events(family, state, job, secrets)
        try:
            result = store.append(match_id, len(stored),
                                  to_store(events),
                                  command_id=f"job:{job}:{len(stored)}")
        except VersionConflict:
            continue
        notify(store, match_id, result.events)
        return family, fold(family, state, result.events), result.version, result.events
    raise RuntimeError(f"{job} for match {match_id} lost {ATTEMPTS} races in a row")
