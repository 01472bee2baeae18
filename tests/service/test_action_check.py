"""Checking a move before making it (issue 19, finding 5's server part): the rules answer
whether a composed move is legal and what it would append, and nothing is appended."""

from __future__ import annotations

from domain.variants import VARIANTS
from tests.builders import prepared_deck
from tests.service.conftest import ADMIN_AUTH, bearer, create
from tests.service.test_matches_api import act, to_knock

RUMMY = VARIANTS["rummy"]


def check(client, match, seat, action):
    return client.post(f"/v1/matches/{match['id']}/actions/check", json=action,
                       headers=bearer(match["seats"][seat]["token"]))


def version(client, match):
    return client.get(f"/v1/matches/{match['id']}").json["version"]


def test_a_legal_knock_is_described_and_not_made(client):
    match = to_knock(client)  # Bob (seat 1) holds a knock discarding 5S
    before = version(client, match)
    answer = check(client, match, 1, {"type": "knock", "discard": "5S"})
    assert answer.status_code == 200, answer.json
    assert answer.json["legal"] is True and answer.json["version"] == before
    assert answer.json["events"][0]["type"] == "HandKnocked"
    assert answer.json["events"][0]["data"]["deadwood"] == 3
    assert version(client, match) == before  # nothing was appended
    assert act(client, match, 1, {"type": "knock", "discard": "5S"},
               **{"If-Match": str(before)}).status_code == 200


def test_an_illegal_move_says_why_as_the_action_would(client):
    match = to_knock(client)
    answer = check(client, match, 0, {"type": "discard", "card": "2C"})
    assert answer.status_code == 200
    assert answer.json == {"legal": False, "version": version(client, match),
                           "code": "not_your_turn", "message": answer.json["message"]}
    made = act(client, match, 0, {"type": "discard", "card": "2C"})
    assert (made.status_code, made.json["code"]) == (422, "not_your_turn")


def test_a_check_never_shows_the_next_stock_card(client):
    match = to_knock(client)
    client.post(f"/v1/matches/{match['id']}/actions", json={"type": "discard", "card": "5S"},
                headers=bearer(match["seats"][1]["token"]))
    answer = check(client, match, 0, {"type": "draw", "source": "stock"})
    assert answer.json["legal"] is True
    (drawn,) = [e for e in answer.json["events"] if e["type"] == "CardDrawn"]
    assert "card" not in drawn["data"] or drawn["data"]["card"] is None


def knocker_facing(client, defenders_sixth: str, stock: str):
    """Bob (seat 1) has drawn 8D and may knock it with 3C 4C 5C 4D 4H (deadwood 8 as a run
    or as a set); Ann holds 6C, which lays off onto the run, or not."""
    deck = prepared_deck([f"2D 7D 9D JD 6H QH 2H 7H KH {defenders_sixth}",
                          "3C 4C 5C 4D 4H 9S TS JS QS KS"], upcard="AH", stock=f"8D {stock}")
    match = create(client, deck)
    for seat, action in ((1, {"type": "pass"}), (0, {"type": "pass"}),
                         (1, {"type": "draw", "source": "stock"})):
        assert act(client, match, seat, action).status_code == 200
    return match


def test_a_knocks_check_shows_nothing_of_the_defenders_hand(client):
    """The knock itself shows, among equal arrangements, the one the defender can lay off
    least onto (docs/rules.md 1.5): that reads Ann's cards. Its check must not: matches
    alike for Bob get the same answer, however often he asks."""
    knock = {"type": "knock", "discard": "8D"}
    holding, not_holding = knocker_facing(client, "6C", "3S"), knocker_facing(client, "3S", "6C")
    answers = [check(client, match, 1, knock).json for match in (holding, not_holding)]
    assert answers[0]["events"] == answers[1]["events"]
    for match in (holding, not_holding):
        assert act(client, match, 1, knock).status_code == 200
    assert knocked_melds(client, holding) != knocked_melds(client, not_holding)


def knocked_melds(client, match):
    """The melds the match's knock showed, as recorded."""
    events = client.get(f"/v1/matches/{match['id']}/events").json["events"]
    (knocked,) = [e["data"] for e in events if e["type"] == "HandKnocked"]
    return sorted(sorted(meld["cards"]) for meld in knocked["melds"])


def rummy_match(client, **options):
    """Bob (seat 1, first to play) holds 7H 8H and a joker."""
    shoe = list(RUMMY.deck(RUMMY.parse_options(None, 2)))
    for card in ("7H", "8H", "JK"):
        shoe.remove(card)
    bob = ["7H", "8H", "JK", *shoe[13:23]]
    deck = [card for pair in zip(bob, shoe[:13], strict=True) for card in pair] + shoe[23:]
    match = client.post("/v1/matches", headers=ADMIN_AUTH, json={
        "variant": "rummy", "players": [{"name": "Ann"}, {"name": "Bob"}], "deck": deck,
        "options": {"first_dealer": 0, **options}}).json
    assert act(client, match, 1, {"type": "draw", "source": "stock"}).status_code == 200
    return match


MELD = {"cards": ["7H", "8H", "JK"], "represents": ["7H", "8H", "9H"]}


def test_a_composed_rummy_lay_down_is_valued_before_it_is_sent(client):
    """Bob composes 7H-8H-JK(9H): worth 24, the check says so; it opens where the
    minimum allows, and is refused with the code /actions would give where it does not."""
    free = rummy_match(client, opening_minimum=0)
    answer = check(client, free, 1, {"type": "lay_down", "melds": [MELD]})
    assert answer.json["legal"] is True, answer.json
    (laid,) = [e["data"] for e in answer.json["events"] if e["type"] == "MeldsLaidDown"]
    assert (laid["value"], laid["opening"]) == (24, True)
    match = rummy_match(client)
    too_low = check(client, match, 1, {"type": "lay_down", "melds": [MELD]})
    assert too_low.json["legal"] is False and too_low.json["code"] == "opening_too_low"
    before = version(client, match)
    bad = check(client, match, 1, {"type": "lay_down", "melds": [{"cards": ["7H", "8H"]}]})
    assert bad.json["legal"] is False
    malformed = check(client, match, 1, {"type": "lay_down", "melds": "7H"})
    assert (malformed.status_code, malformed.json["code"]) == (400, "invalid_action")
    assert version(client, match) == before
    assert check(client, match, 1, {"type": "lay_down", "melds": [MELD]}).status_code == 200


def test_only_a_seat_checks_its_own_moves(client):
    match = to_knock(client)
    url = f"/v1/matches/{match['id']}/actions/check"
    assert client.post(url, json={"type": "pass"}).status_code == 401
    assert client.post(url, json={"type": "pass"}, headers=ADMIN_AUTH).status_code == 403
