"""The one command runner: load, decide, append with the expected version, notify, follow up.

Every write to a match goes through ``CommandRunner.run``, whoever sends the command: a
seat, a system step, an organiser, a clock, a computer player; every write to a tournament
through a second runner of the same class over the tournaments' repository (the runner is
generic over ``domain.aggregate.Aggregate``). A lost race (another writer appended first) is
decided again on the newer version when the command allows it, else it is a ``Conflict``.
After a successful append (and after a match's creation, ``created``) the subscribers hear
of it (``service.usecases.subscribers``: feed and webhooks, retention, presence) and the
follow-up sees to what the match owes now (``Match.owed``: the system step it awaits, the
running turn's clock) through the ``FollowUp`` the bootstrap wired: the work index and
workers in real mode, in-process in embedded mode.

Retries of one idempotency key get the first request's answer: the first request claims
the key while it is in flight; a retry that arrives meanwhile waits (bounded) for its
outcome instead of deciding again; the outcome (the version its events reached, or the
refusal it got) is kept with the match.

The runner tells a ``RunObserver`` (``service.ports``: the bootstrap gives it the server's
``Metrics``) what it does at each of those points: an append, a lost race, a decision
made again, an answer given again for a retried key.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol

from domain.aggregate import A, Aggregate
from domain.errors import RuleError
from service.codec import to_store
from service.ports import (
    UNMEASURED,
    Appending,
    AppendResult,
    EventStore,
    IdempotencyRecord,
    RunObserver,
    StoredEvent,
    UnknownMatch,
    VersionConflict,
)
from service.usecases import errors
from service.usecases.commands import Command
from service.usecases.errors import AppError, Conflict, Rejected
from service.usecases.repository import Repository
from service.usecases.subscribers import Appended, Subscribers

ATTEMPTS = 5
CLAIM_TTL_MS = 4_000
"""How long an idempotency key stays claimed by a request that never finishes: it died, or
the store went away under it. A request takes milliseconds; should one outlive its claim,
the append script still records one outcome per key."""
WAIT_FOR_FIRST_S = 10.0
"""How long a retry waits for the request in flight with its key before giving up (409);
longer than a claim lives, so a retry after a request that died goes ahead."""


@dataclass(frozen=True)
class Outcome(Generic[A]):
    """What a run did: the aggregate after it (as found when nothing was appended), the
    events appended, and for a retried idempotency key the version its first request
    reached."""

    aggregate: A
    appended: tuple[StoredEvent, ...] = ()
    replayed: int | None = None


@dataclass(frozen=True)
class Idempotency:
    """A client's idempotency key, scoped to its seat, and the fingerprint of its request."""

    key: str
    fingerprint: str


@dataclass(frozen=True)
class _Decided(Generic[A]):
    """One command of ``run_many`` decided, before its append."""

    match_id: str
    command: Command[A]
    match: A
    decision: Any
    ahead: Any

    def appending(self) -> Appending:
        return Appending(self.match_id, self.match.version, tuple(to_store(self.decision.events)),
                         self.decision.command_id, self.match.head_hash, self.decision.command)


class FollowUp(Protocol):
    """The work an append leaves to do, scheduled by the runner."""

    def expect(self, match_id: str, ahead: Any) -> None:
        """Before the append: note what the aggregate is about to owe (``ahead.owed``), so
        a process that dies right after the append still leaves it findable."""

    def after(self, match_id: str, match: Aggregate) -> None:
        """After the append (or the creation): schedule what the aggregate owes now
        (its ``owed``), each kind as the table of obligations says
        (``service.usecases.obligations``)."""


REFUSALS: dict[str, Callable[..., Exception]] = {
    "RuleError": RuleError,
    **{cls.__name__: cls for cls in (errors.Invalid, errors.Unauthenticated, errors.Forbidden,
                                     errors.NotFound, errors.Conflict, errors.Rejected)},
}
"""Refusals kept for idempotency keys, by kind, to raise again for a retry."""


