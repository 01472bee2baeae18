"""Hidden information over HTTP: no seat ever sees another seat's cards or the stock order.

Random games of 2, 3 and 4 players (the server shuffles, so each run deals new games; a
seeded ``random.Random`` picks the moves). At every step each seat (with its token) and the
public (no token) read the view, the log and the live stream, and none of them may hold a
card that another seat has in hand unless it has become public (discarded, or shown in
the knock's ``ending`` or at the showdown), nor any card of the stock, nor a ``deck``,
``stock`` or ``all_hands``. The organiser's (admin) view is the ground truth of what is
hidden, and the only one that shows it.

Cards come back every hand (one deck), so cards are judged within the current hand: the
events from its ``HandDealt`` on, and views without the ``hands`` history. The history is
still checked for the secret keys and for whole deck orders.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from domain.bots.policies import ENDERS, discarding, keen, of_type
from domain.cards import standard_deck
from domain.gin.options import GinOptions
from domain.gin.rules import solver_for
from tests.service.conftest import ADMIN_AUTH, bearer, create

CARDS = frozenset(standard_deck())
SOLVER = solver_for(GinOptions())
TAKE = {"type": "draw", "source": "discard"}
SECRET_KEYS = {"deck", "stock", "all_hands"}
PUBLIC = None  # the viewer without a token


# --- reading JSON ------------------------------------------------------------------------


def nodes(value: Any) -> Iterator[Any]:
    """Every value inside ``value``, itself included, parents before their children. A
    stack rather than recursion: views are walked at every step of many games."""
    pending = [value]
    while pending:
        node = pending.pop()
        yield node
        if type(node) is dict:
            pending.extend(reversed(node.values()))
        elif type(node) is list:
            pending.extend(reversed(node))


def keys_in(value: Any) -> set[str]:
    return {key for node in nodes(value) if isinstance(node, dict) for key in node}


def cards_in(value: Any) -> set[str]:
    return {node for node in nodes(value) if isinstance(node, str) and node in CARDS}


def card_lists_in(value: Any) -> list[list[str]]:
    return [node for node in nodes(value) if isinstance(node, list) and len(node) > 1
            and all(isinstance(card, str) and card in CARDS for card in node)]


# --- the ground truth ----------------------------------------------------------------------


@dataclass
class Truth:
    """The match as the organiser sees it, and which cards of this hand are public."""

    full: dict[str, Any]
    events: list[dict[str, Any]]  # the whole log, unredacted
    dealt: int                    # version of the current hand's HandDealt
    public: set[str]              # cards of this hand that everyone has seen

    @property
    def revealed(self) -> set[int]:
        """Versions of the events of hands whose seed has been revealed: public in full."""
        shown = {e["data"]["hand_number"] for e in self.events if e["type"] == "SeedRevealed"}
        versions, hand = set(), 0
        for e in self.events:
            hand = e["data"]["hand_number"] if e["type"] == "HandDealt" else hand
            if hand in shown:
                versions.add(e["version"])
        return versions

    @property
    def version(self) -> int:
        return self.full["version"]

    @property
    def decks(self) -> list[list[str]]:
        return [e["data"]["deck"] for e in self.events if e["type"] == "HandDealt"]

    def hidden_from(self, viewer: int | None) -> set[str]:
        """Cards ``viewer`` must not see: other seats' hands and the stock, unless public."""
        hands = self.full["all_hands"]
        secret = {card for seat, hand in enumerate(hands) if seat != viewer for card in hand}
        return (secret | set(self.full["stock"])) - self.public


def public_cards(events: list[dict[str, Any]], players: int) -> set[str]:
    """Cards the rules have shown to everyone in these (unredacted) events of one hand."""
    shown: set[str] = set()
    for e in events:
        data = e["data"]
        if e["type"] == "HandDealt":
            shown.add(data["deck"][players * data["hand_size"]])  # the upcard
        elif e["type"] == "CardDiscarded" or (e["type"] == "CardDrawn"
                                              and data["source"] == "discard"):
            shown.add(data["card"])
        elif e["type"] == "HandKnocked":  # the knock's discard and the knocker's cards
            shown |= cards_in([data["discard"], data["melds"], data["unmatched"]])
        elif e["type"] == "HandScored":  # the showdown
            shown |= cards_in(data)
    return shown


