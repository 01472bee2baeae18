"""Verify a match's log without trusting the server: the hash chain, every deal, every rule.

The input is the exported log (``GET /v1/matches/{id}/export``, one JSON record per
event). The checks:

- ``hash_chain``: versions run 1, 2, 3, ...; each ``prev_hash`` is the previous event's
  hash; each hash recomputes (``domain.chain``). A changed, removed or reordered event
  fails at its version.
- ``deals``: each deal's commitment is SHA-256 of its seed, the seed revealed at the
  hand's end is that seed, and the deck is the match deck shuffled from it
  (``domain.fairness``) unless the organiser prepared it. At the match's end the
  revealed match seed matches its commitment and yields every hand seed (with the
  players' entropy) and the drawn first dealer.
- ``rules``: every seat's events are exactly what the rules make of the action it sent,
  sent by whoever holds the seat (a bot's command names the level ``BotsSeated`` gave the
  seat, a person's none); an organiser's forfeit or abort (``organiser:`` commands) is what
  ``domain.controls.ending_events`` makes of it; a clock's move or forfeit (``clock:``)
  came after the seat's deadline as the log's timestamps give it, and is the move, command
  and command id ``domain.clocks.decide_timeout`` makes of it.
- ``scores``: every job's events (hand scores, the next deal, the match's bonuses) are
  exactly what ``domain.steps.decide_step`` computes afresh.
- a rematch's offers, acceptances and decline (``rematch:`` commands) come after the
  match's end and are what ``domain.rematch.decide`` makes of each seat's answer; a
  rematch's own log names the match it follows at its creation only.

The server appends with these same functions; the verifier feeds them the reveals and the
deal the log recorded (``RecordedSecrets``). In a log that committed to a match seed the
reveals are compared too, so a reveal left out or out of place fails like a wrong score.

Events an export redacted (hands not yet revealed) cannot be recomputed; they still link
into the chain, and the report says from which version the rule checks stopped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from domain import controls, rematch
from domain.aggregate import Recorded
from domain.chain import GENESIS_HASH, event_hash
from domain.clocks import decide_timeout
from domain.errors import OptionError, RuleError
from domain.events import (
    BOTS_SEATED,
    CLOCK_SET,
    HAND_DEALT,
    MATCH_CREATED,
    MATCH_SEED_REVEALED,
    REMATCH_CREATED,
    REMATCH_STARTED,
    RULES_EDITIONS,
    SEED_COMMITTED,
    SEED_REVEALED,
    Event,
    names,
)
from domain.evolving import folded
from domain.fairness import Deal, commitment, hand_seed, shuffled_deck
from domain.match import Match
from domain.shuffle import choose
from domain.steps import SystemStep, decide_step
from domain.upcasting import upcast
from domain.variant import Variant

Record = Mapping[str, Any]
CHECKS = ("hash_chain", "deals", "rules", "scores")
REVEALS = names(SEED_REVEALED, MATCH_SEED_REVEALED)
SETTINGS = names(CLOCK_SET, BOTS_SEATED, REMATCH_CREATED)
"""The match's clock, its bot seats and the match it is a rematch of: no rule recomputes
them, and only its creation may set them."""


@dataclass
class Check:
    """One check's outcome: how many things it checked and the first that failed."""

    name: str
    checked: int = 0
    failure: dict[str, Any] | None = None
    skipped: list[str] = field(default_factory=list)

    def fail(self, version: int | None, reason: str) -> None:
        if self.failure is None:
            self.failure = {"version": version, "reason": reason}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.failure is None, "checked": self.checked,
                "first_failure": self.failure, "notes": self.skipped}


@dataclass
class Report:
    """The verdict on one log: per check, and the first failing version overall."""

    variant: str | None
    events: int
    checks: dict[str, Check]
    final_phase: str | None = None

    @property
    def ok(self) -> bool:
        return all(check.failure is None for check in self.checks.values())

    @property
    def first_failing_version(self) -> int | None:
        versions = [c.failure["version"] for c in self.checks.values()
                    if c.failure is not None and c.failure["version"] is not None]
        return min(versions) if versions else None

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "variant": self.variant, "events": self.events,
                "final_phase": self.final_phase,
                "first_failing_version": self.first_failing_version,
                "checks": [check.to_dict() for check in self.checks.values()]}


