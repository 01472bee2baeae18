"""Helpers the browser tests share: matches created over the API and opened as a seat's
page, the lobby's "Play the computer", and simple play until a hand or a match is over."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from tests.browser.test_reference_client import Page, choose, click


def sent(api_url: str, path: str, token: str | None, body: dict[str, Any] | None = None,
         version: int | None = None) -> dict[str, Any]:
    """A call to the API with ``token`` (if any), as a page would make it: a read, or a
    write of ``body`` (an action at ``version``)."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if version is not None:
        headers["If-Match"] = str(version)
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{api_url}{path}", data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def created(api_url: str, variant: str = "gin", *, names: Sequence[str] = ("Ann", "Bob"),
            also: dict[str, Any] | None = None, admin: str | None = None,
            **options: Any) -> dict[str, Any]:
    """A match made through the API: seats named ``names``, ``options``, and ``also``
    beside them in the body (a clock, an open seat, an invite code; with the server's
    ``admin`` token, a seed)."""
    body = {"variant": variant, "players": [{"name": name} for name in names],
            "options": options, **(also or {})}
    return sent(api_url, "/v1/matches", admin, body)


def seated(browser: Any, api_url: str, match: dict[str, Any], seat: int) -> Page:
    """The seat's page, its token handed over in the URL fragment as the client does."""
    handed = match["seats"][seat]
    fragment = urlencode({"seat": seat, "token": handed["token"], "name": handed["name"]})
    player = Page(browser, f"{api_url}/#/table/{match['id']}?{fragment}")
    player.page.wait_for_selector(".table-page[data-mode=seat] .table")
    player.await_following()
    return player


EAGER = ("big_gin", "knock", "lay_down", "lay_off", "exchange_joker", "pass")


def eager(actions: list[dict[str, Any]], best: list[str]) -> dict[str, Any]:
    """End hands soon: knock, lay down and lay off whenever offered, else as ``choose``."""
    for kind in EAGER:
        offered = [a for a in actions if a["type"] == kind]
        if offered:
            return offered[0]
    return choose(actions, best)


def play_until(players: list[Page], done: Any, limit: int = 2000) -> int:
    moves = 0
    for _ in range(limit):
        if done():
            return moves
        moved = False
        for player in players:
            actions = player.actions()
            if actions:
                click(player, eager(actions, player.best_discard()))
                moves += 1
                moved = True
                break
        if not moved:
            time.sleep(0.02)
    raise AssertionError("the play did not get there")


FOLLOWED = "v => Number(document.querySelector('.table')?.dataset.version) >= v"


def play_over_the_api(api_url: str, match: dict[str, Any], players: list[Page], done: Any,
                      limit: int = 4000) -> int:
    """The seats' simple play (``eager``) sent over the API with their tokens until
    ``done()`` holds on the pages, each page following every move live from its stream
    before the next is sent; the moves made.

    For tests of what a page shows at some point of a match (a showdown, the end, the
    replay): the client's own buttons and composer are tested by playing whole hands
    through them (test_reference_client.py, test_compose_rummy.py, the keyboard's test),
    and a click costs many round trips to the browser where this costs one."""
    path, tokens = f"/v1/matches/{match['id']}", [seat["token"] for seat in match["seats"]]
    moves = 0
    for _ in range(limit):
        if done():
            return moves
        for token in tokens:
            view = sent(api_url, path, token)
            if view["legal_actions"]:
                best = (view.get("best_discard") or {}).get("cards", [])
                answer = sent(api_url, f"{path}/actions", token,
                              eager(view["legal_actions"], best), view["version"])
                for player in players:
                    player.page.wait_for_function(FOLLOWED, arg=answer["version"])
                moves += 1
                break
        else:
            time.sleep(0.02)
    raise AssertionError("the play did not get there")


def play_the_computer(page: Page, variant: str, **options: Any) -> str:
    """One click from the lobby: you in seat 0 against one basic bot, moving at once."""
    page.page.fill("input[name=you]", "Ann")
    page.page.select_option("select[name=bot-variant]", variant)
    page.page.select_option("select[name=bot-level]", "basic")
    page.page.select_option("select[name=bot-seats]", "2")
    page.page.select_option("select[name=bot-pace]", "0")
    page.page.click("form.bot-form summary")
    for name, value in options.items():
        page.page.fill(f"input[name=bot-option-{name}]", str(value))
    page.page.click("form.bot-form button[type=submit]")
    page.page.wait_for_selector(".table-page[data-mode=seat] .table")
    return page.attribute(".table-page", "data-match") or ""


def play_to_the_end(page: Page, limit: int = 3000) -> int:
    """Ann's simple play (knock, lay down and lay off when offered, pass the upcard, draw
    from the stock, throw the best discard) until the match is over; her moves."""
    moves = 0
    for _ in range(limit):
        if page.attribute(".table", "data-phase") == "complete":
            return moves
        actions = page.actions()
        if actions:
            click(page, eager(actions, page.best_discard()))
            moves += 1
        else:
            time.sleep(0.02)
    raise AssertionError("the match did not end")
