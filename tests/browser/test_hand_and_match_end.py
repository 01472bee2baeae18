"""What a player sees when a hand and a match end, and the seat controls (issue 19,
findings 2-4): the showdown of every hand stays on screen until the player continues;
the end of a match names the winner (by resignation too), shows final scores, bonuses and
every hand with no card face down and no presence dots, and offers "Play again" (a
rematch: one offers, the other accepts, and both sit at the new table, seats swapped; or
the other declines, and both are told); a player resigns, gives back a claimed seat, and a
creator calls off a waiting match."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.playing import created, play_over_the_api, play_until, seated
from tests.browser.test_reference_client import Page, shot


def test_a_hands_showdown_stays_until_the_player_continues(browser, api_url, tmp_path):
    match = created(api_url, target=500)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    panel = ".showdown-panel .showdown-hand[data-hand='1']"
    play_over_the_api(api_url, match, [ann, bob], lambda: ann.page.locator(panel).count() > 0)
    bob.page.wait_for_selector(panel)
    for player in (ann, bob):
        seats = player.page.locator(f"{panel} .showdown")
        assert seats.count() == 2  # both seats laid open: melds, deadwood, points
        for row in range(2):
            assert seats.nth(row).locator(".card").count() >= 1
        assert player.page.locator(f"{panel} .showdown .card").count() >= 15
        assert "points" in (player.page.text_content(f"{panel} .showdown .points") or "")
    shot(ann, tmp_path, "gin-showdown.png")
    time.sleep(2)  # the next hand is already dealt beneath; the showdown is still there
    assert ann.page.locator(panel).count() == 1
    assert ann.attribute(".table", "data-phase") != "scoring"
    ann.page.click(".showdown-panel button.continue")
    assert ann.page.locator(".showdown-panel").count() == 0
    assert bob.page.locator(panel).count() == 1  # each player continues for themself
    for player in (ann, bob):
        player.close_clean()


SHOWDOWN_S = 12
"""play.js's SHOWDOWN_MS, in seconds: how long the showdown stays open by itself."""

BOARD_TOP = "document.querySelector('.board').getBoundingClientRect().top"


def test_the_board_stays_put_when_the_showdown_closes_by_itself(browser, api_url):
    """Closing by itself, the panel folds to its headline and keeps its place (it once
    took 255 px with it, and the board jumped up under the player's pointer)."""
    match = created(api_url, target=500)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    panel = ".showdown-panel .showdown-hand[data-hand='1']"
    play_over_the_api(api_url, match, [ann, bob], lambda: ann.page.locator(panel).count() > 0)
    ann.page.evaluate("window.scrollTo(0, 0)")
    before = ann.page.evaluate(BOARD_TOP)
    ann.page.wait_for_selector(".showdown-panel", state="detached", timeout=(SHOWDOWN_S + 5) * 1000)
    assert abs(ann.page.evaluate(BOARD_TOP) - before) <= 2
    assert (ann.page.text_content(".showdown-folded") or "").startswith("Hand 1: ")
    ann.page.click(".showdown-folded button.show-again")  # the hand laid open again, to stay
    ann.page.wait_for_selector(panel)
    assert abs(ann.page.evaluate(BOARD_TOP) - before) <= 2
    ann.page.click(".showdown-panel button.continue")  # the player's own close frees the space
    assert ann.page.locator(".showdown-panel, .showdown-folded").count() == 0
    assert ann.page.evaluate(BOARD_TOP) < before - 50
    for player in (ann, bob):
        player.close_clean()


def created_with_bob_handed_over(browser: Any, api_url: str) -> tuple[Page, Page, str]:
    """Ann creates a one-point gin match from the lobby with Bob named in seat 1, and hands
    Bob his seat by its link."""
    ann = Page(browser, f"{api_url}/#/")
    ann.page.fill("input[name=you]", "Ann")
    ann.page.select_option("select[name=variant]", "gin")
    ann.page.select_option("select[name=use-1]", "named")
    ann.page.fill("input[name=name-1]", "Bob")
    ann.page.click("form.create summary")
    ann.page.fill("input[name=option-target]", "1")
    ann.page.click("form.create button[type=submit]")
    ann.page.wait_for_selector(".table-page[data-mode=seat] .table")
    bob = Page(browser, ann.attribute("[data-seat-link='1']", "href") or "")
    for player in (ann, bob):
        player.await_following()
    return ann, bob, ann.attribute(".table-page", "data-match") or ""


