"""The reference client's tournament page (``#/tournament/<id>``) in real Chromium: a gin
round robin of Ann, Bob and two bots, created over the API. Anybody's page shows the
standings and every round's tables with links to watch and to replay each; Ann's page
(her player token handed over in the fragment) shows her table, and its link opens her
seat. The organiser forfeits the people's tables (the bots' table plays itself out): both
pages follow the results, the next rounds and the end by themselves.

A tournament open for entry is listed in the lobby; Ann joins it there by name, and her
page follows it from the entrants so far, through the round break, to her table."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import Any

from tests.browser.conftest import ADMIN
from tests.browser.test_reference_client import Page

ANN, BOB = 0, 1


def call(api_url: str, path: str, body: dict[str, Any] | None = None,
         token: str | None = ADMIN) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(f"{api_url}{path}", headers=headers, data=None
                                     if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def new_tournament(api_url: str) -> dict[str, Any]:
    return call(api_url, "/v1/tournaments", {
        "name": "Browser cup", "variant": "gin", "format": "round_robin",
        "options": {"target": 1},
        "players": [{"name": "Ann"}, {"name": "Bob"}, {"bot": "basic"}, {"bot": "basic"}]})


def opened(api_url: str, tournament_id: str, number: int) -> dict[str, Any]:
    """Round ``number`` once its matches exist."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        tournament = call(api_url, f"/v1/tournaments/{tournament_id}", token=None)
        if tournament["round"] >= number:
            found = call(api_url, f"/v1/tournaments/{tournament_id}/rounds/{number}", token=None)
            if found["opened"]:
                return found
        time.sleep(0.05)
    raise AssertionError(f"round {number} was not opened")


def forfeit_the_people(api_url: str, round_: dict[str, Any]) -> None:
    """The organiser ends every table a person sits at: Bob's seat loses wherever he sits,
    else Ann's tablemate's."""
    for table in round_["tables"]:
        entrants = [seat["entrant"] for seat in table["seats"]]
        if table["finished"] or not {ANN, BOB} & set(entrants):
            continue
        loser = entrants.index(BOB) if BOB in entrants else 1 - entrants.index(ANN)
        call(api_url, f"/v1/matches/{table['match_id']}/forfeit",
             {"seat": loser, "reason": "the test moves on"})


def hrefs(page: Page, selector: str) -> set[str]:
    return set(page.page.eval_on_selector_all(
        selector, "els => els.map(e => e.getAttribute('href'))"))