def verify(records: Sequence[Record], variants: Mapping[str, Variant]) -> Report:
    """Check an exported log; ``variants`` maps variant names to families."""
    report = Report(None, len(records), {name: Check(name) for name in CHECKS})
    check_chain(records, report.checks["hash_chain"])
    if not records or records[0].get("type") != MATCH_CREATED.name:
        report.checks["rules"].fail(1, f"the log does not start with {MATCH_CREATED.name}")
        return report
    report.variant = records[0]["data"].get("variant")
    variant = variants.get(report.variant or "")
    if variant is None:
        report.checks["rules"].fail(1, f"unknown variant {report.variant!r}")
        return report
    _Replayer(variant, records, report).run()
    return report


def check_chain(records: Sequence[Record], check: Check) -> None:
    previous = GENESIS_HASH
    for index, record in enumerate(records, start=1):
        check.checked += 1
        version = record.get("version")
        if version != index:
            check.fail(index, f"expected version {index}, found {version!r}: "
                              "an event was removed, added or reordered")
            return
        if record.get("prev_hash") != previous:
            check.fail(index, "prev_hash is not the previous event's hash")
            return
        if not record.get("redacted") and _rehash(record) != record.get("hash"):
            check.fail(index, "the event's hash does not match its content")
            return
        previous = record.get("hash", "")


def _rehash(record: Record) -> str | None:
    try:
        return event_hash(record["version"], record["type"], record["schema"], record["data"],
                          record.get("command_id"), record["ts"], record["prev_hash"],
                          record.get("command"))
    except (KeyError, TypeError, ValueError):
        return None


def event_of(record: Record) -> Event:
    """A record's event in its current shape (older schemas upcast)."""
    return upcast(Event(record["type"], record["data"], record["schema"]))


SEED_FIELDS = frozenset({"seed", "commitment", "prepared"})
"""A deal's seed fields are the ``deals`` check's business; the rules check the rest."""


def _comparable(event: Event) -> tuple[str, dict[str, Any]]:
    data = {k: v for k, v in event.data.items() if not (event.type == HAND_DEALT.name
                                                        and k in SEED_FIELDS)}
    return event.type, data


def _same(recorded: Sequence[Event], expected: Sequence[Event]) -> int | None:
    """Index of the first recorded event that differs from the recomputed ones, else None."""
    for index in range(max(len(recorded), len(expected))):
        if index >= len(recorded) or index >= len(expected):
            return index
        if _comparable(recorded[index]) != _comparable(upcast(expected[index])):
            return index
    return None