def test_the_end_of_a_match_names_the_winner_and_offers_a_rematch(browser, api_url, tmp_path):
    ann, bob, match_id = created_with_bob_handed_over(browser, api_url)
    play_until([ann, bob], lambda: ann.attribute(".table", "data-phase") == "complete")
    bob.page.wait_for_selector(".table[data-phase=complete] .match-end")
    for player in (ann, bob):
        headline = player.page.text_content(".match-end .headline") or ""
        assert "wins the match" in headline, headline
        assert player.page.locator(".match-end table.final tr[data-seat]").count() == 2
        assert player.page.locator(".match-end table.hands tr").count() >= 2
        assert player.page.locator(".seat .card.back").count() == 0  # nothing hidden now
        assert player.page.locator(".presence").count() == 0
        assert player.page.locator(".match-end .showdown-hand").count() == 1
    shot(ann, tmp_path, "gin-match-end.png")
    ann.page.click(".match-end button.rematch")
    assert ann.page.text_content(".rematch-waiting", timeout=5000) == "Waiting for Bob to accept"
    assert bob.page.text_content(".rematch-offer", timeout=5000) == "Ann offers a rematch"
    bob.page.click(".rematch-panel button.accept")
    for player, new_seat in ((ann, 1), (bob, 0)):  # two players: the seats swap
        player.page.wait_for_function(
            "id => document.querySelector('.table-page[data-mode=seat]')?.dataset.match !== id"
            " && document.querySelector('.table') !== null", arg=match_id)
        assert "you" in (player.attribute(f".seat[data-seat='{new_seat}']", "class") or "").split()
    new_id = ann.attribute(".table-page", "data-match")
    assert new_id == bob.attribute(".table-page", "data-match")
    assert ann.page.evaluate("location.hash") == f"#/table/{new_id}"  # no token in the URL
    # Ann's tab hands Bob's new seat over too: its link carries his token in the rematch.
    link = parse_qs(urlsplit(ann.attribute("[data-seat-link='0']", "href") or "").fragment
                    .split("?")[1])
    request = urllib.request.Request(f"{api_url}/v1/matches/{new_id}",
                                     headers={"Authorization": f"Bearer {link['token'][0]}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert json.load(answer)["seat"] == 0
    for player in (ann, bob):
        player.close_clean()


def test_a_declined_rematch_is_told_to_both(browser, api_url):
    match = created(api_url, target=100)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    bob.page.click(".seat-controls button.resign")
    bob.page.click(".seat-controls button.resign-yes")
    bob.page.click(".match-end button.rematch")
    assert ann.page.text_content(".rematch-offer", timeout=5000) == "Bob offers a rematch"
    ann.page.click(".rematch-panel button.decline")
    assert ann.page.text_content(".rematch-declined") == "You declined the rematch."
    assert bob.page.text_content(".rematch-declined", timeout=5000) == "Ann declined the rematch."
    assert bob.page.locator(".rematch-panel button").count() == 0
    for player in (ann, bob):
        player.close_clean()


REFUSALS = """async () => {
  const {ApiError} = await import("/web/js/api.js");
  const {refusalText} = await import("/web/js/rematch.js");
  const refused = (status, code, message) => refusalText(new ApiError(status, {code, message}));
  return [
    refused(409, "rematch_declined", "the rematch was declined"),
    refused(401, "invalid_token", "unknown token"),
    refused(429, "rate_limited", "slow down"),
    refused(418, "teapot", "the server's own words"),
    refusalText(new TypeError("Failed to fetch")),
  ];
}"""


def test_a_refused_rematch_is_told_in_words(browser, api_url):
    page = Page(browser, f"{api_url}/#/replay")
    assert page.page.evaluate(REFUSALS) == [
        "The rematch was declined: start a new match from the lobby instead.",
        "This tab's token for the seat no longer works (it was replaced).",
        "Too many requests from this seat: wait a moment and try again.",
        "the server's own words",
        "The server did not answer: try again.",
    ]
    page.close_clean()


def test_a_player_resigns_and_the_other_is_told_they_won(browser, api_url):
    match = created(api_url, target=100)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    bob.page.click(".seat-controls button.resign")
    bob.page.click(".seat-controls button.resign-yes")
    for player in (ann, bob):
        player.page.wait_for_selector(".table[data-phase=complete] .match-end")
        headline = player.page.text_content(".match-end .headline") or ""
        assert headline.startswith("Bob resigned") and "Ann wins" in headline, headline
    for player in (ann, bob):
        player.close_clean()


def test_a_claimed_seat_is_given_back_and_the_creator_calls_the_match_off(browser, api_url):
    ann, bob = Page(browser, f"{api_url}/#/"), Page(browser, f"{api_url}/#/")
    ann.page.fill("input[name=you]", "Ann")
    ann.page.select_option("select[name=variant]", "gin")
    ann.page.select_option("select[name=use-1]", "open")
    ann.page.select_option("select[name=use-2]", "open")
    ann.page.click("form.create button[type=submit]")
    ann.page.wait_for_selector(".table-page[data-mode=seat] .table[data-phase=waiting]")
    match_id = ann.attribute(".table-page", "data-match")
    bob.page.fill("input[name=you]", "Bob")
    bob.page.click("button.refresh")
    bob.page.click(f"li[data-match='{match_id}'] button[data-claim='1']")
    bob.page.wait_for_selector(".table-page[data-mode=seat] .table[data-phase=waiting]")
    bob.page.click(".seat-controls button.leave")
    bob.page.click(".seat-controls button.leave-yes")
    bob.page.wait_for_selector(f"li[data-match='{match_id}'] button[data-claim='1']")
    ann.page.click(".seat-controls button.call-off")
    ann.page.click(".seat-controls button.call-off-yes")
    ann.page.wait_for_selector(".table[data-phase=aborted] .match-end")
    assert "Called off before it started by its creator" in (
        ann.page.text_content(".match-end .headline") or "")
    assert ann.page.locator(".rematch-panel").count() == 0  # no result, no rematch
    bob.page.click("button.refresh")
    bob.page.wait_for_function(
        "id => !document.querySelector(`li[data-match='${id}']`)", arg=match_id)
    for player in (ann, bob):
        player.close_clean()


SCREENSHOT_TABLES = {"gin": ({"target": 300}, {"target": 1}),
                     "gem": ({"target": 300}, {"target": 1}),
                     "rummy": ({"rounds": 3}, {"rounds": 1})}
"""(options for a match that goes on after a hand, options for one that ends with it)."""


@pytest.mark.parametrize("variant", sorted(SCREENSHOT_TABLES))
def test_every_variant_mid_hand_at_a_showdown_and_at_the_end(browser, api_url, tmp_path,
                                                             variant):
    """The three screens a player meets, in every family (docs/screenshots, docs/web-client.md)."""
    going_on, ending = SCREENSHOT_TABLES[variant]
    match = created(api_url, variant, **going_on)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    play_over_the_api(api_url, match, [ann, bob],
                      lambda: ann.version() > 8 and bool(ann.actions()))
    assert ann.page.locator(".mine .card").count() > 0  # rummy may have laid much down
    shot(ann, tmp_path, f"{variant}-mid-hand.png")
    panel = ".showdown-panel .showdown-hand[data-hand='1']"
    play_over_the_api(api_url, match, [ann, bob], lambda: ann.page.locator(panel).count() > 0)
    shot(ann, tmp_path, f"{variant}-showdown.png")
    for player in (ann, bob):
        player.close_clean()
    match = created(api_url, variant, **ending)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    play_over_the_api(api_url, match, [ann, bob],
                      lambda: ann.attribute(".table", "data-phase") == "complete")
    ann.page.wait_for_selector(".match-end .headline")
    shot(ann, tmp_path, f"{variant}-match-end.png")
    for player in (ann, bob):
        player.close_clean()


def test_the_replay_lists_every_move_in_words_and_jumps_to_any(browser, api_url):
    match = created(api_url, target=1)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    play_over_the_api(api_url, match, [ann, bob],
                      lambda: ann.attribute(".table", "data-phase") == "complete")
    final = ann.version()
    viewer = ann
    viewer.page.goto(f"{api_url}/#/replay/{match['id']}")
    viewer.page.wait_for_selector(".moves li[data-move]")
    moves = viewer.page.eval_on_selector_all(".moves li", "els => els.map(e => e.textContent)")
    assert len(moves) == final
    assert moves[0].startswith("A gin match begins: Ann, Bob")
    assert any(re.match(r"(Ann|Bob) draws from the stock", m) for m in moves), moves
    assert any(re.match(r"(Ann|Bob) (knocks with \d+ deadwood|goes gin|goes big gin)", m)
               for m in moves), moves
    assert moves[-1].startswith("The match is over: ")
    discard = next(i for i, m in enumerate(moves, 1) if " discards " in m)
    viewer.page.click(f".moves li[data-move='{discard}'] button")
    viewer.page.wait_for_selector(f".replay-table[data-version='{discard}']")
    assert viewer.attribute(".event", "data-version") == str(discard)
    assert " discards " in (viewer.page.text_content(".event h3") or "")
    assert viewer.attribute(".moves li.current", "data-move") == str(discard)
    for player in (ann, bob):
        player.close_clean()
