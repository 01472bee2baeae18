"""The lobby says whether each table's creator is at it: a table whose creator's page is
open says so ("Ann here now"), one nobody opened says its creator is away, so a player
picks a table somebody is waiting at."""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.test_reference_client import Page
from tests.conftest import server_env, serving_api


def waiting_without_its_creator(api_url: str) -> str:
    """A table Cy created over the API and never opened."""
    body = {"variant": "gin", "players": [{"name": "Cy"}, {"open": True}]}
    request = urllib.request.Request(f"{api_url}/v1/matches", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return str(json.load(answer)["id"])


def created_from_the_lobby(browser: Any, api_url: str) -> tuple[Page, str]:
    """Ann creates a gin table with seat 1 open and stays on its page."""
    ann = Page(browser, f"{api_url}/#/")
    ann.page.fill("input[name=you]", "Ann")
    ann.page.select_option("select[name=variant]", "gin")
    ann.page.select_option("select[name=use-1]", "open")
    ann.page.click("form.create button[type=submit]")
    ann.page.wait_for_selector(".table-page[data-mode=seat] .table[data-phase=waiting]")
    ann.await_following()
    return ann, ann.attribute(".table-page", "data-match") or ""


def creator_shown(bob: Page, match_id: str, present: bool) -> str:
    """The creator's words in the table's lobby row, once the listing says ``present``
    (the lobby reads the listing again every 5 s)."""
    selector = f"li[data-match='{match_id}'] .creator[data-present='{str(present).lower()}']"
    bob.page.wait_for_selector(selector, timeout=20_000)
    return bob.page.text_content(selector) or ""


def test_the_lobby_says_which_tables_creator_is_here_now(browser, api_url):
    away = waiting_without_its_creator(api_url)
    ann, here = created_from_the_lobby(browser, api_url)
    bob = Page(browser, f"{api_url}/#/")
    bob.page.wait_for_selector(f"li[data-match='{away}']")
    assert creator_shown(bob, here, present=True) == "Ann here now"
    assert creator_shown(bob, away, present=False) == "Cy away"
    row = bob.page.text_content(f"li[data-match='{here}']") or ""
    assert "created just now · Ann here now" in row, row
    bob.page.click(f"li[data-match='{here}'] button[data-claim='1']")
    bob.page.wait_for_selector(".table-page[data-mode=seat] .table:not([data-phase=waiting])")
    for player in (ann, bob):
        player.close_clean()


@pytest.fixture(scope="module")
def impatient_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose lobby calls a table off once its creator has been away 1 s."""
    def argv(port: int) -> list[str]:
        return [sys.executable, "-m", "service.serve", "--port", str(port)]

    with serving_api("impatient", argv, server_env(RUMMY_LOBBY_ABANDON_S="1"),
                     tmp_path_factory.mktemp("impatient") / "api.log") as url:
        yield url


def test_a_table_whose_creator_left_leaves_the_lobby_and_says_why(browser, impatient_api):
    away = waiting_without_its_creator(impatient_api)
    time.sleep(1.5)
    bob = Page(browser, f"{impatient_api}/#/")
    bob.page.wait_for_selector(".listing p.muted")  # "No match is waiting for players."
    assert bob.page.locator(f"li[data-match='{away}']").count() == 0
    bob.page.goto(f"{impatient_api}/#/watch/{away}")
    bob.page.wait_for_selector(".table[data-phase=aborted]")
    headline = bob.page.text_content(".table-page") or ""
    assert "Called off before it started: its creator left the table." in headline, headline
    bob.close_clean()
