"""The event registry: every event the families and the system produce is declared once,
with the fields it carries, and docs/events.md is what the declarations say."""

from __future__ import annotations

import ast
import importlib
import io
import pkgutil
import random
import tokenize
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from openapi_schema_validator import OAS30Validator

import domain
from domain import controls
from domain.bot_seats import BotSeat, seated
from domain.bots.policies import ENDERS, PLACEMENTS, deep_draw, keen, of_type
from domain.clocks import Clock, ClockSettings, decide_timeout
from domain.event_registry import GROUPS, REGISTRY, TOURNAMENT_REGISTRY, _registry, markdown
from domain.events import REMATCH_CREATED, Event, EventType
from domain.evolving import replace, replay
from domain.fairness import UNFOLDED_EVENTS, MatchSecrets
from domain.rematch import ACCEPT, DECLINE, Answer, Rematch, decide, previous_seat
from domain.steps import decide_step, pending_step
from domain.variant import Variant
from domain.variants import VARIANTS
from tests.domain.rummy.support import given, send

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "events.md"
SOURCES = ("domain", "service", "workers")

LIVELY = of_type(*ENDERS, *PLACEMENTS)

PLAYOUTS = {
    "gin": [({"target": 40}, 2), ({"target": 40, "jokers": 2, "decks": 2}, 2),
            ({"target": 30}, 3), ({"target": 30, "max_turns": 12}, 4)],
    "gem": [({"target": 80}, 2), ({"target": 80}, 3)],
    "rummy": [({"rounds": 2}, 2), ({"rounds": 2}, 4), ({"rounds": 1, "max_turns": 300}, 6)],
    "rami": [({"rounds": 2}, 3), ({"rounds": 1}, 5)],
}
"""Variants, options and player counts played at random, two matches each."""


def pick(rng: random.Random, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Random, but keen to end hands, place cards and draw deep, so every event shows up."""
    return keen(rng, actions, (lambda a: LIVELY(a) or deep_draw(a), 0.8))


def match_events(variant: Variant, options: dict[str, Any], players: int,
                 seed: int) -> Iterator[Event]:
    """One random match with a clock and a bot in seat 0, ended by its bonuses or, now and
    then, by the clock, a forfeit or an abort, then its rematch: every event it appends."""
    rng = random.Random(seed)
    secrets = MatchSecrets(rng.randbytes(16), tuple(f"entropy {s}" for s in range(players)))
    parsed = variant.parse_options(options, players)
    opening = variant.start_match([f"P{s}" for s in range(players)], parsed,
                                 rng.randrange(players), variant.deal_for(parsed, secrets, 1))
    clock = ClockSettings.parse({"turn_seconds": 30, "on_timeout": "auto_play"})
    state = replay(variant, opening)
    yield from [*opening, secrets.committed(), clock.event(), *seated({0: BotSeat("basic", 250)})]
    while state.phase not in controls.FINAL_PHASES:
        events = _next_events(variant, state, secrets, rng)
        yield from events
        for event in events:
            if event.type not in UNFOLDED_EVENTS:
                state = variant.evolve(state, event)
    yield from rematch_events(state, seed)


def rematch_events(state: Any, seed: int) -> list[Event]:
    """The ended match's rematch (none after an abort): the people (all but the bot in
    seat 0) accept it all round, and the new match records where it came from; or, every
    other seed, a person declines it."""
    if state.phase == controls.ABORTED:
        return []
    seats = len(state.players)
    answers = ([Answer(s, ACCEPT) for s in range(1, seats)] if seed % 2 == 0
               else [Answer(1, DECLINE)])
    rematch, events = Rematch(), []
    for answer in answers:
        decided = decide(rematch, answer, state.phase, state.players,
                         {0: BotSeat("basic", 250)}, "the-rematch")
        for event in decided:
            rematch = rematch.after(event)
        events += decided
    if rematch.match_id is not None:
        events.append(REMATCH_CREATED.event(rematch_of="the-ended-match", previous_seats=[
            previous_seat(seat, seats) for seat in range(seats)]))
    return events


def _next_events(variant: Variant, state: Any, secrets: MatchSecrets,
                 rng: random.Random) -> list[Event]:
    step = pending_step(variant, state)
    if step is not None:
        return decide_step(variant, state, step, secrets)
    seat, roll = state.turn, rng.random()
    if roll < 0.0005:
        return controls.ending_events(variant, state, controls.AbortMatch("void"), secrets)
    if roll < 0.001:
        return controls.ending_events(variant, state, controls.ForfeitSeat(seat, "gone"),
                                      secrets)
    if roll < 0.01:
        settings = ClockSettings(turn_seconds=1.0, on_timeout="auto_play")
        running = Clock.start(settings, len(state.players)).step(seat, 0.0, 1)
        decision = decide_timeout(variant, state, running, 1, secrets, now=2.0)
        assert decision is not None
        return decision.events
    action = pick(rng, variant.legal_actions(state, seat))
    return variant.decide(state, variant.command(seat, action))


def rebuilt_stock() -> list[Event]:
    """Rummy's last stock card drawn and discarded: too rare in random games to rely on."""
    state = replace(given(["", ""], upcard="9D"), stock=("4C",),
                    discard_pile=("2C", "3C", "9D"))
    state, drawn = send(state, 1, {"type": "draw", "source": "stock"})
    return [*drawn, *send(state, 1, {"type": "discard", "card": "4C"})[1]]


