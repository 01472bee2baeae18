"""Rummy by composition (issue 19, finding 5): two pages play rummy until a seat composes
a lay-down on the page (cards picked into a meld, a joker told what it stands for, the
server's check shown: value, opening) and lays it down; draws and discards by their cards
and buttons. (A whole hand played this way takes minutes: it is not in the suite.)"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.browser.test_hand_and_match_end import created, seated
from tests.browser.test_reference_client import Page, click, shot


def seat_view(api_url: str, match: dict[str, Any], seat: int) -> dict[str, Any]:
    request = urllib.request.Request(f"{api_url}/v1/matches/{match['id']}", headers={
        "Authorization": f"Bearer {match['seats'][seat]['token']}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def compose(player: Page, meld: dict[str, Any], screenshot: Path | None = None) -> bool:
    """Pick the meld's cards on the page, say what its jokers stand for, and lay it down
    if the server's check says it may; True when it was laid down."""
    used: set[str] = set()
    for code in meld["cards"]:
        picks = player.page.locator(f".composer button.pick[data-card='{code}']")
        for n in range(picks.count()):
            index = picks.nth(n).get_attribute("data-index")
            if index not in used:
                used.add(index)
                picks.nth(n).click()
                break
    player.page.click(".composer button.make-meld")
    for position, code in enumerate(meld["cards"]):
        if code == "JK":
            slots = player.page.locator(".composer .pending input.stands")
            for n in range(slots.count()):
                if not slots.nth(n).input_value():
                    slots.nth(n).fill(meld["represents"][position])
                    slots.nth(n).dispatch_event("change")
                    break
    player.page.wait_for_selector(".composer .composer-result[data-legal='true'], "
                                  ".composer .composer-result[data-legal='false']")
    if player.attribute(".composer .composer-result", "data-legal") != "true":
        player.page.click(".composer .pending button.drop")
        return False
    assert "Worth" in (player.page.text_content(".composer .composer-result") or "")
    if screenshot is not None:
        shot(player, screenshot.parent, screenshot.name)
    before = player.version()
    player.page.click(".composer button.lay-down")
    player.page.wait_for_function(
        "v => Number(document.querySelector('.table').dataset.version) > v", arg=before)
    return True


PACE_S = 0.25
"""A pause after each move: two seats moving as fast as a script can would pass the
server's 300 actions a minute per seat (a 429 is not what this test is about)."""


def test_a_rummy_lay_down_is_composed_checked_and_laid(browser, api_url, tmp_path):
    match = created(api_url, "rummy", opening_minimum=0, rounds=2)
    pages = [seated(browser, api_url, match, seat) for seat in (0, 1)]
    composed = 0
    for _ in range(1500):
        if composed:
            break
        moved = False
        for seat, player in enumerate(pages):
            actions = player.actions()
            if not actions:
                continue
            moved = True
            draw = [a for a in actions if a == {"type": "draw", "source": "stock"}]
            if draw:
                click(player, draw[0])
                break
            candidates = seat_view(api_url, match, seat).get("meld_candidates") or []
            if candidates and player.page.locator(".composer").count():
                meld = {k: candidates[0][k] for k in ("cards", "represents") if k in candidates[0]}
                first = tmp_path / "rummy-compose.png" if not composed else None
                if compose(player, meld, first):
                    composed += 1
                    break
            discards = [a for a in player.actions() if a["type"] == "discard"]
            click(player, (discards or player.actions())[0])
            break
        time.sleep(PACE_S if moved else 0.05)
    assert composed == 1
    for player in pages:  # the composed meld is on the table, for both seats
        player.page.wait_for_selector(".table-melds li[data-meld]")
    for player in pages:
        assert not player.errors, player.errors
        player.page.close()