class _Replayer:
    """Walks the log command by command, recomputing what each command should have made."""

    def __init__(self, variant: Variant, records: Sequence[Record], report: Report) -> None:
        self.variant, self.records, self.report = variant, records, report
        self.checks = report.checks
        self.match = Match.new(variant)
        self.options: Any = None
        self.deal_seeds: dict[int, str | None] = {}
        self.revealed: dict[int, str] = {}
        self.entropy: list[str] = []
        self.seed_commitment: str | None = None
        self.players = 0
        self.first_dealer: int | None = None

    def run(self) -> None:
        for command_id, group in groupby(self.records, key=lambda r: r.get("command_id")):
            records = list(group)
            if any(r.get("redacted") for r in records):
                self._stop(records[0]["version"], "redacted events (hands not yet revealed)")
                break
            try:
                self._command(str(command_id or ""), records)
            except (RuleError, OptionError, KeyError, TypeError, ValueError, IndexError,
                    AttributeError) as exc:
                self.checks["rules"].fail(records[0]["version"],
                                          f"cannot replay: {type(exc).__name__}: {exc}")
                break
        self.report.final_phase = getattr(self.match.state, "phase", None)
        self._check_match_seed()

    def _stop(self, version: int, why: str) -> None:
        for name in ("rules", "scores", "deals"):
            self.checks[name].skipped.append(f"not checked from version {version}: {why}")

    def _command(self, command_id: str, records: list[Record]) -> None:
        events = [event_of(r) for r in records]
        for record, event in zip(records, events, strict=True):
            self._note_audit(record["version"], event)
        for record, event in zip(records, events, strict=True):
            if event.type == HAND_DEALT.name:
                self._check_deal(record["version"], record["schema"], event)
            if event.type in SETTINGS and not command_id.startswith("create:"):
                self.checks["rules"].fail(record["version"], f"{event.type} after the "
                                          "match's creation: its settings are fixed then")
        expected, check = self._expected(command_id, records, events)
        self._compare(command_id, records, events, expected, check)
        self.match = self.match.apply([
            Recorded(event, record["version"], float(record["ts"]), record.get("hash", ""))
            for record, event in zip(records, events, strict=True)])

    def _expected(self, command_id: str, records: list[Record],
                  events: list[Event]) -> tuple[list[Event], str]:
        """What the command should have appended, and the check that judges it."""
        played = [e for e in events if folded(e)]
        if command_id.startswith("create:"):
            return self._created(played), "rules"
        if command_id.startswith("seat"):
            return self._seat_action(command_id, records[0], played), "rules"
        if command_id.startswith("job:"):
            return self._job(command_id.split(":")[1], events), "scores"
        if command_id.startswith("organiser:"):
            return self._control(records[0], "organiser", events), "rules"
        if command_id.startswith("resign:"):
            return self._control(records[0], "seat", events), "rules"
        if command_id.startswith("clock:"):
            return self._clocked(command_id, records[0], events), "rules"
        if command_id.startswith("rematch:"):
            self._rematch(command_id, records[0], events)
            return played, "rules"
        self.checks["rules"].skipped.append(
            f"version {records[0]['version']}: no rule to recompute {command_id!r}")
        return played, "rules"

    def _compare(self, command_id: str, records: list[Record], events: list[Event],
                 expected: list[Event], check: str) -> None:
        self.checks[check].checked += 1
        recorded = [(r["version"], e) for r, e in zip(records, events, strict=True)
                    if self._compared(e)]
        differs = _same([e for _, e in recorded], [e for e in expected if self._compared(e)])
        if differs is not None:
            version = recorded[differs][0] if differs < len(recorded) else records[-1]["version"]
            self.checks[check].fail(version, f"recorded events differ from what the rules "
                                             f"make of {command_id!r}")

    def _compared(self, event: Event) -> bool:
        """Game events always; the seed reveals too once the log committed to a match seed
        (older logs have none), so a reveal left out or misplaced fails like a wrong score."""
        if event.type in REVEALS:
            return self.seed_commitment is not None
        return folded(event)

    # --- recomputing -------------------------------------------------------------------

    def _created(self, played: list[Event]) -> list[Event]:
        created = played[0].data
        names = list(created["players"])
        self.players = len(names)
        self.options = self.variant.parse_options(created["options"], len(names))
        self.first_dealer = created["first_dealer"]
        deal = recorded_deal(played)
        edition = created["rules_edition"]
        if edition not in RULES_EDITIONS:
            raise RuleError("unknown_rules_edition", f"rules edition {edition!r} is not one "
                                                     f"of {list(RULES_EDITIONS)}")
        return self.variant.start_match(names, self.options, created["first_dealer"], deal,
                                        rules_edition=edition)

    def _seat_action(self, command_id: str, first: Record, played: list[Event]) -> list[Event]:
        sent = first.get("command")
        if isinstance(sent, Mapping):
            seat = int(sent["seat"])
            if command_id:
                self._check_player(command_id, first, seat, sent.get("bot"))
            command = self.variant.command(seat, sent["action"])
            return self.variant.decide(self.match.state, command)
        return self._inferred_action(int(command_id[4:].split(":")[0]), played)

    def _check_player(self, command_id: str, first: Record, seat: int, bot: Any) -> None:
        """A seat's command comes from whoever holds the seat (``BotsSeated``): a bot's
        names its level, under the command id ``seat<n>:bot:<level>:<version>``, and a
        person's names none. Which move a bot chose is not re-checked: a bot decides as
        it likes, within the rules, which the move itself is held to."""
        held = self.match.bots.get(seat)
        level = None if held is None else held.level
        version = first["version"] - 1
        if bot != level:
            self.checks["rules"].fail(first["version"], f"seat {seat} is "
                                      f"{'a ' + level + ' bot' if level else 'a person'}'s, "
                                      f"but its command names {bot or 'no'} bot")
        elif level is not None and command_id != f"seat{seat}:bot:{level}:{version}":
            self.checks["rules"].fail(first["version"], f"a bot's command {command_id!r} is "
                                      f"not seat{seat}:bot:{level}:{version}")

    def _control(self, first: Record, by: str, events: list[Event]) -> list[Event]:
        """An organiser's forfeit or abort, the clock's forfeit or a seat's resignation:
        ``domain.controls``."""
        sent = first.get("command")
        control = controls.command_of(sent if isinstance(sent, Mapping) else {})
        if control.by != by:
            raise RuleError("invalid_command", f"a {by} command recorded as by {control.by}")
        return controls.ending_events(self.variant, self.match.state, control,
                                      RecordedSecrets(events))

    def _clocked(self, command_id: str, first: Record, events: list[Event]) -> list[Event]:
        """A timeout: only once the seat's deadline had passed (``domain.clocks``, from
        the log's timestamps); then what ``decide_timeout`` makes of it, under the command
        and command id it gives."""
        sent = first.get("command")
        clock = self.match.clock
        if not isinstance(sent, Mapping) or clock is None or clock.seat != sent.get("seat"):
            raise RuleError("invalid_command", "a clock command for a seat whose turn "
                                               "is not timed")
        decision = decide_timeout(self.variant, self.match.state, clock, first["version"] - 1,
                                  RecordedSecrets(events), float(first["ts"]))
        if decision is None:
            self.checks["rules"].fail(first["version"], f"the clock acted for seat "
                                      f"{clock.seat} at {first['ts']}, before its deadline "
                                      f"{clock.deadline}")
            return self._as_recorded(first, events)
        if (dict(sent), command_id) != (decision.command, decision.command_id):
            self.checks["rules"].fail(first["version"], f"the clock's command {command_id!r} "
                                      f"is not what the clock decides: "
                                      f"{decision.command_id!r} {decision.command}")
        return decision.events

    def _rematch(self, command_id: str, first: Record, events: list[Event]) -> None:
        """A seat's answer to the rematch: only once the match has ended, under the
        command id ``rematch:<seat>:<accept|decline>:<version>``, and exactly the events
        ``domain.rematch.decide`` makes of it (the new match's id as the log recorded
        it)."""
        self.checks["rules"].checked += 1
        sent = first.get("command")
        answer = rematch.answer_of(sent if isinstance(sent, Mapping) else {})
        version = first["version"]
        if command_id != f"rematch:{answer.seat}:{answer.kind}:{version - 1}":
            self.checks["rules"].fail(version, f"a rematch command {command_id!r} is not "
                                      f"rematch:{answer.seat}:{answer.kind}:{version - 1}")
        started = next((e.data.get("match_id") for e in events
                        if e.type == REMATCH_STARTED.name), "")
        match = self.match
        expected = rematch.decide(match.rematch, answer, match.state.phase,
                                  match.state.players, match.bots, str(started))
        if _same(events, expected) is not None or not expected:
            self.checks["rules"].fail(version, f"recorded events differ from what a "
                                      f"rematch makes of {command_id!r}")

    def _as_recorded(self, first: Record, events: list[Event]) -> list[Event]:
        """A clock command re-decided as it was recorded, when the clock had no say."""
        sent = first.get("command")
        if isinstance(sent, Mapping) and "control" in sent:
            return self._control(first, "clock", events)
        return self._seat_action("", first, [e for e in events if folded(e)])

    def _inferred_action(self, seat: int, played: list[Event]) -> list[Event]:
        """Logs written before commands were stored: some legal action must explain them."""
        note = "commands not in the log (older format): each seat's events were matched " \
               "against the actions legal at that point"
        if note not in self.checks["rules"].skipped:
            self.checks["rules"].skipped.append(note)
        for action in self.variant.legal_actions(self.match.state, seat):
            events = self.variant.decide(self.match.state, self.variant.command(seat, action))
            if _same(played, events) is None:
                return events
        return []

    def _job(self, job: str, events: list[Event]) -> list[Event]:
        """A system step (``domain.steps``), from the reveals and the deal it recorded."""
        step = SystemStep(job, self.match.state.hand_number)
        return decide_step(self.variant, self.match.state, step, RecordedSecrets(events))

    # --- fairness ----------------------------------------------------------------------

    def _note_audit(self, version: int, event: Event) -> None:
        if event.type == SEED_COMMITTED.name:
            self.seed_commitment = event.data.get("seed_commitment")
            self.entropy = list(event.data.get("entropy", []))
        elif event.type == SEED_REVEALED.name:
            hand, seed = event.data["hand_number"], event.data["seed"]
            self.revealed[hand] = seed
            self.checks["deals"].checked += 1
            if hand not in self.deal_seeds:
                self.checks["deals"].fail(version, f"hand {hand}'s seed revealed, never dealt")
            elif self.deal_seeds[hand] is not None and self.deal_seeds[hand] != seed:
                self.checks["deals"].fail(version, f"the seed revealed for hand {hand} is not "
                                                   "the one committed to at its deal")
        elif event.type == MATCH_SEED_REVEALED.name:
            self.revealed[0] = event.data["seed"]

    def _check_deal(self, version: int, schema: int, event: Event) -> None:
        data, check = event.data, self.checks["deals"]
        hand = data["hand_number"]
        self.deal_seeds[hand] = data.get("seed")
        if data.get("commitment") is None:
            check.skipped.append(f"hand {hand} (version {version}): no commitment "
                                 f"(schema {schema} deal)")
            return
        check.checked += 1
        if not data.get("seed"):
            check.fail(version, f"hand {hand}: the deal carries no seed")
            return
        seed = bytes.fromhex(data["seed"])
        if commitment(seed) != data["commitment"]:
            check.fail(version, f"hand {hand}: the seed does not match the deal's commitment")
        elif data.get("prepared"):
            check.skipped.append(f"hand {hand}: deck prepared by the organiser, not shuffled")
        elif self.options is not None or hand == 1:
            options = self.options or self._options_from_log()
            if tuple(data["deck"]) != shuffled_deck(self.variant.deck(options), seed):
                check.fail(version, f"hand {hand}: the deck is not the shuffle of its seed")

    def _options_from_log(self) -> Any:
        created = self.records[0]["data"]
        return self.variant.parse_options(created["options"], len(created["players"]))

    def _check_match_seed(self) -> None:
        check = self.checks["deals"]
        match_seed = self.revealed.get(0)
        if match_seed is None or self.seed_commitment is None:
            return
        check.checked += 1
        seed = bytes.fromhex(match_seed)
        version = next(r["version"] for r in self.records
                       if r["type"] == MATCH_SEED_REVEALED.name)
        if commitment(seed) != self.seed_commitment:
            check.fail(version, "the match seed does not match its commitment")
            return
        for hand, revealed in sorted(self.revealed.items()):
            if hand and hand_seed(seed, hand, self.entropy).hex() != revealed:
                check.fail(version, f"hand {hand}'s seed does not derive from the match seed")
        if getattr(self.options, "first_dealer", 0) is None and self.players:
            if choose(self.players, seed, "first_dealer") != self.first_dealer:
                check.fail(version, "the first dealer was not drawn from the match seed")


