"""The client on a phone (390x844): a seat of every variant has its moves on the first
screen (gin's were below it) and no page is wider than the screen (the replay was 694 px
wide)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from tests.browser.playing import created
from tests.browser.test_reference_client import Page

PHONE = {"width": 390, "height": 844}
TABLES = {"gin": 2, "gem": 2, "rummy": 4, "rami": 3}

ON_SCREEN = """() => [...document.querySelectorAll('.actions [data-action]:not([disabled])')]
  .map(e => e.getBoundingClientRect()).map(r => r.top >= 0 && r.bottom <= innerHeight)"""
WIDTH = "document.documentElement.scrollWidth"


def on_a_phone(browser: Any, url: str) -> Page:
    page = Page(browser, "about:blank")
    page.page.set_viewport_size(PHONE)
    page.page.goto(url)
    return page


def seat_on_turn(browser: Any, api_url: str, variant: str) -> Page:
    """The phone page of the seat whose turn it is in a new match of ``variant``."""
    match = created(api_url, variant, names=["Ann", "Bob", "Cy", "Dee"][:TABLES[variant]])
    for seat, handed in enumerate(match["seats"]):
        fragment = urlencode({"seat": seat, "token": handed["token"], "name": handed["name"]})
        page = on_a_phone(browser, f"{api_url}/#/table/{match['id']}?{fragment}")
        page.page.wait_for_selector(".table-page[data-mode=seat] .table")
        page.await_following()
        if page.actions():
            return page
        page.page.close()
    raise AssertionError(f"no seat of the {variant} match is on turn")


@pytest.mark.parametrize("variant", list(TABLES))
def test_a_seats_moves_are_on_the_first_screen_of_a_phone(browser, api_url, variant):
    page = seat_on_turn(browser, api_url, variant)
    shown = page.page.evaluate(ON_SCREEN)
    assert shown and all(shown), f"{variant}: moves off the first screen {shown}"
    assert page.page.evaluate(WIDTH) <= PHONE["width"]
    page.close_clean()


def test_the_lobby_and_the_replay_fit_a_phones_width(browser, api_url):
    match = created(api_url, target=100)
    lobby = on_a_phone(browser, f"{api_url}/#/")
    lobby.page.wait_for_selector("form.create")
    replay = on_a_phone(browser, f"{api_url}/#/replay/{match['id']}")
    replay.page.wait_for_selector(".replay .stage .event")
    widths = {"lobby": lobby.page.evaluate(WIDTH), "replay": replay.page.evaluate(WIDTH)}
    assert widths == {"lobby": PHONE["width"], "replay": PHONE["width"]}, widths
    for page in (lobby, replay):
        page.close_clean()