class CommandRunner(Generic[A]):
    """Runs commands against one kind of aggregate; one instance per kind and process,
    thread-safe."""

    def __init__(self, repository: Repository[A], subscribers: Subscribers, follow_up: FollowUp,
                 *, sleep: Callable[[float], None] = time.sleep,
                 observer: RunObserver = UNMEASURED) -> None:
        self.repository = repository
        self.store: EventStore = repository.store
        self.subscribers = subscribers
        self.follow_up = follow_up
        self.observer = observer
        self._sleep = sleep
        self._kind = repository.kind.name

    def run(self, match_id: str, command: Command[A], *, expected_version: int | None = None,
            idempotency: Idempotency | None = None, loaded: A | None = None) -> Outcome[A]:
        """Execute ``command``; ``expected_version`` (If-Match) turns a moved match into a
        ``Conflict`` instead of a new decision. ``loaded``: the match as its caller has just
        read it, decided on first instead of reading it again (a worker loads its batch
        at once); should it have moved since, the append says so and the run reads anew."""
        if idempotency is None:
            return self._run(match_id, command, expected_version, None, loaded)
        return self._once(match_id, command, expected_version, idempotency)

    def _run(self, match_id: str, command: Command[A], expected_version: int | None,
             idempotency: Idempotency | None, loaded: A | None = None) -> Outcome[A]:
        for attempt in range(ATTEMPTS):
            if attempt:
                self.observer.retried(self._kind)
            match = loaded if loaded is not None and not attempt else self.repository.get(match_id)
            if expected_version is not None and expected_version != match.version:
                raise Conflict("version_conflict", f"the match is at version {match.version}, "
                                                   f"not {expected_version}")
            decision = command.decide(match, self.repository.context(match_id))
            if decision is None or not decision.events:
                return Outcome(match)
            decided = self.repository.decided(match, decision.events)
            self.follow_up.expect(match_id, decided)
            try:
                result = self.store.append(
                    match_id, match.version, to_store(decision.events),
                    command_id=decision.command_id, prev_hash=match.head_hash,
                    command=decision.command,
                    idempotency_key=idempotency.key if idempotency else None,
                    fingerprint=idempotency.fingerprint if idempotency else "")
            except VersionConflict as exc:
                self.observer.conflicted(self._kind)
                if expected_version is not None or not command.retry_on_conflict:
                    raise Conflict("version_conflict", str(exc)) from exc
                continue
            except UnknownMatch as exc:  # deleted meanwhile (embedded retention)
                raise self.repository.kind.not_found(match_id) from exc
            if result.replayed:
                self.observer.replayed(self._kind)
                return Outcome(self.repository.at(match_id, result.version),
                               replayed=result.version)
            self.observer.appended(self._kind, len(result.events))
            after = self.repository.saved(match_id, match, decided, result.events)
            self._written(Appended(match_id, result.events, after, decision.command))
            return Outcome(after, result.events)
        raise Conflict("version_conflict", "the match kept changing; re-read and retry")

    def run_many(self, commands: Sequence[tuple[str, Command[A], A]]
                 ) -> dict[str, Outcome[A] | Exception]:
        """Run one command on each of many aggregates, each decided on the aggregate its
        caller has just loaded: a worker paying the batch it claimed. The appends go in one
        round trip (``EventStore.append_many``) and the subscribers hear of them together
        (``Subscribers.publish_many``); a command whose aggregate moved meanwhile is run
        again alone, on the newer version. Each id's answer is its outcome, or the error
        ``run`` would have raised for it."""
        answers: dict[str, Outcome[A] | Exception] = {}
        decided: list[_Decided[A]] = []
        for match_id, command, match in commands:
            try:
                made = self._decide(match_id, command, match)
            except Exception as exc:  # noqa: BLE001 - that command's answer, not the batch's
                answers[match_id] = exc
                continue
            if made is None:
                answers[match_id] = Outcome(match)
            else:
                decided.append(made)
        results = self.store.append_many([each.appending() for each in decided])
        written: list[Appended[A]] = []
        for each, result in zip(decided, results, strict=True):
            answers[each.match_id] = self._stored(each, result, written)
        self.subscribers.publish_many(written)
        for appended in written:
            self.follow_up.after(appended.aggregate_id, appended.aggregate)
        return answers

    def _decide(self, match_id: str, command: Command[A], match: A) -> _Decided[A] | None:
        """Decide on ``match`` and note what it is about to owe (as ``_run`` does)."""
        decision = command.decide(match, self.repository.context(match_id))
        if decision is None or not decision.events:
            return None
        ahead = self.repository.decided(match, decision.events)
        self.follow_up.expect(match_id, ahead)
        return _Decided(match_id, command, match, decision, ahead)

    def _stored(self, each: _Decided[A], result: AppendResult | Exception,
                written: list[Appended[A]]) -> Outcome[A] | Exception:
        """One append of ``run_many``'s batch: saved and queued for the subscribers, or run
        again alone after a lost race, or its error."""
        if isinstance(result, VersionConflict):
            self.observer.conflicted(self._kind)
            try:
                return self._run(each.match_id, each.command, None, None)
            except Exception as exc:  # noqa: BLE001 - that command's answer
                return exc
        if isinstance(result, UnknownMatch):
            return self.repository.kind.not_found(each.match_id)
        if isinstance(result, Exception):
            return result
        self.observer.appended(self._kind, len(result.events))
        after = self.repository.saved(each.match_id, each.match, each.ahead, result.events)
        written.append(Appended(each.match_id, result.events, after, each.decision.command))
        return Outcome(after, result.events)

    def created(self, match_id: str, events: tuple[StoredEvent, ...]) -> A:
        """An aggregate's first write (a match's creation, or the claim that fills its last
        open seat; a tournament's creation) ends as every append does: the subscribers hear
        of it, then the follow-up sees to what it owes from the start."""
        match = self.repository.get(match_id)
        self._written(Appended(match_id, events, match))
        return match

    def _written(self, appended: Appended[A]) -> None:
        """After a write: the subscribers, then the follow-up, which schedules what the
        match owes now; the work itself runs elsewhere (a worker, or the embedded mode's
        timer thread), not in the write's own call (but for the tests' ``pay_inline``,
        ``service.usecases.background``)."""
        self.subscribers.publish(appended)
        self.follow_up.after(appended.aggregate_id, appended.aggregate)

    # --- idempotency -------------------------------------------------------------------

    def _once(self, match_id: str, command: Command[A], expected_version: int | None,
              idempotency: Idempotency) -> Outcome[A]:
        deadline = time.monotonic() + WAIT_FOR_FIRST_S
        delay = 0.005
        while True:
            recorded = self.store.idempotency_outcome(match_id, idempotency.key)
            if recorded is not None:
                return self._answer_again(match_id, recorded, idempotency)
            if self.store.claim_idempotency(match_id, idempotency.key, CLAIM_TTL_MS):
                return self._first(match_id, command, expected_version, idempotency)
            if time.monotonic() > deadline:
                raise Conflict("request_in_flight", "a request with this Idempotency-Key is "
                                                    "still in flight; retry later")
            self._sleep(delay)
            delay = min(delay * 2, 0.1)

    def _first(self, match_id: str, command: Command[A], expected_version: int | None,
               idempotency: Idempotency) -> Outcome[A]:
        """The key's first request: its outcome, success or refusal, is kept for retries.

        The claim may have come just after another request with the key finished and let
        its claim go: then that one was the first, and its outcome is the answer.
        """
        try:
            recorded = self.store.idempotency_outcome(match_id, idempotency.key)
            if recorded is None:
                return self._decide_once(match_id, command, expected_version, idempotency)
        finally:
            self.store.release_idempotency(match_id, idempotency.key)
        return self._answer_again(match_id, recorded, idempotency)

    def _decide_once(self, match_id: str, command: Command[A], expected_version: int | None,
                     idempotency: Idempotency) -> Outcome[A]:
        try:
            return self._run(match_id, command, expected_version, idempotency)
        except (AppError, RuleError) as exc:
            self.store.record_refusal(match_id, idempotency.key, idempotency.fingerprint,
                                      refusal_of(exc))
            raise

    def _answer_again(self, match_id: str, recorded: IdempotencyRecord,
                      idempotency: Idempotency) -> Outcome[A]:
        if recorded.fingerprint != idempotency.fingerprint:
            raise Rejected("idempotency_key_reused",
                           "this Idempotency-Key was used for a different action")
        self.observer.replayed(self._kind)
        if recorded.refusal is not None:
            raise refused(recorded.refusal)
        assert recorded.version is not None
        return Outcome(self.repository.at(match_id, recorded.version),
                       replayed=recorded.version)


def refusal_of(exc: AppError | RuleError) -> dict[str, Any]:
    """What is kept of a refusal to give it again (``refused``)."""
    record: dict[str, Any] = {"kind": type(exc).__name__, "code": exc.code,
                              "message": exc.message}
    if isinstance(exc, AppError) and exc.errors:
        record["errors"] = dict(exc.errors)
    return record


def refused(record: dict[str, Any]) -> Exception:
    """The refusal ``refusal_of`` kept, as the exception the first request raised."""
    kind = REFUSALS.get(record.get("kind", ""), errors.Rejected)
    if kind is RuleError:
        return RuleError(record["code"], record["message"])
    return kind(record["code"], record["message"], record.get("errors"))


def fingerprint_of(*request: Any) -> str:
    """A request's fingerprint, kept with its idempotency key: the same key with another
    request is refused (``idempotency_key_reused``)."""
    return hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()


def command_id(prefix: str, key: str | None = None) -> str:
    """A command id for the log: the idempotency key when there is one, else a fresh id."""
    return f"{prefix}:{key or uuid.uuid4().hex}"

