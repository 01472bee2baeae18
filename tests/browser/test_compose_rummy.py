"""Rummy by composition (issue 19, finding 5): two pages play a whole rummy hand in which
every placement is composed on the page, never clicked ready-made: the opening's melds
picked card by card against the minimum the page shows (40), jokers told what they stand
for, the server's check (value, opening) read before laying down, single cards laid off
onto table melds and swapped for jokers with the composer's own controls. Draws and
discards are the page's buttons. The hand ends and its showdown opens on both pages.

The script chooses as a player would, from the seat's view (its ``legal_actions`` name
which placements are possible); the page is what builds and sends each one.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.playing import created, seated
from tests.browser.test_reference_client import Page, click, shot
from tests.conftest import server_env, serving_api


@pytest.fixture(scope="module")
def roomy_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``make serve``'s server with room for two scripted seats: an operator's
    ``RUMMY_LIMIT_ACTIONS`` of 6000 a minute (the default 300 is a person's or a fair
    bot's pace; a script moving as fast as the page draws would meet 429 mid-hand), and
    an admin token, whose matches may take a seed: the same deals on every run."""
    def argv(port: int) -> list[str]:
        return [sys.executable, "-m", "service.serve", "--port", str(port)]

    env = server_env(RUMMY_LIMIT_ACTIONS="6000/minute", RUMMY_ADMIN_TOKEN=ADMIN)
    with serving_api("roomy-api", argv, env,
                     tmp_path_factory.mktemp("roomy") / "api.log") as url:
        yield url


ADMIN = "compose-admin"
SEED = "compose-1"
"""A seed whose first hand, played as ``play_turn`` plays, needs every control: both
seats open, a later lay-down, lay-offs and a joker exchange."""


