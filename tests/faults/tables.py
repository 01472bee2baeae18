"""Matches played over HTTP for the fault tests, and the checks of their logs.

A prepared deck (the organiser's ``deck``) makes each variant's first hand end in two or
three actions; a low ``target`` (gin, gem) or ``rounds: 1`` (rummy, rami) makes that hand
end the match too. Gin and gem matches can play on: later hands are dealt from the seed
and played greedily from the seat views (knock when allowed, else the best discard).

Recovery is measured on the log (``GET /v1/matches/{id}/events``), never on the view: a
read must not be what re-drives work. Views are read only while the match waits for no
system step (to learn the legal actions), and once at the end of a test.
"""

from __future__ import annotations

import http.client
import statistics
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from domain.bots.policies import eager
from tests.faults.conftest import HEALTH_PATH, RECOVERY_S, Http, Response, Stack, text

RANKS = "A23456789TJQK"
SUITS = "CDHS"
JOKER = "JK"
FINAL_PHASES = ("complete", "aborted")
DEFAULT_TARGET = {"gin": 100, "gem": 110}


def prepared_deck(hands: Sequence[str], upcard: str, stock: str = "", dealer: int = 0,
                  decks: int = 1, jokers: int = 0) -> list[str]:
    """A whole deck that deals ``hands`` (by seat) from ``dealer``, one card at a time
    from the dealer's left, then the upcard, then ``stock`` on top of the stock
    (as ``tests.builders.prepared_deck``, without importing the domain)."""
    seat_cards = [hand.split() for hand in hands]
    players, size = len(seat_cards), len(seat_cards[0])
    order = [seat_cards[(dealer + 1 + i) % players][i // players] for i in range(players * size)]
    order += [upcard, *stock.split()]
    full = [rank + suit for suit in SUITS for rank in RANKS] * decks + [JOKER] * jokers
    left = Counter(full) - Counter(order)
    assert not Counter(order) - Counter(full), "the prepared cards are not in the deck"
    rest = []
    for card in full:
        if left[card] > 0:
            rest.append(card)
            left[card] -= 1
    return order + rest


Action = dict[str, Any]


@dataclass(frozen=True)
class Spec:
    """A prepared first hand: ``script`` (seat, action) ends it; ``completes`` says that
    it also ends the match."""

    name: str
    variant: str
    hands: tuple[str, ...]
    upcard: str
    script: tuple[tuple[int, Action], ...]
    completes: bool
    options: tuple[tuple[str, Any], ...] = ()
    stock: str = ""
    decks: int = 1
    jokers: int = 0
    dice: tuple[int, int] | None = None

    @property
    def plays_on(self) -> bool:
        """Later hands can be played greedily (gin and gem: knock or discard)."""
        return self.variant in ("gin", "gem") and not self.completes

    @property
    def target(self) -> int | None:
        return dict(self.options).get("target", DEFAULT_TARGET.get(self.variant))

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "variant": self.variant,
            "players": [{"name": f"P{seat}"} for seat in range(len(self.hands))],
            "options": {"first_dealer": 0, **dict(self.options)},
            "deck": prepared_deck(self.hands, self.upcard, self.stock, 0, self.decks,
                                  self.jokers),
        }
        if self.dice is not None:
            body["dice"] = list(self.dice)
        return body


def _draw(source: str) -> Action:
    return {"type": "draw", "source": source}


GIN_2 = ("2C 7C 3D 5D 9D JD 6H QH 8S KS", "4D 4S 4H 9C TC JC QC KC 2H 5S")
GIN_2_SCRIPT = ((1, _draw("discard")), (1, {"type": "knock", "discard": "5S"}))  # 65 points
GIN_3 = ("2C 7C 3D 5D 9D JD 6H", "4D 4S 4H 9C TC JC 2H", "3S 5S 6S 8H KH KD 7D")
GIN_3_SCRIPT = ((1, _draw("discard")), (1, {"type": "knock", "discard": "2H"}))  # gin: 141
GEM_2 = ("2C 7C 3D 5D 9D JD 6H QH 8S KS AC", "4D 4S 4H 9C TC JC QC KC 2H 5S 3S")
GEM_2_SCRIPT = ((1, _draw("discard")), (1, {"type": "knock", "discard": "5S"}))  # 40 points
RUMMY_2 = ("2D 3D 4D 5D 6D 7D 8D 9D TD 2H 3H 4H 5H", "TH JH QH KH TS JS QS TC JC QC 2C 3C 9C")
RUMMY_2_SCRIPT = (  # seat 1 draws 4C, lays everything down and goes out discarding 9C
    (1, _draw("stock")),
    (1, {"type": "lay_down", "melds": [{"cards": ["TH", "JH", "QH", "KH"]},
                                       {"cards": ["TS", "JS", "QS"]},
                                       {"cards": ["TC", "JC", "QC"]},
                                       {"cards": ["2C", "3C", "4C"]}]}),
    (1, {"type": "discard", "card": "9C"}),
)

SPECS: tuple[Spec, ...] = (
    Spec("gin2", "gin", GIN_2, "3C", GIN_2_SCRIPT, False, (("target", 100),)),
    Spec("gin2-end", "gin", GIN_2, "3C", GIN_2_SCRIPT, True, (("target", 50),)),
    Spec("gem2", "gem", GEM_2, "AH", GEM_2_SCRIPT, False, (("target", 110),), dice=(6, 6)),
    Spec("rummy2-end", "rummy", RUMMY_2, "AS", RUMMY_2_SCRIPT, True, (("rounds", 1),), "4C", 2, 6),
    Spec("gin3", "gin", GIN_3, "QC", GIN_3_SCRIPT, False, (("target", 300),)),
    Spec("gem2-end", "gem", GEM_2, "AH", GEM_2_SCRIPT, True, (("target", 30),), dice=(6, 6)),
    Spec("rummy2", "rummy", RUMMY_2, "AS", RUMMY_2_SCRIPT, False, (("rounds", 2),), "4C", 2, 6),
    Spec("gin3-end", "gin", GIN_3, "QC", GIN_3_SCRIPT, True, (("target", 100),)),
    Spec("rami2-end", "rami", RUMMY_2, "AS", RUMMY_2_SCRIPT, True,
         (("rounds", 1), ("opening_turn", 1)), "4C", 2, 6),
)


def specs(count: int, offset: int = 0) -> list[Spec]:
    """``count`` specs, every variant and both outcomes in turn."""
    return [SPECS[(offset + i) % len(SPECS)] for i in range(count)]


@dataclass
class Table:
    """One match as the client saw it."""

    spec: Spec
    id: str
    tokens: list[str]
    version: int  # the newest version an answer showed
    step: int = 0  # actions of the spec's script done
    state: str = "playing"  # playing | waiting (for a system step) | parked | done
    turn: int | None = None
    view: dict[str, Any] | None = None  # the seat view of ``turn``, when known
    ended: list[int] = field(default_factory=list)  # hands ended by an acknowledged action
    acked: list[tuple[str, int, int, Action]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    last_poll: float = 0.0

    def __repr__(self) -> str:
        return (f"Table({self.id}, {self.spec.name}, {self.state}, ended {self.ended}, "
                f"{len(self.events)} events)")


class Unexpected(AssertionError):
    """An answer the API must never give (a 5xx other than 503, no answer, a refused legal
    action)."""


class Players:
    """Plays tables over HTTP; every answer is counted, retries keep the Idempotency-Key.

    ``send`` is thread-safe; the playing methods are for one thread at a time.
    """

    def __init__(self, stack: Stack, max_hands: int = 3, retry_for: float = 30.0) -> None:
        self.http: Http = stack.http
        self.admin = stack.admin
        self.max_hands = max_hands
        self.retry_for = retry_for
        self.tables: list[Table] = []
        self.statuses: Counter[tuple[str, int, str | None]] = Counter()
        self.unexpected: list[str] = []
        self.answers: list[tuple[float, str, int]] = []  # (sent at, kind, status)
        self.lock = threading.Lock()

    # --- HTTP ---------------------------------------------------------------------------

    def send(self, kind: str, method: str, path: str, body: Any = None,
             token: str | None = None, headers: dict[str, str] | None = None) -> Response | None:
        """One request; None when no HTTP answer came (recorded as unexpected)."""
        try:
            response = self.http.request(method, path, body, token, headers)
        except (OSError, http.client.HTTPException) as exc:
            with self.lock:
                self.statuses[(kind, 0, type(exc).__name__)] += 1
                self.unexpected.append(f"{method} {path}: no answer ({exc!r})")
            return None
        with self.lock:
            self.statuses[(kind, response.status, response.code)] += 1
            self.answers.append((time.monotonic() - response.seconds, kind, response.status))
            unavailable = response.status == 503 and (
                response.code == "store_unavailable" or path == HEALTH_PATH)
            if response.status >= 500 and not unavailable:
                self.unexpected.append(f"{method} {path}: {response.status} {response.body}")
        return response

    def create(self, spec: Spec) -> Table | None:
        """Create a match from ``spec``; None when the store is unavailable (503)."""
        response = self.send("create", "POST", "/v1/matches", spec.body(), self.admin)
        if response is None or response.status == 503:
            return None
        if response.status != 201:
            raise Unexpected(f"create {spec.name}: {response.status} {response.body}")
        body = response.body
        table = Table(spec, body["id"], [seat["token"] for seat in body["seats"]],
                      body["version"])
        with self.lock:
            self.tables.append(table)
        return table

    def create_all(self, wanted: Iterable[Spec]) -> list[Table]:
        """Create a match from each spec; every creation must succeed."""
        tables = []
        for spec in wanted:
            table = self.create(spec)
            if table is None:
                raise Unexpected(f"could not create {spec.name}: {self.statuses}")
            tables.append(table)
        return tables

    def act(self, table: Table, seat: int, action: Action) -> dict[str, Any]:
        """One action, retried with the same Idempotency-Key while the store is away."""
        key = uuid.uuid4().hex
        deadline = time.monotonic() + self.retry_for
        while True:
            response = self.send("act", "POST", f"/v1/matches/{table.id}/actions", action,
                                 table.tokens[seat], {"Idempotency-Key": key})
            if response is not None and response.status == 200:
                view = response.body
                table.acked.append((key, view["version"], seat, action))
                return view
            if response is not None and response.status != 503:
                raise Unexpected(f"match {table.id} ({table.spec.name}) seat {seat} "
                                 f"{action}: {response.status} {response.body}")
            if time.monotonic() > deadline:
                raise Unexpected(f"match {table.id}: {action} got no 2xx in "
                                 f"{self.retry_for}s")
            time.sleep(0.1)

    def view(self, table: Table, seat: int | None) -> dict[str, Any] | None:
        """A view (public for None); call it only while the match awaits nothing."""
        token = table.tokens[seat] if seat is not None else None
        response = self.send("view", "GET", f"/v1/matches/{table.id}", token=token)
        if response is None or response.status == 503:
            return None
        if response.status != 200:
            raise Unexpected(f"view of {table.id}: {response.status} {response.body}")
        return response.body

    def poll(self, table: Table) -> bool:
        """Fetch the log's new events (admin: unredacted); False when it could not."""
        response = self.send("events", "GET",
                             f"/v1/matches/{table.id}/events?after={len(table.events)}",
                             token=self.admin)
        table.last_poll = time.monotonic()
        if response is None or response.status != 200:
            return False
        for event in response.body["events"]:
            if event["version"] == len(table.events) + 1:
                table.events.append(event)
        return True

    # --- playing ------------------------------------------------------------------------

    def end_first_hand(self, table: Table, but: int = 0) -> None:
        """Play the spec's script, all of it or all ``but`` its last actions."""
        while table.state == "playing" and table.step < len(table.spec.script) - but:
            self.step(table)

    def step(self, table: Table) -> bool:
        """Advance the table by one action (or one look at its log); True if it acted."""
        if table.state == "waiting":
            if time.monotonic() - table.last_poll > 0.2 and self.poll(table):
                self._resume(table)
            return False
        if table.state != "playing":
            return False
        if table.step < len(table.spec.script):
            seat, action = table.spec.script[table.step]
            view = self.act(table, seat, action)
            table.step += 1
            self._after(table, seat, view)
            return True
        if table.turn is None:
            public = self.view(table, None)
            if public is None:
                return False
            table.turn = public["turn"]
        if table.view is None:
            table.view = self.view(table, table.turn)
            if table.view is None:
                return False
        seat = table.turn
        assert seat is not None
        view = self.act(table, seat, choose(table.view))
        self._after(table, seat, view)
        return True

    def keep_playing(self, stop: threading.Event, matches: int, offset: int = 0,
                     create_every: float = 0.0) -> None:
        """Until ``stop``: create up to ``matches`` matches (one per ``create_every``
        seconds at most) and play every table one action at a time, round-robin."""
        made, next_create = 0, 0.0
        while not stop.is_set():
            now = time.monotonic()
            if made < matches and now >= next_create:
                if self.create(SPECS[(offset + made) % len(SPECS)]) is not None:
                    made += 1
                next_create = now + create_every
            acted = False
            for table in list(self.tables):
                if stop.is_set():
                    break
                acted = self.step(table) or acted
            if not acted:
                stop.wait(0.02)

    def _after(self, table: Table, seat: int, view: dict[str, Any]) -> None:
        table.version = view["version"]
        table.view = None
        if view.get("awaiting"):  # the hand ended: a system step (scoring) is due
            table.ended.append(view["hand_number"])
            table.state, table.turn = "waiting", None
        elif view["phase"] in FINAL_PHASES:
            table.state = "done"
        else:
            table.turn = view["turn"]
            table.view = view if view["turn"] == seat else None

    def _resume(self, table: Table) -> None:
        """A waiting table plays on once its log shows the next hand dealt."""
        if not recovered(table):
            return
        if completed(table.events) or not table.spec.plays_on:
            table.state = "done" if completed(table.events) else "parked"
        elif len(table.ended) >= self.max_hands:
            table.state = "parked"
        else:
            table.state, table.turn, table.view = "playing", None, None


def choose(view: dict[str, Any]) -> Action:
    """Greedy gin/gem: end the hand when allowed, pass the upcard, draw from the stock,
    discard a card of ``best_discard``."""
    legal: list[Action] = view["legal_actions"]
    if not legal:
        raise Unexpected(f"no legal action for the seat on turn: {view}")
    return eager(legal, (view.get("best_discard") or {}).get("cards") or ())


# --- the log ---------------------------------------------------------------------------

def of_type(events: Iterable[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def completed(events: list[dict[str, Any]]) -> bool:
    return bool(of_type(events, "MatchCompleted"))


def target_reached(table: Table) -> bool:
    """Whether the scored hands reach the match's end (so bonuses are due)."""
    scored = of_type(table.events, "HandScored")
    if table.spec.variant in ("gin", "gem") and scored:
        seats = len(table.spec.hands)
        totals = [sum(e["data"]["points"][s] for e in scored) for s in range(seats)]
        return max(totals) >= (table.spec.target or 0)
    return table.spec.completes and 1 in table.ended and bool(scored)


def recovered(table: Table) -> bool:
    """From the log: every ended hand scored, and the match either completed, or not due
    to and the hand after the last ended one dealt. A match awaiting nothing is done."""
    scored = {e["data"]["hand_number"] for e in of_type(table.events, "HandScored")}
    if any(hand not in scored for hand in table.ended):
        return False
    if completed(table.events):
        return True
    if target_reached(table):
        return False
    last = max(table.ended, default=0)
    return last == 0 or any(e["data"]["hand_number"] > last
                            for e in of_type(table.events, "HandDealt"))


def wait_recovered(players: Players, tables: Sequence[Table], since: float,
                   timeout: float = RECOVERY_S) -> tuple[dict[str, float], list[Table]]:
    """Poll the logs until every table has recovered or ``since + timeout`` passed:
    (seconds from ``since`` per recovered match id, tables still not recovered)."""
    pending = list(tables)
    times: dict[str, float] = {}
    deadline = since + timeout
    while pending:
        for table in list(pending):
            players.poll(table)
            elapsed = time.monotonic() - since
            if recovered(table) and elapsed <= timeout:
                times[table.id] = elapsed
                pending.remove(table)
        if not pending or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    return times, pending


LATE_S = 15.0
"""After a failed recovery, how much longer to watch: slow, or stuck for good?"""


def late_recoveries(players: Players, pending: Sequence[Table], since: float) -> str:
    """Keep polling the tables that missed RECOVERY_S for LATE_S more seconds and say
    when (if ever) each recovered, counting from ``since``."""
    times, stuck = wait_recovered(players, pending, since, RECOVERY_S + LATE_S)
    late = ", ".join(f"{seconds:.1f}s" for seconds in sorted(times.values()))
    return (f"later: {len(times)} recovered ({late or '-'}), {len(stuck)} still not "
            f"after {RECOVERY_S + LATE_S:.0f}s")


def assert_recovered(stack: Stack, players: Players, line: str, pending: Sequence[Table],
                     since: float) -> None:
    if pending:
        diagnosis = diagnose(stack, pending)
        later = late_recoveries(players, pending, since)
        print(f"[faults] {later}", flush=True)
        pytest.fail(f"{line}\n{diagnosis}\n{later}", pytrace=False)


def expect_recovery(stack: Stack, players: Players, tables: Sequence[Table], since: float,
                    label: str) -> None:
    """Every table recovers within RECOVERY_S of ``since``, the worker is still up, and
    the per-match invariants hold (``check``); prints the recovery times."""
    times, pending = wait_recovered(players, tables, since)
    line = summary(f"{label}: {len(tables)} matches, {label_since(label)}", times, pending)
    stack.worker.proc.check_running()
    assert_recovered(stack, players, line, pending, since)
    check(players, tables)
    assert not players.unexpected, players.unexpected


def label_since(label: str) -> str:
    return "from the worker's spawn" if label != "baseline" else "from the last hand's end"


def summary(label: str, times: dict[str, float], pending: Sequence[Table] = ()) -> str:
    values = sorted(times.values())
    line = f"[faults] {label}: {len(values)} recovered"
    if values:
        line += (f" in max {values[-1]:.2f}s, median {statistics.median(values):.2f}s, "
                 f"min {values[0]:.2f}s")
    if pending:
        line += f"; {len(pending)} NOT recovered within {RECOVERY_S:.0f}s"
    print(line, flush=True)
    return line


def diagnose(stack: Stack, tables: Sequence[Table]) -> str:
    """What Redis holds about the jobs of tables that did not recover."""
    client = stack.rq()
    lines = []
    try:
        queues = {k.decode(): client.llen(k) for k in client.scan_iter(match="rq:queue:*")
                  if client.type(k) == b"list"}
        lines.append(f"rq queue lists: {queues}")
        for table in tables[:8]:
            tail = [e["type"] for e in table.events[-4:]]
            jobs = []
            for key in client.scan_iter(match=f"rq:job:*{table.id}*"):
                if client.type(key) == b"hash":
                    status = client.hget(key, "status")
                    jobs.append(f"{text(key)}={text(status) if status else '?'}")
            lines.append(f"{table.id} ({table.spec.name}) ended {table.ended}, log ends "
                         f"{tail}, jobs {jobs or 'none'}")
    finally:
        client.close()
    return "\n".join(lines)


def check(players: Players, tables: Sequence[Table]) -> None:
    """The per-match invariants, from the full log and (last) the view."""
    problems = []
    for table in tables:
        players.poll(table)
        events = table.events
        name = f"{table.id} ({table.spec.name})"
        if [e["version"] for e in events] != list(range(1, len(events) + 1)):
            problems.append(f"{name}: versions not contiguous")
        scored = Counter(e["data"]["hand_number"] for e in of_type(events, "HandScored"))
        for hand in table.ended:
            if scored[hand] != 1:
                problems.append(f"{name}: hand {hand} scored {scored[hand]} times")
        doubled = [hand for hand, count in scored.items() if count > 1]
        if doubled:
            problems.append(f"{name}: hands {doubled} scored more than once")
        finals = len(of_type(events, "MatchCompleted"))
        if finals > 1 or (target_reached(table) and finals != 1):
            problems.append(f"{name}: {finals} MatchCompleted, target reached: "
                            f"{target_reached(table)}")
        acked_version = max([table.version, *(v for _, v, _, _ in table.acked)])
        if len(events) < acked_version:
            problems.append(f"{name}: the log has {len(events)} events, an answer showed "
                            f"version {acked_version}")
        command_ids = [str(e.get("command_id")) for e in events]
        for key, version, seat, action in table.acked:
            if not any(key in command_id for command_id in command_ids):
                problems.append(f"{name}: acknowledged {action} of seat {seat} (version "
                                f"{version}, Idempotency-Key {key}) is not in the log")
        response = players.send("view", "GET", f"/v1/matches/{table.id}", token=players.admin)
        if response is None or response.status != 200:
            problems.append(f"{name}: final view {response}")
        elif response.body.get("awaiting"):
            problems.append(f"{name}: still awaiting {response.body['awaiting']!r}")
        elif target_reached(table) and response.body.get("phase") != "complete":
            problems.append(f"{name}: phase {response.body.get('phase')!r} at its target")
    assert not problems, "\n".join(problems[:30])


def run_client(players: Players, body: Callable[[threading.Event], None],
               name: str) -> tuple[threading.Thread, threading.Event, list[BaseException]]:
    """Start ``body(stop)`` on a daemon thread; errors are collected for the test."""
    stop = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            body(stop)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            errors.append(exc)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread, stop, errors