def read_truth(client: Any, match_id: str, players: int) -> Truth:
    url = f"/v1/matches/{match_id}"
    full = client.get(url, headers=ADMIN_AUTH).json
    events = client.get(f"{url}/events", headers=ADMIN_AUTH).json["events"]
    assert {"stock", "all_hands"} <= set(full), "the organiser sees the stock and all hands"
    assert [e["version"] for e in events] == list(range(1, full["version"] + 1))
    dealt = max(e["version"] for e in events if e["type"] == "HandDealt")
    assert all("deck" in e["data"] for e in events if e["type"] == "HandDealt")
    truth = Truth(full, events, dealt, public_cards(events[dealt - 1:], players))
    if full["phase"] in ("upcard", "draw", "discard"):  # every card is somewhere
        held = [card for hand in full["all_hands"] for card in hand]
        assert sorted(held + full["stock"] + full["discard_pile"]) == sorted(CARDS)
    return truth


# --- what a caller receives ----------------------------------------------------------------


def auth(match: dict[str, Any], viewer: int | None) -> dict[str, str]:
    return {} if viewer is PUBLIC else bearer(match["seats"][viewer]["token"])


def name(viewer: int | None) -> str:
    return "public" if viewer is PUBLIC else f"seat {viewer}"


def stream(client: Any, match_id: str, headers: dict[str, str], after: int,
           until: int) -> list[dict[str, Any]]:
    """The events the live stream sends from ``after`` up to version ``until``, then closed."""
    response = client.get(f"/v1/matches/{match_id}/stream",
                          headers={**headers, "Last-Event-ID": str(after)})
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    received: list[dict[str, Any]] = []
    try:
        for chunk in response.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if text.startswith(": keep-alive"):
                break  # nothing more to send
            if text.startswith("id:"):
                received.append(json.loads(text.split("data: ", 1)[1]))
                if received[-1]["version"] >= until:
                    break
    finally:
        response.close()
    return received


def assert_no_secrets(label: str, value: Any, truth: Truth) -> None:
    """No secret key anywhere, nor the order of any deck dealt or of the stock."""
    assert not keys_in(value) & SECRET_KEYS, (label, keys_in(value) & SECRET_KEYS)
    for cards in card_lists_in(value):
        assert cards not in truth.decks, (label, "a deck order")
        assert cards != truth.full["stock"], (label, "the stock")


def assert_no_hidden_cards(label: str, value: Any, hidden: set[str]) -> None:
    leaked = cards_in(value) & hidden
    assert not leaked, (label, sorted(leaked))


def check_viewer(client: Any, match: dict[str, Any], truth: Truth, viewer: int | None,
                 whole_log: bool) -> dict[str, Any]:
    """The view, the log and the stream of one caller at this step; returns the view.

    The log is read from this hand's deal on; the whole of it (``whole_log``) once a hand,
    since the history before it no longer changes.
    """
    url, headers = f"/v1/matches/{match['id']}", auth(match, viewer)
    hidden = truth.hidden_from(viewer)
    label = name(viewer)

    view = client.get(url, headers=headers).json
    assert view["version"] == truth.version
    assert_no_secrets(f"{label} view", view, truth)
    assert_no_hidden_cards(f"{label} view", {k: v for k, v in view.items() if k != "hands"},
                           hidden)
    if viewer is not PUBLIC:
        assert sorted(view["hand"]) == sorted(truth.full["all_hands"][viewer])

    after = 0 if whole_log else truth.dealt - 1
    events = client.get(f"{url}/events?after={after}", headers=headers).json["events"]
    assert [e["version"] for e in events] == list(range(after + 1, truth.version + 1))
    revealed = truth.revealed
    assert [e for e in events if e["version"] in revealed] == [
        e for e in truth.events[after:] if e["version"] in revealed], \
        f"{label}: a revealed hand's events are the organiser's"
    assert_no_secrets(f"{label} log", [e for e in events if e["version"] not in revealed], truth)
    this_hand = events[truth.dealt - 1 - after:]
    assert_no_hidden_cards(f"{label} log", [e for e in this_hand if e["version"] not in revealed],
                           hidden)

    streamed = stream(client, match["id"], headers, truth.dealt - 1, truth.version)
    assert streamed == this_hand, f"{label}: the stream and the log differ"
    return view


def check_organiser_stream(client: Any, match: dict[str, Any], truth: Truth) -> None:
    """Only the organiser's stream carries the deck (and it is the log's)."""
    streamed = stream(client, match["id"], ADMIN_AUTH, truth.dealt - 1, truth.version)
    assert streamed == truth.events[truth.dealt - 1:]
    assert streamed[0]["type"] == "HandDealt" and "deck" in streamed[0]["data"]


# --- playing -------------------------------------------------------------------------------