def recorded_deal(events: Sequence[Event]) -> Deal:
    """The Deal a recorded deal event claims; its seed and deck are checked separately."""
    dealt = next((e.data for e in events if e.type == HAND_DEALT.name), None)
    if dealt is None:
        return Deal((), b"")
    seed = bytes.fromhex(dealt["seed"]) if dealt.get("seed") else b""
    return Deal(tuple(dealt["deck"]), seed, bool(dealt.get("prepared")),
                dict(dealt.get("fixed") or {}))


@dataclass(frozen=True)
class RecordedSecrets:
    """``StepSecrets`` from what one command recorded: the verifier holds no secrets, so it
    takes the reveals and the deal as the log claims them. The ``deals`` check judges the
    claims; the rule checks judge whether they stand where the rules put them (a reveal the
    log lacks comes back with no seed, so the comparison finds it missing)."""

    events: Sequence[Event]

    def hand_revealed(self, hand_number: int) -> Event:
        return next((e for e in self.events if e.type == SEED_REVEALED.name
                     and e.data.get("hand_number") == hand_number),
                    SEED_REVEALED.event(hand_number=hand_number, seed=None))

    def match_revealed(self) -> Event:
        return next((e for e in self.events if e.type == MATCH_SEED_REVEALED.name),
                    MATCH_SEED_REVEALED.event(seed=None))

    def deal(self, variant: Variant, options: Any, hand_number: int) -> Deal:
        return recorded_deal(self.events)


