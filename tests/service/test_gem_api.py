"""Gem Rummy over HTTP: a whole three-player hand with a deep pick, and hidden information
in random two- and three-player gem games (docs/rules.md section 2)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import prepared_deck
from tests.service.conftest import ADMIN_AUTH, bearer
from tests.service.test_hidden_information import Truth, play, read_truth

NAMES = ["Ann", "Bob", "Cy"]

# Dealer 0, dice 3 + 4 (knock limit 7, designated diamond 7D). Seat 1 plays first.
SEAT_0 = "2D 5S 7S 8S 9S TC TH TS QC QH QS"  # melds all but 2D and 5S
SEAT_1 = "7C KC AD JH 4D 5D JD QD KD 2H 9C"  # emerald stash, JD-KD, and 4D 5D wanting 6D
SEAT_2 = "3D 4H 6C 8C AS 3H 6S 8H JC JS 6D"
DECK = prepared_deck([SEAT_0, SEAT_1, SEAT_2], upcard="9D", stock="AH TD KS")


def create_gem(client: Any, players: int = 3, deck: list[str] | None = None,
               dice: list[int] | None = None, **options: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"variant": "gem", "players": [{"name": n} for n in NAMES[:players]],
                            "options": {"first_dealer": 0, **options}}
    if deck is not None:
        body["deck"] = deck
    if dice is not None:
        body["dice"] = dice
    organiser = deck is not None or dice is not None
    response = client.post("/v1/matches", json=body, headers=ADMIN_AUTH if organiser else {})
    assert response.status_code == 201, response.json
    return response.json


def act(client: Any, match: dict[str, Any], seat: int, action: dict[str, Any]) -> dict[str, Any]:
    response = client.post(f"/v1/matches/{match['id']}/actions", json=action,
                           headers=bearer(match["seats"][seat]["token"]))
    assert response.status_code == 200, (action, response.json)
    return response.json


def seat_view(client: Any, match: dict[str, Any], seat: int) -> dict[str, Any]:
    return client.get(f"/v1/matches/{match['id']}",
                      headers=bearer(match["seats"][seat]["token"])).json


class TestThreePlayerHand:
    def test_a_whole_hand_with_a_deep_pick(self, client):
        match = create_gem(client, deck=DECK, dice=[3, 4])
        url = f"/v1/matches/{match['id']}"
        public = client.get(url).json
        assert (public["dice"], public["knock_limit"], public["diamond"]) == ([3, 4], 7, "7D")
        assert public["phase"] == "draw" and public["turn"] == 1  # no upcard offer
        assert public["commitment"] and public["discard_pile"] == ["9D"]

        act(client, match, 1, {"type": "draw", "source": "stock"})    # AH
        act(client, match, 1, {"type": "discard", "card": "9C"})
        act(client, match, 2, {"type": "draw", "source": "stock"})    # TD
        act(client, match, 2, {"type": "discard", "card": "6D"})
        act(client, match, 0, {"type": "draw", "source": "stock"})    # KS
        act(client, match, 0, {"type": "discard", "card": "KS"})

        view = seat_view(client, match, 1)
        assert client.get(url).json["discard_pile"] == ["9D", "9C", "6D", "KS"]  # spread
        assert view["legal_actions"] == [
            {"type": "draw", "source": "stock"},
            {"type": "draw", "source": "discard"},
            {"type": "draw", "source": "discard", "depth": 2},  # 6D fits 4D 5D
        ]
        assert view["gems"]["KC"] == ["emerald", "ruby"] and view["gems"]["9D"] == ["ruby"]
        refused = client.post(f"{url}/actions", json={"type": "draw", "source": "discard",
                                                      "depth": 3},
                              headers=bearer(match["seats"][1]["token"]))
        assert refused.status_code == 422 and refused.json["code"] == "deep_card_cannot_meld"

        view = act(client, match, 1, {"type": "draw", "source": "discard", "depth": 2})
        assert len(view["hand"]) == 13 and view["must_meld"] == "6D"
        discards = {a["card"] for a in view["legal_actions"] if a["type"] == "discard"}
        assert not discards & {"4D", "5D", "6D"}
        assert {"type": "knock", "discard": "KS"} in view["legal_actions"]

        act(client, match, 1, {"type": "knock", "discard": "KS"})
        after = client.get(url).json
        result = after["hands"][0]
        assert [(p["defender"], p["result"], p["points"]) for p in result["pairings"]] == [
            (0, "undercut", 25), (2, "knock", 49)]
        assert result["gem_parts"] == [8, 16, 0]
        assert result["points"] == [33, 65, 0] and after["scores"] == [33, 65, 0]
        laid = {s["seat"]: sorted(x["card"] for x in s["layoffs"]) for s in result["seats"]}
        assert laid == {0: ["2D", "5S"], 1: [], 2: ["3D", "4H", "TD"]}
        assert after["hand_number"] == 2 and after["dealer"] == 1  # the winner deals

    def test_the_variant_describes_its_gem_deck(self, client):
        gem = next(v for v in client.get("/v1/variants").json["variants"] if v["name"] == "gem")
        assert {o["name"]: o["default"] for o in gem["options"]}["target"] == 110
        if "cards" in gem:  # shown once the variants schema carries the gem deck
            assert gem["cards"]["KS"] == ["amethyst", "gold"]

    @pytest.mark.parametrize("dice", [[0, 4], [3, 7], [3]])
    def test_fixed_dice_must_be_two_dice(self, client, dice):
        body = {"variant": "gem", "players": [{"name": "A"}, {"name": "B"}], "dice": dice}
        response = client.post("/v1/matches", json=body, headers=ADMIN_AUTH)
        assert response.status_code == 400

    def test_only_the_organiser_fixes_dice(self, client):
        body = {"variant": "gem", "players": [{"name": "A"}, {"name": "B"}], "dice": [3, 4]}
        assert client.post("/v1/matches", json=body).status_code == 401


# --- hidden information ---------------------------------------------------------------------


def read_gem_truth(client: Any, match_id: str, players: int) -> Truth:
    """``read_truth``, with the designated diamond public: every view names that card (it
    makes Queen's Diamonds), which says nothing about where it lies."""
    truth = read_truth(client, match_id, players)
    if truth.full.get("diamond"):
        truth.public.add(truth.full["diamond"])
    return truth


@pytest.mark.parametrize("players, target", [(2, 110), (3, 110), (3, 1)])
def test_no_caller_ever_sees_hidden_cards_or_the_stock(client, players, target):
    assert play(client, players, hands=2, seed=target, new_match=create_gem,
                read=read_gem_truth, target=target) > 0