def choose(rng: random.Random, view: dict[str, Any]) -> dict[str, Any]:
    """A legal action: mostly a good one (knock when allowed, take a useful upcard, discard
    well), so that hands end in a few turns; sometimes any."""
    legal = view["legal_actions"]
    best = set(view.get("best_discard", {}).get("cards", []))
    draw = useful_draw(view) if TAKE in legal else None
    return keen(rng, legal, (of_type(*ENDERS), 0.9), (lambda action: action == draw, 0.9),
                (discarding(best), 0.8))


def useful_draw(view: dict[str, Any]) -> dict[str, Any]:
    """The upcard or top discard if it lowers the seat's deadwood, else the stock."""
    with_top = [*view["hand"], view["discard_pile"][-1]]
    if SOLVER.best_discard(with_top)[0] < view["deadwood"]:
        return TAKE
    return {"type": "draw", "source": "stock"}


def hidden_after(truth: Truth, viewer: int | None, seat: int,
                 action: dict[str, Any]) -> set[str]:
    """What ``viewer`` must still not see once ``seat`` has played ``action``."""
    hidden = truth.hidden_from(viewer) - {action.get("card"), action.get("discard")}
    if action["type"] in ("knock", "big_gin"):  # the knocker lays the hand down face up
        hidden -= set(truth.full["all_hands"][seat])
    if viewer == seat and action == {"type": "draw", "source": "stock"}:
        hidden.discard(truth.full["stock"][0])  # now in the seat's own hand
    return hidden


def play_and_check(client: Any, match: dict[str, Any], truth: Truth,
                   view: dict[str, Any], rng: random.Random) -> None:
    """The seat on turn plays; its answer leaks nothing, nor the events of an ending.

    With jobs run inline a hand that ends is scored and the next one dealt at once, so a
    knock's ``ending`` and ``HandKnocked`` are only ever seen here (the events of any other
    action are checked at the next step, with the rest of the hand).
    """
    seat, action = view["seat"], choose(rng, view)
    url = f"/v1/matches/{match['id']}"
    response = client.post(f"{url}/actions", json=action, headers=auth(match, seat))
    assert response.status_code == 200, (action, response.json)
    answer = response.json
    assert answer["version"] > truth.version
    mine = hidden_after(truth, seat, seat, action)
    assert_no_secrets(f"seat {seat} answer", answer, truth)
    assert_no_hidden_cards(f"seat {seat} answer",
                           {k: v for k, v in answer.items() if k != "hands"}, mine)
    if answer["phase"] in ("upcard", "draw", "discard"):
        return
    for viewer in [PUBLIC, *range(len(match["seats"]))]:
        new = client.get(f"{url}/events?after={truth.version}",
                         headers=auth(match, viewer)).json["events"]
        new = [e for e in new if e["version"] <= answer["version"]]  # not the jobs' events
        assert [e["version"] for e in new] == list(range(truth.version + 1,
                                                         answer["version"] + 1))
        label = f"{name(viewer)} log after {action}"
        assert_no_secrets(label, new, truth)
        assert_no_hidden_cards(label, new, hidden_after(truth, viewer, seat, action))


def play(client: Any, players: int, hands: int, seed: int, new_match: Any = create,
         read: Any = read_truth, **options: Any) -> int:
    """Play up to ``hands`` hands, checking every caller at every step; returns the steps.

    ``new_match`` and ``read`` (the organiser's ground truth) let other families reuse it.
    """
    rng = random.Random(f"{new_match.__name__}-{players}-{seed}")
    match = new_match(client, players=players, **options)
    steps, dealt = 0, 0
    while True:
        truth = read(client, match["id"], players)
        full = truth.full
        last = full["phase"] == "complete" or full["hand_number"] > hands
        check_organiser_stream(client, match, truth)
        views = {viewer: check_viewer(client, match, truth, viewer,
                                      whole_log=truth.dealt != dealt or last)
                 for viewer in [PUBLIC, *range(players)]}
        dealt = truth.dealt
        if last:
            return steps
        assert full["turn"] is not None, full["phase"]
        play_and_check(client, match, truth, views[full["turn"]], rng)
        steps += 1


@pytest.mark.parametrize("players, target", [(2, 100), (3, 100), (4, 100), (2, 1), (4, 1)])
def test_no_caller_ever_sees_hidden_cards_or_the_stock(client, players, target):
    """Two hands each (the second with the first in the history); target 1 also ends the
    match, so the last hand is judged after its showdown."""
    assert play(client, players, hands=2, seed=target, target=target) > 0