def parse_ndjson(lines: Iterable[str]) -> list[dict[str, Any]]:
    """Records of an NDJSON export (blank lines ignored)."""
    return [json.loads(line) for line in lines if line.strip()]


def duplicate_deals(records: Sequence[Record], partner: Sequence[Record],
                    partner_id: str) -> Check:
    """A ``duplicate_deals`` check: every hand both tables dealt has the same deck and the
    same seed commitment (duplicate matches share their deals, RULES of issue 6)."""
    check = Check("duplicate_deals")

    def deals(log: Sequence[Record]) -> dict[int, Record]:
        return {r["data"]["hand_number"]: r for r in log
                if r.get("type") == HAND_DEALT.name and isinstance(r.get("data"), Mapping)}

    mine, theirs = deals(records), deals(partner)
    for hand in sorted(mine.keys() & theirs.keys()):
        check.checked += 1
        a, b = mine[hand]["data"], theirs[hand]["data"]
        if (a.get("commitment"), a.get("deck")) != (b.get("commitment"), b.get("deck")):
            check.fail(mine[hand]["version"],
                       f"hand {hand} was not dealt as at the partner table {partner_id}")
    check.skipped.append(f"compared with partner table {partner_id}: "
                         f"{check.checked} hand(s) dealt at both")
    return check
