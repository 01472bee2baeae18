"""Rummy and Rami over HTTP: whole games from legal actions, action shapes, hidden cards.

The two-deck shoe repeats every card code, so "hidden" is judged by what a caller could
know: a code may appear in what a caller receives only if the caller holds a copy or a
copy is public (discard pile, table, a revealed round). Its own hand, the discard pile
and the table are compared exactly, as multisets.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from domain.bots.policies import PLACEMENTS, keen, of_type
from domain.rummy import RUMMY
from tests.service.conftest import ADMIN_AUTH, bearer
from tests.service.test_hidden_information import auth, keys_in, name, nodes, stream

SECRET_KEYS = {"deck", "seed", "stock", "all_hands"}
PLACING = ("lay_down", "lay_off", "exchange_joker")
CODES = frozenset(r + s for r in "A23456789TJQK" for s in "CDHS") | {"JK"}


def create(client: Any, players: int, variant: str = "rummy", seed: str | None = None,
           **options: Any) -> dict[str, Any]:
    """A match; with ``seed`` (the organiser's) its deals are the same on every run."""
    names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"][:players]
    body: dict[str, Any] = {"variant": variant, "players": [{"name": n} for n in names],
                            "options": {"first_dealer": 0, **options}}
    if seed is not None:
        body["seed"] = seed
    response = client.post("/v1/matches", json=body, headers=ADMIN_AUTH if seed else {})
    assert response.status_code == 201, response.json
    return response.json


def act(client: Any, match: dict[str, Any], seat: int, action: dict[str, Any]) -> Any:
    return client.post(f"/v1/matches/{match['id']}/actions", json=action,
                       headers=bearer(match["seats"][seat]["token"]))


def choose(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A random legal action, keen to place cards so that rounds end."""
    return keen(rng, legal, (of_type(*PLACEMENTS), 0.9))


def full_view(client: Any, match: dict[str, Any]) -> dict[str, Any]:
    return client.get(f"/v1/matches/{match['id']}", headers=ADMIN_AUTH).json


def play_step(client: Any, match: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The seat on turn plays a random legal action from its own view; returns its answer."""
    turn = full_view(client, match)["turn"]
    view = client.get(f"/v1/matches/{match['id']}", headers=auth(match, turn)).json
    response = act(client, match, turn, choose(rng, view["legal_actions"]))
    assert response.status_code == 200, response.json
    return response.json


class TestWholeGame:
    def test_four_players_play_a_game_to_its_end_from_legal_actions(self, client):
        match = create(client, 4, rounds=2)
        rng = random.Random(4)
        answer: dict[str, Any] = {}
        for _ in range(3000):
            answer = play_step(client, match, rng)
            if full_view(client, match)["phase"] == "complete":
                break
        final = full_view(client, match)
        assert final["phase"] == "complete" and final["rounds_played"] == 2
        assert sorted(final["winners"]) == [s for s, total in enumerate(final["final_scores"])
                                            if total == min(final["final_scores"])]
        assert final["final_scores"] == [sum(h["points"][s] for h in final["hands"])
                                         for s in range(4)]
        events = client.get(f"/v1/matches/{match['id']}/events").json["events"]
        types = [e["type"] for e in events]
        assert types[-1] == "MatchCompleted" or "MatchCompleted" in types
        assert {"MeldsLaidDown", "HandScored", "HandDealt"} <= set(types)
        assert answer["variant"] == "rummy"

    def test_a_seat_view_says_which_kinds_of_move_it_may_make(self, client):
        match = create(client, 2)
        turn = full_view(client, match)["turn"]
        views = [client.get(f"/v1/matches/{match['id']}", headers=auth(match, s)).json
                 for s in range(2)]
        assert views[turn]["moves"] == ["draw"] and views[1 - turn]["moves"] == []
        answer = act(client, match, turn, {"type": "draw", "source": "stock"}).json
        assert answer["moves"][-1] == "discard"
        assert set(answer["moves"]) == {a["type"] for a in answer["legal_actions"]}

    def test_rami_is_listed_with_its_own_defaults(self, client):
        variants = {v["name"]: v for v in client.get("/v1/variants").json["variants"]}
        rummy = {o["name"]: o["default"] for o in variants["rummy"]["options"]}
        rami = {o["name"]: o["default"] for o in variants["rami"]["options"]}
        assert (rummy["opening_minimum"], rummy["opening_turn"]) == (40, 1)
        assert (rami["opening_minimum"], rami["opening_turn"]) == (51, 2)
        assert variants["rami"]["max_players"] == 6


class TestActionShapes:
    @pytest.mark.parametrize("action", [
        {"type": "lay_down"},
        {"type": "lay_down", "melds": "7H"},
        {"type": "lay_down", "melds": [{"cards": ["7H", "XX"]}]},
        {"type": "lay_down", "melds": [{"represents": ["7H"]}]},
        {"type": "lay_off", "card": "7H"},
        {"type": "lay_off", "meld": "one", "card": "7H"},
        {"type": "exchange_joker", "meld": 1},
        {"type": "knock", "discard": "7H", "melds": [{"cards": ["7H"]}]},
        {"type": "pass"},
        {"type": "knock", "discard": "7H"},
    ])
    def test_a_malformed_action_is_a_400(self, client, action):
        match = create(client, 2)
        response = act(client, match, 1, action)
        assert response.status_code == 400 and response.json["code"] == "invalid_action"

    @pytest.mark.parametrize("action, code", [
        ({"type": "lay_down", "melds": [{"cards": ["7H", "8H", "9H"]}]}, "wrong_phase"),
        ({"type": "lay_off", "meld": 7, "card": "7H"}, "wrong_phase"),
    ])
    def test_an_illegal_action_is_a_422_with_its_code(self, client, action, code):
        match = create(client, 2)
        response = act(client, match, 1, action)
        assert response.status_code == 422 and response.json["code"] == code

    def test_a_lay_down_with_a_declared_joker_reaches_the_table(self, client):
        """Bob (seat 1, first to play) holds 7H 8H and a joker; with no opening minimum he
        lays them down as 7H-8H-9H, and the table shows what the joker stands for."""
        shoe = list(RUMMY.deck(RUMMY.parse_options(None, 2)))
        for card in ("7H", "8H", "JK"):
            shoe.remove(card)
        bob = ["7H", "8H", "JK", *shoe[13:23]]  # dealt first: he sits after the dealer
        deck = [card for pair in zip(bob, shoe[:13], strict=True) for card in pair] + shoe[23:]
        response = client.post("/v1/matches", headers=ADMIN_AUTH, json={
            "variant": "rummy", "players": [{"name": "Ann"}, {"name": "Bob"}], "deck": deck,
            "options": {"first_dealer": 0, "opening_minimum": 0}})
        assert response.status_code == 201, response.json
        match = response.json
        assert act(client, match, 1, {"type": "draw", "source": "stock"}).status_code == 200
        laid = act(client, match, 1, {"type": "lay_down", "melds": [
            {"cards": ["7H", "8H", "JK"], "represents": ["7H", "8H", "9H"]}]})
        assert laid.status_code == 200, laid.json
        (meld,) = client.get(f"/v1/matches/{match['id']}").json["table"]
        assert (meld["owner"], meld["kind"]) == (1, "run")
        assert dict(zip(meld["cards"], meld["represents"], strict=True))["JK"] == "9H"


# --- hidden information ------------------------------------------------------------------------


OWN_SECTIONS = ("meld_candidates", "opening", "legal_actions")
"""Seat views: what the seat's own hand could do; a joker there may stand for any card."""


def physical(value: Any) -> Any:
    """``value`` without ``represents``: only the physical cards it names."""
    if isinstance(value, dict):
        return {k: physical(v) for k, v in value.items() if k != "represents"}
    if isinstance(value, list):
        return [physical(item) for item in value]
    return value


def codes_in(value: Any) -> Counter:
    return Counter(node for node in nodes(value) if isinstance(node, str) and node in CODES)


def known_to(full: dict[str, Any], viewer: int | None, revealed: set[str]) -> set[str]:
    """Codes ``viewer`` may have seen: its hand, the discard pile, the table, revealed ones."""
    known = set(full["discard_pile"]) | revealed
    for meld in full["table"]:
        known |= set(meld["cards"]) | set(meld["represents"])
    if viewer is not None:
        known |= set(full["all_hands"][viewer])
    return known


def secret_codes(full: dict[str, Any], viewer: int | None, revealed: set[str]) -> set[str]:
    hidden = {card for seat, hand in enumerate(full["all_hands"]) if seat != viewer
              for card in hand} | set(full["stock"])
    return hidden - known_to(full, viewer, revealed)


def revealed_codes(events: list[dict[str, Any]]) -> set[str]:
    """Codes made public by events: discards, discard draws, melds, scored rounds."""
    shown: set[str] = set()
    for event in events:
        data = event["data"]
        if event["type"] == "CardDrawn" and data["source"] == "stock":
            continue
        if event["type"] in ("HandDealt", "StockRebuilt"):
            if event["type"] == "HandDealt":
                players, size = data["players"], data["hand_size"]
                shown.add(data["deck"][players * size])
            continue
        shown |= set(codes_in(data))
    return shown


def check_caller(client: Any, match: dict[str, Any], full: dict[str, Any],
                 events: list[dict[str, Any]], viewer: int | None, after: int) -> None:
    url, headers = f"/v1/matches/{match['id']}", auth(match, viewer)
    label = name(viewer)
    dealt = max(e["version"] for e in events if e["type"] == "HandDealt")
    secret = secret_codes(full, viewer, revealed_codes(events[dealt - 1:]))
    view = client.get(url, headers=headers).json
    assert not keys_in(view) & SECRET_KEYS, (label, keys_in(view) & SECRET_KEYS)
    live = {k: v for k, v in view.items() if k not in ("hands", *OWN_SECTIONS)}
    assert not set(codes_in(live)) & secret, (label, set(codes_in(live)) & secret)
    own = physical({k: v for k, v in view.items() if k in OWN_SECTIONS})
    assert set(codes_in(own)) <= set(view.get("hand", [])), (label, "melds not from the hand")
    assert view["discard_pile"] == full["discard_pile"] and view["table"] == full["table"]
    assert view["commitment"] == full["commitment"]
    if viewer is not None:
        assert Counter(view["hand"]) == Counter(full["all_hands"][viewer]), label
    shown = client.get(f"{url}/events?after={after}", headers=headers).json["events"]
    dealing = [e for e in shown if not e["type"].endswith("SeedRevealed")]  # ended: public
    assert not keys_in(dealing) & SECRET_KEYS, (label, "log", keys_in(dealing) & SECRET_KEYS)
    this_hand = [e for e in shown if e["version"] >= dealt]
    assert not set(codes_in(this_hand)) & secret, (label, "log", set(codes_in(this_hand)))
    for event in shown:
        if event["type"] == "HandDealt" and viewer is not None:
            assert len(event["data"]["hand"]) == 13


@pytest.mark.parametrize("players, variant, moves", [
    (2, "rummy", 400), (3, "rami", 60), (4, "rummy", 50), (5, "rami", 40), (6, "rummy", 40),
])
def test_no_caller_ever_sees_hidden_cards_or_secrets(client, players, variant, moves):
    """Two players play a whole one-round game (the round's end and scoring included);
    more players play the first moves of a game. Every caller is checked at every step.
    The seed fixes the deal, so the random moves finish the two-player round every run."""
    match = create(client, players, variant, seed=f"hidden-{players}", rounds=1)
    rng = random.Random(players)
    after = 0
    for step in range(moves):
        full = full_view(client, match)
        events = client.get(f"/v1/matches/{match['id']}/events", headers=ADMIN_AUTH).json[
            "events"]
        for viewer in [None, *range(players)]:
            check_caller(client, match, full, events, viewer, after)
        if full["phase"] == "complete":
            break
        if step == 10:
            check_streams(client, match, players)
        after = full["version"]
        play_step(client, match, rng)
    assert players > 2 or full["phase"] == "complete", "two players finish their round"


def check_streams(client: Any, match: dict[str, Any], players: int) -> None:
    """Mid-round, each caller's live stream is its log, redacted the same way."""
    for viewer in [None, *range(players)]:
        log = client.get(f"/v1/matches/{match['id']}/events",
                         headers=auth(match, viewer)).json["events"]
        assert stream(client, match["id"], auth(match, viewer), 0, log[-1]["version"]) == log