def every_event() -> Iterator[tuple[str, Event]]:
    for variant, settings in PLAYOUTS.items():
        for options, players in settings:
            for seed in range(2):
                for event in match_events(VARIANTS[variant], options, players, seed):
                    yield variant, event
    yield from (("rummy", event) for event in rebuilt_stock())


@pytest.fixture(scope="module")
def produced() -> dict[str, dict[str, set[str]]]:
    """Event type -> variant -> every data key its events carried."""
    keys: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for variant, event in every_event():
        assert event.type in REGISTRY, f"{event.type} is not registered"
        assert event.schema == REGISTRY[event.type].schema, event.type
        keys[event.type][variant] |= set(event.data)
        errors = sorted(payload_validator(event.type).iter_errors(dict(event.data)), key=str)
        assert not errors, (f"{variant}'s {event.type} breaks its field types at "
                            f"{'/'.join(map(str, errors[0].absolute_path))}: "
                            f"{errors[0].message}")
    return keys


@cache
def payload_validator(name: str) -> OAS30Validator:
    """The declared JSON Schema of each field of ``name``, and no other field."""
    properties = {f.name: dict(f.schema) for f in REGISTRY[name].fields}
    return OAS30Validator({"type": "object", "properties": properties,
                           "additionalProperties": False})


def test_a_field_of_the_wrong_type_is_refused():
    validator = payload_validator("CardDrawn")
    assert validator.is_valid({"seat": 0, "source": "stock", "card": "TD"})
    for wrong in ({"seat": "0"}, {"seat": -1}, {"card": "10D"}, {"card": None},
                  {"source": "pile"}, {"cards": "7H"}, {"depth": 1.5}):
        assert not validator.is_valid({"seat": 0, "source": "stock", "card": "7H", **wrong})


def test_every_event_the_families_produce_is_registered_with_the_fields_it_carries(produced):
    for name, by_variant in produced.items():
        for variant, carried in by_variant.items():
            undeclared = carried - REGISTRY[name].fields_of(variant)
            assert not undeclared, f"{variant}'s {name} carries undeclared {sorted(undeclared)}"


def test_every_registered_event_and_field_is_produced(produced):
    assert set(produced) == set(REGISTRY)
    for name, event_type in REGISTRY.items():
        for field in event_type.fields:
            variants = field.only or tuple(produced[name])
            carried_by = [v for v in variants if field.name in produced[name].get(v, set())]
            assert carried_by, f"{name}.{field.name} is declared but never produced"


def test_a_fields_variants_are_real_variants():
    for event_type in REGISTRY.values():
        for field in event_type.fields:
            assert set(field.only) <= set(VARIANTS), (event_type.name, field.name)


def _declared_event_types() -> Iterator[tuple[str, EventType]]:
    for module in pkgutil.walk_packages(domain.__path__, "domain."):
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            if isinstance(value, EventType):
                yield module.name, value


def test_every_declared_event_type_is_in_the_registry():
    declared = list(_declared_event_types())
    assert declared
    for module, event_type in declared:
        collected = REGISTRY.get(event_type.name) or TOURNAMENT_REGISTRY.get(event_type.name)
        assert collected is event_type, \
            f"{module} declares {event_type.name}, which domain.event_registry does not collect"


def test_a_name_declared_twice_does_not_load():
    twin = EventType("HandDealt", schema=1, appended_by="nobody", description="", fields=())
    with pytest.raises(ValueError, match="declared twice"):
        _registry([*REGISTRY.values(), twin])


def _python_files() -> Iterator[Path]:
    for package in SOURCES:
        yield from sorted((ROOT / package).rglob("*.py"))


def test_no_event_name_is_spelled_outside_its_declaration():
    spelled: dict[str, list[str]] = defaultdict(list)
    for path in _python_files():
        source = path.read_text()
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING:
                value = _literal(token.string)
                if value in REGISTRY:
                    spelled[value].append(f"{path.relative_to(ROOT)}:{token.start[0]}")
    assert set(spelled) == set(REGISTRY)
    twice = {name: places for name, places in spelled.items() if len(places) != 1}
    assert not twice, f"event names spelled out more than once: {twice}"


def _literal(token: str) -> object:
    try:
        return ast.literal_eval(token)
    except (ValueError, SyntaxError):
        return None  # an f-string


READERS = {"domain/events.py", "domain/upcasting.py", "domain/audit.py",
           "service/codec.py"}
"""The only modules that make an ``Event`` directly: ``EventType.event``, and the readers
of stored or exported events (whose type is whatever the log says)."""


def test_events_are_made_only_through_their_type():
    for path in _python_files():
        relative = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "Event":
                assert relative in READERS, f"{relative}:{node.lineno} makes an Event by hand"


def test_events_carry_their_types_schema_and_only_its_fields():
    assert REGISTRY["HandDealt"].event(hand_number=1).schema == 2
    assert REGISTRY["CardDrawn"].event({"seat": 0}, source="stock") == \
        Event("CardDrawn", {"seat": 0, "source": "stock"}, 1)
    with pytest.raises(ValueError, match="declares no field"):
        REGISTRY["UpcardPassed"].event(seat=0, card="7H")


def test_docs_events_md_is_generated_from_the_registry():
    assert DOCS.read_text() == markdown(), "docs/events.md is stale: run `make docs`"


def test_the_docs_describe_every_event_in_its_group():
    text = markdown()
    for title, group in GROUPS:
        assert f"## {title}" in text
        for event_type in group:
            assert f"### {event_type.name}\n\n{event_type.description}" in text