def seeded_rummy(api_url: str) -> dict[str, Any]:
    body = {"variant": "rummy", "players": [{"name": "Ann"}, {"name": "Bob"}],
            "options": {"rounds": 2, "first_dealer": 0}, "seed": SEED}
    request = urllib.request.Request(f"{api_url}/v1/matches", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              "Authorization": f"Bearer {ADMIN}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def seat_view(api_url: str, match: dict[str, Any], seat: int) -> dict[str, Any]:
    request = urllib.request.Request(f"{api_url}/v1/matches/{match['id']}", headers={
        "Authorization": f"Bearer {match['seats'][seat]['token']}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def await_next_version(player: Page, before: int) -> None:
    player.page.wait_for_function(
        "v => Number(document.querySelector('.table').dataset.version) > v", arg=before)


def caught_up(player: Page, api_url: str, match: dict[str, Any], seat: int) -> dict[str, Any]:
    """The seat's view from the server, once the page shows it too (the other seat's last
    move reaches this page by its live stream, a few milliseconds after the server)."""
    view = seat_view(api_url, match, seat)
    await_next_version(player, view["version"] - 1)
    return view


def pick(player: Page, code: str, used: set[str]) -> None:
    """Pick one card of this code on the composer's hand row (not one already picked).
    The row is redrawn after every pick and check: read it whole, then click by index."""
    indices = player.page.eval_on_selector_all(
        f".composer button.pick[data-card='{code}']", "els => els.map(e => e.dataset.index)")
    free = [index for index in indices if index not in used]
    assert free, f"the composer offers no free {code}"
    used.add(free[0])
    player.page.click(f".composer button.pick[data-index='{free[0]}']")


def compose(player: Page, melds: list[dict[str, Any]]) -> str:
    """Pick each meld's cards, make it a meld, say what its jokers stand for and wait for
    the server's check, which must find them legal; its words."""
    used: set[str] = set()
    for meld in melds:
        for code in meld["cards"]:
            pick(player, code, used)
        player.page.click(".composer button.make-meld")
        jokers = [r for c, r in zip(meld["cards"], meld.get("represents") or meld["cards"],
                                    strict=True) if c == "JK"]
        slots = player.page.locator(".composer .pending li:last-child select.stands")
        for n, stands in enumerate(jokers):  # the picker offers what the joker may be
            slots.nth(n).select_option(stands)
    player.page.wait_for_selector(".composer .composer-result[data-legal='true'], "
                                  ".composer .composer-result[data-legal='false']")
    words = player.page.text_content(".composer .composer-result") or ""
    assert player.attribute(".composer .composer-result", "data-legal") == "true", words
    return words


def assert_no_page_scroll(player: Page) -> None:
    height = player.page.evaluate("[document.documentElement.scrollHeight, innerHeight]")
    assert height[0] <= height[1], f"the page scrolls on a laptop screen: {height}"


def compose_lay_down(player: Page, melds: list[dict[str, Any]],
                     screenshot: Path | None = None) -> str:
    """Compose the melds, then lay all of them down in one move; the check's words."""
    words = compose(player, melds)
    if screenshot is not None:  # the opening lay-down, three melds composed: no page scroll
        assert_no_page_scroll(player)
        shot(player, screenshot.parent, screenshot.name)
    before = player.version()
    player.page.click(".composer button.lay-down")
    await_next_version(player, before)
    return words


def compose_single(player: Page, action: dict[str, Any]) -> None:
    """A lay-off or a joker exchange: pick the one card, choose the table meld, send."""
    pick(player, action["card"], set())
    if action["type"] == "lay_off":
        player.page.select_option("select[name=lay-off-meld]", str(action["meld"]))
        if action["card"] == "JK":
            player.page.select_option("select[name=lay-off-stands]", action["represents"])
        button = ".composer button.lay-off-send"
    else:
        player.page.select_option("select[name=exchange-meld]", str(action["meld"]))
        button = ".composer button.exchange-send"
    before = player.version()
    player.page.click(button)
    await_next_version(player, before)


def discard(player: Page) -> None:
    """Throw the highest card the page offers (a joker last): fewer points in hand."""
    offered = [a for a in player.actions() if a["type"] == "discard"]
    order = "23456789TJQKA"
    offered.sort(key=lambda a: -1 if a["card"] == "JK" else order.index(a["card"][0]))
    click(player, offered[-1])


class Tally:
    """What the hand's composing did: the test's evidence that each control was used."""

    def __init__(self) -> None:
        self.openings: list[str] = []
        self.lay_downs = 0
        self.lay_offs = 0
        self.exchanges = 0


def play_turn(player: Page, api_url: str, match: dict[str, Any], seat: int, tally: Tally,
              screenshots: Path) -> None:
    """One whole turn of ``seat``: draw, then compose every placement it can, then discard."""
    caught_up(player, api_url, match, seat)
    click(player, {"type": "draw", "source": "stock"})
    for _ in range(30):
        view = caught_up(player, api_url, match, seat)
        legal = view["legal_actions"]
        if view.get("phase") != "play" or view.get("turn") != seat:
            return  # the hand ended on a placement
        opening = view.get("opening")
        lay_downs = [a for a in legal if a["type"] == "lay_down"]
        if opening is not None:
            if not lay_downs:
                break
            minimum = player.attribute(".composer .opening-line", "data-minimum")
            assert minimum == str(opening["minimum"]) == "40"
            first = screenshots / "rummy-compose.png" if not tally.openings else None
            tally.openings.append(compose_lay_down(player, lay_downs[0]["melds"], first))
            continue
        singles = [a for a in legal if a["type"] in ("exchange_joker", "lay_off")]
        if lay_downs:
            compose_lay_down(player, lay_downs[0]["melds"])
            tally.lay_downs += 1
        elif singles:
            compose_single(player, singles[0])
            if singles[0]["type"] == "lay_off":
                tally.lay_offs += 1
            else:
                tally.exchanges += 1
        else:
            break
    discard(player)


def test_a_whole_rummy_hand_is_played_by_composition(browser, roomy_api, tmp_path):
    match = seeded_rummy(roomy_api)
    pages = [seated(browser, roomy_api, match, seat) for seat in (0, 1)]
    tally = Tally()
    for _ in range(400):
        view = seat_view(roomy_api, match, 0)
        if view.get("hands"):
            break
        seat = view["turn"]
        play_turn(pages[seat], roomy_api, match, seat, tally, tmp_path)
    assert view.get("hands"), "the hand did not end"
    assert tally.openings and all("this opens" in words and "of the 40 needed" in words
                                  for words in tally.openings), tally.openings
    assert len(tally.openings) == 2 and tally.lay_downs and tally.lay_offs and tally.exchanges
    for player in pages:  # the hand's end is laid open on both pages, melds and all
        player.page.wait_for_selector(".showdown-panel .showdown-hand[data-hand='1']")
        player.page.wait_for_selector(".showdown-panel .melds .card")
    for player in pages:
        player.close_clean()


JOKER_CHOICES = """async () => {
  const {jokerChoices} = await import("/web/js/compose.js");
  return {
    set: jokerChoices(["7H", "JK", "7S"]),
    run: jokerChoices(["5H", "6H", "JK"]),
    two_jokers: jokerChoices(["9C", "JK", "JK"], 2),
    ace_high: jokerChoices(["QS", "KS", "JK"]),
    ace_low: jokerChoices(["AD", "2D", "JK"]),
    unsaid: jokerChoices(["JK", "JK", "JK"], 3).length,
  };
}"""


def test_a_jokers_picker_offers_the_cards_it_may_stand_for(browser, api_url):
    """A joker's value is chosen from the cards that fit its meld, not typed as a code
    ("10H" did not fit the field; "7♠" was refused as malformed)."""
    page = Page(browser, f"{api_url}/#/")
    assert page.page.evaluate(JOKER_CHOICES) == {
        "set": ["7C", "7D"],
        "run": ["4H", "7H"],
        "two_jokers": ["9D", "9H", "9S", "7C", "8C", "TC", "JC"],
        "ace_high": ["JS", "AS"],
        "ace_low": ["3D"],
        "unsaid": 52,
    }
    page.close_clean()


def test_the_hand_is_shown_once_and_a_click_on_it_never_discards(browser, api_url):
    """A rummy seat that has drawn holds its hand in the composer alone (it was drawn
    twice, and a click on the upper copy threw the card at once): a click picks a card, and
    the discard is its own button."""
    match = created(api_url, "rummy")
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    player = ann if ann.actions() else bob
    click(player, {"type": "draw", "source": "stock"})
    player.page.wait_for_selector(".composer .pickable")
    held = len(seat_view(api_url, match, 0 if player is ann else 1)["hand"])
    assert player.page.locator(".mine .card").count() == held  # one copy of the hand
    before = player.version()
    player.page.locator(".composer button.pick").first.click()
    player.page.wait_for_selector(".composer button.discard-picked")
    assert player.version() == before, "picking a card must not move the table"
    player.page.click(".composer button.discard-picked")
    await_next_version(player, before)
    assert player.page.locator(".mine .card").count() == held - 1
    for page in (ann, bob):
        page.close_clean()
