"""Rummy and rami on a laptop's screen: the seat on turn draws and composes an opening of
three melds (a joker's picker shown, the server's check read) and the page does not
scroll. It did: four players' seats, two rows of them, made a 1280x800 page 933 px tall,
and two players' table made a 1366x768 one 892 px, before the table page took the
screen's width, each seat became one line and the composer's rows were joined.

Each table is dealt from a seed (the server's admin token lets a match take one), so the
seat on turn holds the same three melds, a joker among them, on every run.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import ADMIN
from tests.browser.playing import created, seated
from tests.browser.test_compose_rummy import assert_no_page_scroll, compose, seat_view
from tests.browser.test_reference_client import click

NAMES = ("Ann", "Bob", "Cy", "Dee")

TABLES = [
    pytest.param("rummy", 4, {"width": 1280, "height": 800}, id="rummy-4-players-1280x800"),
    pytest.param("rummy", 2, {"width": 1366, "height": 768}, id="rummy-2-players-1366x768"),
    pytest.param("rami", 3, {"width": 1366, "height": 768}, id="rami-3-players-1366x768"),
]

SEEDS = {("rummy", 4): "laptop-5", ("rummy", 2): "laptop-6", ("rami", 3): "laptop-12"}
"""Deals in which the seat on turn, once it has drawn, may open with three melds, one of
them holding a joker."""


def opening_melds(view: dict[str, Any]) -> list[dict[str, Any]]:
    lay_downs = [a for a in view["legal_actions"] if a["type"] == "lay_down"]
    assert lay_downs, "the seat on turn cannot open: the seed no longer deals an opening"
    melds: list[dict[str, Any]] = lay_downs[0]["melds"]
    assert len(melds) == 3 and any("JK" in meld["cards"] for meld in melds), melds
    return melds


@pytest.mark.parametrize(("variant", "players", "screen"), TABLES)
def test_an_opening_is_composed_without_page_scroll(browser, api_url, variant, players, screen):
    # Rami opens from a player's second turn by default: this table opens from the first.
    options = {"opening_turn": 1} if variant == "rami" else {}
    match = created(api_url, variant, names=NAMES[:players], admin=ADMIN,
                    also={"seed": SEEDS[(variant, players)]}, **options)
    seat = seat_view(api_url, match, 0)["turn"]
    player = seated(browser, api_url, match, seat)
    player.page.set_viewport_size(screen)
    click(player, {"type": "draw", "source": "stock"})
    compose(player, opening_melds(seat_view(api_url, match, seat)))
    assert player.page.locator(".composer .pending select.stands").count() >= 1
    assert_no_page_scroll(player)
    player.close_clean()