def test_the_tournament_page_follows_standings_rounds_and_a_players_tables(browser, api_url):
    created = new_tournament(api_url)
    tournament_id, token = created["id"], created["entrants"][ANN]["token"]
    first = opened(api_url, tournament_id, 1)
    tables = {table["match_id"] for table in first["tables"]}

    public = Page(browser, f"{api_url}/#/tournament/{tournament_id}")
    public.page.wait_for_selector(".tournament-page[data-status=running] .standings-table")
    public.page.wait_for_function(
        "() => document.querySelectorAll('details.round[data-round=\"1\"] .watch-link')"
        ".length === 2")
    assert public.page.inner_text("h1") == "Browser cup"
    assert "round robin" in public.page.inner_text(".facts")
    assert "round 1" in public.page.inner_text(".tournament-head .status")
    players = public.page.locator(".standings-table tbody th").all_inner_texts()
    assert players[:2] == ["Ann", "Bob"] and all("⚙" in bot for bot in players[2:])
    assert "Buchholz" in public.page.inner_text(".standings-table thead")
    assert hrefs(public, ".watch-link") == {f"#/watch/{match}" for match in tables}
    assert hrefs(public, ".replay-link") == {f"#/replay/{match}" for match in tables}

    # Ann's page: the token leaves the address bar; her table, and her seat there.
    player = Page(browser, f"{api_url}/#/tournament/{tournament_id}?token={token}")
    player.page.wait_for_selector(".me-status[data-me=playing]")
    assert "token" not in player.page.url
    mine = call(api_url, f"/v1/tournaments/{tournament_id}/me", token=token)["table"]
    assert hrefs(player, ".play-link") == {f"#/table/{mine['match_id']}"}
    assert "against" in player.page.inner_text(".me-status")
    assert "Ann" in player.page.inner_text(".standings-table tr.you")
    player.page.click(".play-link")
    player.page.wait_for_selector(
        f".table-page[data-mode=seat][data-match='{mine['match_id']}'] .table")
    assert "Ann" in player.page.inner_text(".seat.you .seat-name")
    assert player.page.locator(".seat.you").get_attribute("data-seat") == str(mine["seat"])
    player.page.click(".to-tournament")
    player.page.wait_for_selector(".me-status[data-me=playing]")

    # The organiser ends the people's tables: the round's results, the standings and the
    # next round reach both pages by themselves, and Ann's page offers her next table.
    forfeit_the_people(api_url, first)
    second = opened(api_url, tournament_id, 2)
    public.page.wait_for_selector("details.round[data-round='2'] .watch-link")
    assert public.page.locator("details.round[data-round='1'] [data-forfeit='1']").count() == 2
    public.page.wait_for_function(
        "() => document.querySelector('tr[data-entrant=\"0\"] .points').textContent === '1'")
    assert public.page.inner_text(".standings-table tr[data-entrant='1'] .points") == "0"
    ann_next = next(t for t in second["tables"] if ANN in [s["entrant"] for s in t["seats"]])
    player.page.wait_for_function(
        "m => document.querySelector('.play-link')?.dataset.match === m", arg=ann_next["match_id"])

    # To the end: the bots' table finishes by itself; both pages say the tournament is over.
    forfeit_the_people(api_url, second)
    forfeit_the_people(api_url, opened(api_url, tournament_id, 3))
    public.page.wait_for_selector(".tournament-page[data-status=complete]", timeout=20_000)
    assert "Complete" in public.page.inner_text(".tournament-head .status")
    assert public.page.locator(".table-card[data-finished='0']").count() == 0
    player.page.wait_for_selector(".me-status[data-me=complete]", timeout=10_000)
    assert "you finished" in player.page.inner_text(".me-status")
    assert player.page.locator(".play-link").count() == 0
    public.close_clean()
    player.close_clean()


def test_a_missing_tournament_and_a_wrong_player_link_are_told_in_words(browser, api_url):
    page = browser.new_page()
    page.goto(f"{api_url}/#/tournament/no-such-tournament")
    page.wait_for_selector(".tournament-page[data-status=not_found]")
    assert "does not exist" in page.inner_text(".messages")

    tournament_id = new_tournament(api_url)["id"]
    page.goto(f"{api_url}/#/tournament/{tournament_id}?token=not-a-token")
    page.wait_for_selector(".me-panel .notice.error")
    assert "not valid" in page.inner_text(".me-panel")
    assert page.locator(".standings-table tbody tr").count() == 4
    page.close()


def open_for_entry(api_url: str, name: str, players: list[dict[str, Any]],
                   **settings: Any) -> str:
    """A gin round robin open for entry (up to 4), created by the organiser: its id."""
    return str(call(api_url, "/v1/tournaments", {
        "name": name, "variant": "gin", "format": "round_robin", "options": {"target": 1},
        "players": players, "registration": {"max_players": 4}, **settings})["id"])


def call_off(api_url: str, tournament_id: str) -> None:
    call(api_url, f"/v1/tournaments/{tournament_id}/abort", {"reason": "the test is over"})


