"""A clock people notice: the running turn's clock was a small
"· 0:04 left" in a seat's facts, with no colour and no sound, and one slow turn forfeited
a whole match. Now it stands under the turn line, larger, turns amber as it runs low and
red in its last 10 seconds, where the seat's own page also says in words what happens at
zero and sounds a tone; at zero the seat forfeits and the match ends."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from tests.browser.playing import created
from tests.browser.test_reference_client import Page

TURN_SECONDS = 20
AMBER = "rgb(245, 158, 11)"
RED = "rgb(220, 38, 38)"

TONES = """
window.tones = 0;
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.destination = {}; }
  createOscillator() {
    window.tones += 1;
    return {frequency: {}, connect: (next) => next, start() {}, stop() {}};
  }
  createGain() { return {gain: {}, connect: (next) => next}; }
  close() {}
};
"""
"""Counts the tones the page plays (play.js's beep) instead of playing them."""


def clocked(api_url: str) -> dict[str, Any]:
    clock = {"turn_seconds": TURN_SECONDS, "on_timeout": "forfeit"}
    return created(api_url, also={"clock": clock})


def listening(browser: Any, api_url: str, match: dict[str, Any], seat: int) -> Page:
    """The seat's page, its tones counted from the first script on."""
    handed = match["seats"][seat]
    player = Page(browser, "about:blank")
    player.page.add_init_script(TONES)
    fragment = urlencode({"seat": seat, "token": handed["token"], "name": handed["name"]})
    player.page.goto(f"{api_url}/#/table/{match['id']}?{fragment}")
    player.page.wait_for_selector(".table-page[data-mode=seat] .table")
    return player


def background(player: Page) -> str:
    return str(player.page.eval_on_selector(".turn-clock",
                                            "e => getComputedStyle(e).backgroundColor"))


def test_the_running_clock_turns_amber_then_red_warns_and_the_seat_forfeits(browser, api_url):
    match = clocked(api_url)
    ann, bob = listening(browser, api_url, match, 0), listening(browser, api_url, match, 1)
    ann.page.wait_for_selector(".turn-clock[data-deadline]")
    mine = ".turn-clock[data-mine='1']"
    slow, other = (ann, bob) if ann.page.locator(mine).count() else (bob, ann)
    slow_name = "Ann" if slow is ann else "Bob"
    slow.page.wait_for_selector(mine)
    assert slow.page.text_content(mine).startswith("Your time: 0:")  # type: ignore[union-attr]

    slow.page.wait_for_selector(".turn-clock[data-clock=low]", timeout=TURN_SECONDS * 1000)
    assert background(slow) == AMBER
    assert slow.page.evaluate("window.tones") == 0

    slow.page.wait_for_selector(".turn-clock[data-clock=warning]", timeout=10_000)
    assert background(slow) == RED
    text = slow.page.text_content(".turn-clock") or ""
    assert text.endswith("seconds left: move, or you forfeit and lose the match"), text
    slow.page.wait_for_function("() => window.tones >= 1", timeout=2000)
    assert slow.page.title().startswith("⚠")
    other.page.wait_for_selector(".turn-clock[data-clock=warning]", timeout=2000)
    assert background(other) == RED
    assert (other.page.text_content(".turn-clock") or "").startswith(f"{slow_name}: ")

    for player in (slow, other):
        player.page.wait_for_selector(".table[data-phase=complete] .match-end", timeout=20_000)
        headline = player.page.text_content(".match-end .headline") or ""
        assert headline.startswith(f"{slow_name} ran out of time"), headline
        assert player.page.locator(".turn-clock").count() == 0
    assert slow.page.evaluate("window.tones") == 2  # at 10 s and at 5 s
    assert other.page.evaluate("window.tones") == 0
    for player in (ann, bob):
        player.close_clean()


def test_the_create_form_says_what_happens_when_time_runs_out(browser, api_url):
    page = Page(browser, f"{api_url}/#/")
    page.page.wait_for_selector("select[name=clock-timeout]", state="attached")
    choices = page.page.eval_on_selector_all("select[name=clock-timeout] option",
                                             "els => els.map(e => e.textContent)")
    assert choices == ["the player forfeits: the match ends, and they lose it",
                       "a safe move is played for them (a forfeit if there is none)"]
    page.close_clean()


STATES = """async () => {
  const {tickClock} = await import("/web/js/table.js");
  const at = (left, {turn = 300, mine = "1", onTimeout = "forfeit"} = {}) => {
    const element = document.createElement("p");
    Object.assign(element.dataset, {deadline: "1000", started: String(1000 - turn), mine,
      who: "Ann", onTimeout});
    const state = tickClock(element, 1000 - left);
    return [state, element.textContent];
  };
  return [at(91), at(90), at(15, {turn: 20}), at(16, {turn: 20}), at(10),
    at(1, {onTimeout: "auto_play"}), at(8, {mine: "0"}), at(0)];
}"""


def test_the_clock_turns_at_30_percent_and_at_10_seconds_and_says_what_zero_does(
        browser, api_url):
    page = Page(browser, f"{api_url}/#/replay")
    assert page.page.evaluate(STATES) == [
        ["running", "Your time: 1:31 left"],
        ["low", "Your time: 1:30 left"],  # 30% of a 300 s turn
        ["low", "Your time: 0:15 left"],  # 15 s at least
        ["running", "Your time: 0:16 left"],
        ["warning", "10 seconds left: move, or you forfeit and lose the match"],
        ["warning", "1 second left: move, or a safe move is played for you"],
        ["warning", "Ann: 8 seconds left"],
        ["out", "Time is up."],
    ]
    page.close_clean()
