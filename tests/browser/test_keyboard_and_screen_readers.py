"""The client for a keyboard and a screen reader: a whole gin hand played with Tab and
Enter alone, the focus back on the hand after every move (it once fell to the top of the
page), whose turn it is announced, every control named for what it does (the stock was
just "31"), and axe finding no serious or critical violation on any page (there was a
4.28:1 contrast and no h1), nor a heading that skips a level (the table's "Stock" was an
h3 under its h1)."""

from __future__ import annotations

import json
import time
from typing import Any

from axe_playwright_python.sync_playwright import Axe

from tests.browser.playing import created, eager, seated
from tests.browser.test_reference_client import ACTIONS, Page

FOCUSED_ACTION = "() => document.activeElement && document.activeElement.dataset.action || null"
TABS = 120
"""Tab presses a move may take at most: past every control of the page and round again."""


def press_to(player: Page, action: dict[str, Any]) -> None:
    """Tab until the control carrying ``action`` has the focus, then press Enter."""
    wanted = json.dumps(action, separators=(",", ":"))
    for _ in range(TABS):
        found = player.page.evaluate(FOCUSED_ACTION)
        if found is not None and json.loads(found) == action:
            before = player.version()
            player.page.keyboard.press("Enter")
            player.page.wait_for_function(
                "v => Number(document.querySelector('.table').dataset.version) > v", arg=before)
            return
        player.page.keyboard.press("Tab")
    raise AssertionError(f"no control for {wanted} within {TABS} tabs")


def focus_is_on_the_hand(player: Page) -> bool:
    return bool(player.page.evaluate(
        "() => !!document.activeElement.closest('.mine, .table')"))


def test_a_whole_gin_hand_by_keyboard_alone(browser, api_url):
    match = created(api_url, target=1)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    for player in (ann, bob):
        player.page.focus(".table .status")  # where a keyboard player starts: on the table
    moves = 0
    deadline = time.monotonic() + 120
    while ann.attribute(".table", "data-phase") != "complete":
        assert time.monotonic() < deadline, "the hand did not end by keyboard"
        mover = next((p for p in (ann, bob) if p.actions()), None)
        if mover is None:
            time.sleep(0.02)
            continue
        press_to(mover, eager(mover.actions(), mover.best_discard()))
        moves += 1
        if mover.attribute(".table", "data-phase") != "complete":
            assert focus_is_on_the_hand(mover), "the focus left the table after a move"
    assert moves >= 3
    for player in (ann, bob):
        player.close_clean()


def test_whose_turn_is_announced_and_controls_say_what_they_do(browser, api_url):
    match = created(api_url, target=100)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    for player in (ann, bob):
        player.page.wait_for_function(
            "() => document.querySelector('.announce[aria-live]').textContent.includes('turn')")
    turn = ann.page.text_content(".announce") or ""
    assert turn.startswith(("Your turn", "Bob's turn")), turn
    mover = ann if ann.actions() else bob
    names = mover.page.eval_on_selector_all(
        ACTIONS, "els => els.map(e => e.getAttribute('aria-label') || e.textContent)")
    assert names and all(name and not name.strip().isdigit() for name in names), names
    assert mover.page.get_attribute(".pile.stock .card", "aria-label") not in (None, ""), \
        "the stock needs a name that says what it is"
    for player in (ann, bob):
        player.close_clean()


def serious_violations(page: Any) -> list[str]:
    """axe's serious and critical findings, and headings that skip a level (moderate, but
    a screen reader's list of headings is how a page is read)."""
    found = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
            for v in found if v["impact"] in ("serious", "critical") or v["id"] == "heading-order"]


def test_axe_finds_no_serious_violation_on_any_page(browser, api_url):
    match = created(api_url, target=100)
    rummy = created(api_url, "rummy")
    seat = seated(browser, api_url, match, 1)
    rummy_seat = seated(browser, api_url, rummy, 0)
    lobby = Page(browser, f"{api_url}/#/")
    lobby.page.wait_for_selector("form.create")
    watch = Page(browser, f"{api_url}/#/watch/{match['id']}")
    watch.page.wait_for_selector(".table")
    replay = Page(browser, f"{api_url}/#/replay/{match['id']}")
    replay.page.wait_for_selector(".replay .stage .event")
    pages = {"lobby": lobby, "gin seat": seat, "rummy seat": rummy_seat, "watch": watch,
             "replay": replay}
    found = {name: serious_violations(page.page) for name, page in pages.items()}
    assert found == {name: [] for name in pages}, found
    for page in pages.values():
        page.page.close()
