"""What a player reads is in words: a refusal or a server that does not answer is told
without the API's codes ("store_unavailable: ...", "Failed to fetch", "match_over: match
'099bf...'"), a match's end gives its reason once, and the create form's help says how a
player leaves an option unset rather than the API's "null"."""

from __future__ import annotations

import re
from typing import Any

from tests.browser.playing import created, seated
from tests.browser.test_live_table import mover
from tests.browser.test_reference_client import Page

CODES = re.compile(r"\b[a-z]+_[a-z_]+\b|Failed to fetch|HTTP \d{3}")

IN_WORDS = """async () => {
  const {ApiError} = await import("/web/js/api.js");
  const {inWords} = await import("/web/js/words.js");
  const refused = (status, code, message) => inWords(new ApiError(status, {code, message}));
  return [
    refused(503, "store_unavailable", "the event store did not answer"),
    refused(422, "match_over", "match '099bf' is over"),
    refused(401, "invalid_token", "unknown token"),
    refused(500, "internal_error", "Traceback"),
    refused(422, "opening_too_low", "your melds are worth 28 points: opening needs 40"),
    inWords(new TypeError("Failed to fetch")),
  ];
}"""


def test_refusals_and_silences_are_told_in_words(browser, api_url):
    page = Page(browser, f"{api_url}/#/")
    said = page.page.evaluate(IN_WORDS)
    assert said == [
        "The server cannot reach its storage for a moment: try again shortly.",
        "This match is over: nothing more can be played at it.",
        "This tab's token for the seat no longer works (it was replaced, or the seat given back).",
        "The server is having trouble: try again in a moment.",
        "your melds are worth 28 points: opening needs 40",  # a rule's own words
        "The server did not answer: try again.",
    ]
    page.close_clean()


def test_a_refused_move_is_told_in_words_on_the_table(browser, api_url):
    match = created(api_url, target=100)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    player, _ = mover(ann, bob)

    def unavailable(route: Any) -> None:
        route.fulfill(status=503, content_type="application/json",
                      body='{"code": "store_unavailable", "message": "the store did not answer"}')

    player.page.route(re.compile(r".*/actions$"), unavailable)
    player.page.locator("[data-action]:not([disabled])").first.click()
    player.page.wait_for_selector(".messages .notice.error")
    told = player.page.inner_text(".messages .notice.error")
    assert told == "The server cannot reach its storage for a moment: try again shortly.", told
    assert not CODES.search(told), told
    for page in (ann, bob):
        page.page.close()


def test_a_resignation_is_told_once(browser, api_url):
    match = created(api_url, target=100)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    bob.page.click(".seat-controls button.resign")
    bob.page.click(".seat-controls button.resign-yes")
    ann.page.wait_for_selector(".table[data-phase=complete] .match-end")
    assert ann.page.text_content(".match-end .headline") == "Bob resigned. Ann wins."
    for player in (ann, bob):
        player.close_clean()


def test_the_create_forms_help_says_how_to_leave_an_option_unset(browser, api_url):
    page = Page(browser, f"{api_url}/#/")
    page.page.select_option("select[name=variant]", "rummy")
    page.page.click("form.create summary")
    helps = page.page.eval_on_selector_all(".option-help", "els => els.map(e => e.textContent)")
    assert helps and not [text for text in helps if "null" in text], helps
    assert any("left empty: never" in text for text in helps), helps
    page.close_clean()


PLACEHOLDERS_CUT = """() => [...document.querySelectorAll('input[placeholder]')]
  .filter(e => e.offsetParent !== null)
  .filter(e => {
    const style = getComputedStyle(e);
    const pen = document.createElement('canvas').getContext('2d');
    pen.font = `${style.fontSize} ${style.fontFamily}`;
    const room = e.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return pen.measureText(e.placeholder).width > room + 0.5;
  }).map(e => `${e.name}: ${e.placeholder}`)"""


def test_no_field_cuts_its_placeholder_off(browser, api_url):
    """A field's hint is read whole (the invite code's was cut off), in the lobby and on an
    invite-only table's row."""
    created(api_url, also={"players": [{"name": "Ann"}, {"open": True}],
                           "invite_code": "table-5"})
    page = Page(browser, f"{api_url}/#/")
    page.page.wait_for_selector("input[name=invite]")
    page.page.click("form.create summary")
    assert page.page.evaluate(PLACEHOLDERS_CUT) == []
    page.close_clean()