def test_a_player_joins_a_tournament_open_for_entry_from_the_lobby_and_plays_it(browser, api_url):
    tournament_id = open_for_entry(api_url, "Open cup", [{"bot": "basic"}], round_break_s=3)
    row = f"li[data-tournament='{tournament_id}']"

    ann = Page(browser, f"{api_url}/#/")
    ann.page.wait_for_selector(row)
    listed = ann.page.inner_text(row)
    assert "Open cup" in listed and "round robin" in listed and "1 / 4 entrants" in listed, listed
    assert "starts when the organiser starts it" in listed
    ann.page.fill("input[name=you]", "Ann")  # the lobby's own name is the one offered
    ann.page.click(f"{row} button.join")
    assert ann.page.input_value(f"{row} input[name=join-name]") == "Ann"
    ann.page.click(f"{row} .join-form button[type=submit]")

    # Her page, as the player who joined: open for entry, the entrants so far, Leave. The
    # token is where the ?token= route keeps one.
    ann.page.wait_for_selector(".tournament-page[data-status=registering] [data-me=entered]")
    assert ann.page.url.endswith(f"#/tournament/{tournament_id}")
    token = ann.page.evaluate("id => sessionStorage.getItem(`rummy.player.${id}`)", tournament_id)
    assert call(api_url, f"/v1/tournaments/{tournament_id}/me", token=token)["name"] == "Ann"
    status = ann.page.inner_text(".tournament-head .status")
    assert "Open for entry: 2 entrants so far, up to 4" in status, status
    assert "when the organiser starts it" in ann.page.inner_text(".me-status")
    assert ann.page.inner_text(".entrants-list li.you").startswith("Ann")
    assert ann.page.locator(".me-actions button.leave").count() == 1

    # Bob joins over the API and the organiser starts it: Ann's next table counts down
    # through the round break, then its link opens her seat.
    call(api_url, f"/v1/tournaments/{tournament_id}/join", {"name": "Bob"}, token=None)
    ann.page.wait_for_selector(".entrants-list li:nth-child(3)")
    call(api_url, f"/v1/tournaments/{tournament_id}/start", {})
    ann.page.wait_for_selector(".me-status[data-me=upcoming]")
    upcoming = ann.page.inner_text(".me-status")
    assert re.search(r"your next table (opens in \d s|is opening): vs Bob", upcoming), upcoming
    assert ann.page.locator(".me-actions button").count() == 0
    ann.page.wait_for_selector(".me-status[data-me=playing]")
    mine = call(api_url, f"/v1/tournaments/{tournament_id}/me", token=token)["table"]
    assert hrefs(ann, ".play-link") == {f"#/table/{mine['match_id']}"}
    ann.page.click(".play-link")
    ann.page.wait_for_selector(f".table-page[data-mode=seat][data-match='{mine['match_id']}']")
    assert ann.page.locator(".seat.you").get_attribute("data-seat") == str(mine["seat"])
    assert "Ann" in ann.page.inner_text(".seat.you .seat-name")
    ann.close_clean()
    # Called off, and the table ended: a live table's stream would hold up the server's exit.
    call_off(api_url, tournament_id)
    call(api_url, f"/v1/matches/{mine['match_id']}/forfeit",
         {"seat": 1 - mine["seat"], "reason": "the test is over"})


def test_the_lobby_says_in_words_why_a_tournament_cannot_be_entered(browser, api_url):
    page = browser.new_page()  # refusals are answered 4xx, which the console reports
    listing = re.compile(r".*/v1/lobby/tournaments.*")
    page.route(listing, lambda route: route.fulfill(json={"tournaments": [], "next_cursor": None}))
    page.goto(f"{api_url}/#/")
    page.wait_for_selector(".entries .entries-none")
    assert page.locator(".entries ul").count() == 0
    page.unroute(listing)

    tournament_id = open_for_entry(api_url, "Taken cup", [{"name": "Cy"}, {"bot": "basic"}])
    row = f"li[data-tournament='{tournament_id}']"
    page.click("button.refresh")
    page.click(f"{row} button.join")
    page.fill(f"{row} input[name=join-name]", "CY")
    page.click(f"{row} .join-form button[type=submit]")
    page.wait_for_selector(f"{row} .join-error")
    said = page.inner_text(f"{row} .join-error")
    assert "already plays under that name" in said and "name_taken" not in said, said

    # Started by the organiser while the lobby still lists it (its refresh kept as it was).
    stale = call(api_url, "/v1/lobby/tournaments", token=None)
    page.route(listing, lambda route: route.fulfill(json=stale))
    call(api_url, f"/v1/tournaments/{tournament_id}/start", {})
    page.fill(f"{row} input[name=join-name]", "Dee")
    page.click(f"{row} .join-form button[type=submit]")
    page.wait_for_function("r => document.querySelector(`${r} .join-error`).textContent"
                           ".startsWith('Entry has closed')", arg=row)
    call_off(api_url, tournament_id)
    page.close()
