"""The reference web client (service/web, served at /) in real Chromium: two pages play a
whole gin hand through its UI, clicking only the actions it renders from legal_actions; a
third page watches as a spectator and sees every move live; then the replay viewer steps
to the knock and verifies the match. Screenshots go to the test's output (its tmp_path);
with ``RUMMY_UPDATE_SCREENSHOTS=1`` they also replace docs/web-client.md's, in docs/screenshots.

Also: the in-browser hash (verify.js) matches domain/chain.py byte for byte, and its
commitment checks match domain/fairness.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from domain.bots.policies import eager
from domain.chain import GENESIS_HASH, canonical_json, event_hash
from domain.fairness import commitment, hand_seed

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
ACTIONS = "[data-action]:not([disabled])"
LOST_CLICK_MS = 10_000
"""How long a click may go unanswered before it is taken as lost (a loaded machine
answers in well under a second)."""


TICKET_REFUSED = ("Failed to load resource: the server responded with a status of 422 "
                  "(UNPROCESSABLE ENTITY)")
"""What Chromium logs when a stream ticket is refused because the match is over."""


class Page:
    """One browser page of the client, with the console errors it logged."""

    def __init__(self, browser: Any, url: str) -> None:
        self.page = browser.new_page(viewport={"width": 1200, "height": 900})
        self.errors: list[str] = []
        self.refused_tickets = 0
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("response", self._note_refused_ticket)
        self.page.goto(url)

    def _note_refused_ticket(self, response: Any) -> None:
        """A match that ends between the page's read of it and its request for a stream
        ticket is refused the ticket (422 ``match_over``, the ticket endpoint's only 422);
        the page then reads the match, sees it over and stops following, as it should. A
        bot's first move can end a one-point match that soon. Chromium still logs the
        refused request as a console error, which ``close_clean`` does not count."""
        if response.status == 422 and response.url.endswith("/stream-tickets"):
            self.refused_tickets += 1

    def await_following(self) -> None:
        """Until the page follows its match live. A function, not an expression: Playwright
        evaluates an expression anew at every poll, which the page's CSP forbids."""
        self.page.wait_for_function(
            "() => document.getElementById('app').dataset.following === '1'")

    def attribute(self, selector: str, name: str) -> str | None:
        return self.page.get_attribute(selector, name)

    def version(self) -> int:
        return int(self.attribute(".table", "data-version") or 0)

    def actions(self) -> list[dict[str, Any]]:
        """Every action the page offers: its buttons, and a rummy hand's discards (a card
        picked, then its own Discard button)."""
        shown = [json.loads(text) for text in self.page.eval_on_selector_all(
            ACTIONS, "els => els.map(e => e.dataset.action)")]
        held = self.page.query_selector(".composer .pickable[data-discards]")
        discards = json.loads(held.get_attribute("data-discards") or "[]") if held else []
        return shown + [action for action in discards if action not in shown]

    def close_clean(self) -> None:
        """Close the page, asserting it logged no console error on the way (but a stream
        ticket refused for a match that ended meanwhile: ``_note_refused_ticket``)."""
        errors = list(self.errors)
        for _ in range(self.refused_tickets):
            if TICKET_REFUSED in errors:
                errors.remove(TICKET_REFUSED)
        assert not errors, self.errors
        self.page.close()

    def best_discard(self) -> list[str]:
        found = self.page.query_selector("[data-best-discard]")
        return json.loads(found.get_attribute("data-best-discard")) if found else []


def choose(actions: list[dict[str, Any]], best: list[str]) -> dict[str, Any]:
    """Knock as soon as offered, pass the upcard, draw from the stock, throw a best discard."""
    return eager(actions, best)


NEWER = "v => Number(document.querySelector('.table').dataset.version) > v"


def click(player: Page, action: dict[str, Any]) -> None:
    """Click the rendered element carrying exactly this action (a rummy discard: pick the
    card, then its Discard button); wait for the new table.

    A click landing as the page replaces its buttons reaches none. The page no longer
    redraws for the stream's echo of its own move, but a presence that changes or a slow
    machine's late redraw still may; a person would click again, and so does this, once,
    if the page still offers the action at the same version (a click already sent is
    ignored while it is in flight)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    before = player.version()
    press(player, action)
    try:
        player.page.wait_for_function(NEWER, arg=before, timeout=LOST_CLICK_MS)
    except PlaywrightTimeout:
        if player.version() == before and action in player.actions():
            press(player, action)
        player.page.wait_for_function(NEWER, arg=before)


def press(player: Page, action: dict[str, Any]) -> None:
    shown = [json.loads(text) for text in player.page.eval_on_selector_all(
        ACTIONS, "els => els.map(e => e.dataset.action)")]
    if action not in shown:
        picks = f".composer .pickable button.pick[data-card='{action['card']}']"
        player.page.locator(picks).first.click()
        player.page.wait_for_selector(".composer button.discard-picked")
        shown = [json.loads(text) for text in player.page.eval_on_selector_all(
            ACTIONS, "els => els.map(e => e.dataset.action)")]
    player.page.locator(ACTIONS).nth(shown.index(action)).click()


def create_and_join(ann: Page, bob: Page) -> str:
    ann.page.fill("input[name=you]", "Ann")
    ann.page.select_option("select[name=variant]", "gin")
    ann.page.select_option("select[name=use-1]", "open")
    ann.page.click("form.create summary")
    ann.page.fill("input[name=option-target]", "1")
    ann.page.click("form.create button[type=submit]")
    ann.page.wait_for_selector(".table-page[data-mode=seat] .table")
    match_id = ann.attribute(".table-page", "data-match")
    assert match_id and ann.attribute(".table", "data-phase") == "waiting"

    bob.page.fill("input[name=you]", "Bob")
    bob.page.click("button.refresh")
    row = bob.page.text_content(f"li[data-match='{match_id}']") or ""
    assert "created just now" in row and "Target 1" in row, row  # its age and options in words
    bob.page.click(f"li[data-match='{match_id}'] button[data-claim='1']")
    bob.page.wait_for_selector(".table-page[data-mode=seat] .table[data-phase=upcard], "
                               ".table-page[data-mode=seat] .table[data-phase=draw]")
    return match_id


def play_until_complete(ann: Page, bob: Page, watcher: Page, tmp_path: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {"moves": 0, "spectator_face_up": 0, "table_shot": None}
    for _ in range(3000):
        if ann.attribute(".table", "data-phase") == "complete":
            if seen["table_shot"] is None:  # a short hand (an early knock): the final table
                seen["table_shot"] = shot(ann, tmp_path, "table.png")
            return seen
        moved = False
        for player in (ann, bob):
            actions = player.actions()
            if not actions:
                continue
            if seen["table_shot"] is None and player is ann and seen["moves"] >= 4 \
                    and any(a["type"] == "discard" for a in actions):
                seen["table_shot"] = shot(ann, tmp_path, "table.png")
            click(player, choose(actions, player.best_discard()))
            seen["moves"] += 1
            moved = True
            seen["spectator_face_up"] += watcher.page.locator(
                ".seat .cards .card:not(.back)").count()
        if not moved:
            time.sleep(0.02)
    raise AssertionError("the match did not end")


def shot(player: Page, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    player.page.screenshot(path=str(path), full_page=True)
    if os.environ.get("RUMMY_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, SCREENSHOTS / name)
    return path


def step_to(viewer: Page, event_type: str) -> int:
    viewer.page.click("button.first")
    for _ in range(500):
        version = viewer.attribute(".event", "data-version")
        viewer.page.wait_for_selector(f".replay-table[data-version='{version}']")
        if viewer.attribute(".event", "data-type") == event_type:
            return int(version or 0)
        viewer.page.click("button.next")
        viewer.page.wait_for_selector(f".event[data-version='{int(version or 0) + 1}']")
    raise AssertionError(f"no {event_type} in the replay")


def test_two_pages_play_a_gin_hand_a_spectator_watches_and_the_replay_verifies_it(
        browser, api_url, tmp_path):
    ann = Page(browser, f"{api_url}/#/")
    bob = Page(browser, f"{api_url}/#/")
    match_id = create_and_join(ann, bob)
    watcher = Page(browser, f"{api_url}/#/watch/{match_id}")
    watcher.page.wait_for_selector(".table-page[data-mode=spectator] .table")
    watcher.await_following()
    renders_before = int(watcher.attribute(".board", "data-renders") or 0)

    played = play_until_complete(ann, bob, watcher, tmp_path)
    final = ann.version()
    assert played["moves"] >= 4

    # The spectator followed every move live from its stream: it re-drew the table as the
    # match went on (not once at the end) and reached the final version with no reload;
    # it never saw a card in anyone's hand, and it has no actions.
    watcher.page.wait_for_function(
        "v => Number(document.querySelector('.table').dataset.version) >= v", arg=final)
    assert int(watcher.attribute(".board", "data-renders") or 0) - renders_before >= \
        played["moves"] // 2
    assert played["spectator_face_up"] == 0
    assert watcher.page.locator(".mine").count() == 0 and not watcher.actions()
    assert watcher.attribute(".table", "data-phase") == "complete"
    bob.page.wait_for_selector(".table[data-phase=complete]")  # his page hears it live too
    assert "won" in (watcher.page.text_content(".status") or "")

    # The replay viewer steps to the knock: the event and the table at that step (the hand
    # is revealed now, so both hands show), then verifies the whole log.
    viewer = watcher
    viewer.page.goto(f"{api_url}/#/replay/{match_id}")
    viewer.page.wait_for_selector(".event[data-version]")
    knock = step_to(viewer, "HandKnocked")
    assert 4 < knock < final
    assert viewer.page.locator(".replay-table .seat .cards .card:not(.back)").count() >= 20
    viewer.page.click("button.verify")
    viewer.page.wait_for_selector("[data-verdict]", timeout=30_000)
    checks = viewer.page.eval_on_selector_all(
        "[data-check]", "els => els.map(e => [e.dataset.check, e.dataset.ok])")
    assert viewer.attribute("[data-verdict]", "data-verdict") == "ok", checks
    assert {name for name, _ in checks} == {"hash_chain", "commitments", "deals", "rules",
                                           "scores"}
    assert all(ok == "1" for _, ok in checks)
    replay_shot = shot(viewer, tmp_path, "replay.png")

    assert played["table_shot"] is not None and played["table_shot"].stat().st_size > 10_000
    assert replay_shot.stat().st_size > 10_000
    for player in (ann, bob, viewer):
        player.close_clean()


def test_the_browser_hashes_events_exactly_as_domain_chain_does(browser, api_url):
    """Canonical JSON in JS and Python agree on the awkward cases: floats written as 120.0,
    exponents, big integers, -0.0, escapes, non-ASCII text and code-point key order."""
    data = {"z": 1, "Z": [120.0, 1e-07, 1e22, -0.0, 2**60, 0.1, 5e-324, True, None],
            "é": "Zoë ✓ 😀 \"quoted\" \\ \t\n\x01\x7f\u2028", "😀": {}, "\uffff": [],
            "a": {"nested": [{"b": 1.5, "a": "x"}]}}
    records = []
    previous = GENESIS_HASH
    for version, command in ((1, None), (2, {"seat": 0, "action": {"type": "pass"}})):
        record = {"version": version, "type": "Odd", "schema": 1, "data": data,
                  "command_id": f"seat0:{version}", "ts": 1718000000.0 + version / 8,
                  "prev_hash": previous, "command": command}
        record["hash"] = event_hash(**{k: v for k, v in record.items()})
        previous = record["hash"]
        records.append(record)
    texts = [canonical_json(r) for r in records] + [json.dumps(r) for r in records]
    page = Page(browser, f"{api_url}/#/replay")
    hashes = page.page.evaluate("""async (texts) => {
        const m = await import("/web/js/verify.js");
        return Promise.all(texts.map((text) => m.eventHash(m.parseRaw(text))));
    }""", texts)
    assert hashes == [r["hash"] for r in records] * 2
    chain = page.page.evaluate("""async (texts) => {
        const m = await import("/web/js/verify.js");
        return (await m.checkChain(texts.map((t) => m.parseRaw(t)))).ok;
    }""", texts[:2])
    assert chain is True
    assert not page.errors, page.errors
    page.page.close()


def test_the_browser_checks_seed_commitments_as_domain_fairness_does(browser, api_url):
    match_seed = hashlib.sha256(b"a match seed").digest()
    entropy = ["Zoë ✓", "", "lucky 7"]
    seeds = {n: hand_seed(match_seed, n, entropy) for n in (1, 2)}

    def log(tamper: bool) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = [
            {"type": "SeedCommitted", "data": {"seed_commitment": commitment(match_seed),
                                                "entropy": entropy}}]
        for n, seed in seeds.items():
            revealed = seed.hex() if not (tamper and n == 2) else "00" * 32
            events += [{"type": "HandDealt", "data": {"hand_number": n, "seed": seed.hex(),
                                                      "commitment": commitment(seed)}},
                       {"type": "SeedRevealed", "data": {"hand_number": n, "seed": revealed}}]
        events.append({"type": "MatchSeedRevealed", "data": {"seed": match_seed.hex()}})
        return [{"version": i, **e} for i, e in enumerate(events, start=1)]

    page = Page(browser, f"{api_url}/#/replay")
    results = page.page.evaluate("""async (logs) => {
        const m = await import("/web/js/verify.js");
        const out = [];
        for (const log of logs) {
            const check = await m.checkCommitments(log.map((r) => m.parseRaw(JSON.stringify(r))));
            out.push([check.ok, check.checked, check.first_failure]);
        }
        return out;
    }""", [log(False), log(True)])
    assert results[0] == [True, 7, None]
    assert results[1][0] is False and results[1][2]["version"] == 5
    assert not page.errors, page.errors
    page.page.close()


def upload(page: Page, body: bytes) -> str:
    """Choose ``body`` as the replay viewer's log file; the error it then shows."""
    page.page.reload()
    page.page.set_input_files("input[name=log]", files=[
        {"name": "match.ndjson", "mimeType": "application/x-ndjson", "buffer": body}])
    page.page.wait_for_selector(".messages .notice.error", timeout=30_000)
    return page.page.inner_text(".messages .notice.error")


def test_the_replay_viewer_says_why_a_log_is_too_large_to_audit(browser, api_url):
    from service.usecases.log_upload import MAX_LOG_BYTES, MAX_LOG_LINES

    page = Page(browser, f"{api_url}/#/replay")
    too_large = upload(page, b"\n" * (MAX_LOG_BYTES + 1))
    assert "6.0 MiB" in too_large and "at most 6 MiB" in too_large, too_large
    assert "rummy verify FILE" in too_large
    too_long = upload(page, b"\n" * (MAX_LOG_LINES + 1))  # blank lines count too
    assert too_long.startswith("The server refused the log: "), too_long
    assert "log_too_long" not in too_long, too_long
    assert str(MAX_LOG_LINES) in too_long and "rummy verify FILE" in too_long
    not_a_log = upload(page, b'{"version": 1}\n')
    assert "not a log the server can verify: " in not_a_log, not_a_log
    assert "unverifiable_log" not in not_a_log, not_a_log
    assert "line 1: no 'type'" in not_a_log
    page.page.close()


def join_variant(ann: Page, bob: Page, variant: str) -> str:
    """Ann creates a two-seat match of ``variant`` with seat 1 open; Bob takes it."""
    ann.page.fill("input[name=you]", "Ann")
    ann.page.select_option("select[name=variant]", variant)
    ann.page.select_option("select[name=use-1]", "open")
    ann.page.click("form.create button[type=submit]")
    ann.page.wait_for_selector(".table-page[data-mode=seat] .table")
    match_id = ann.attribute(".table-page", "data-match")
    assert match_id
    bob.page.fill("input[name=you]", "Bob")
    bob.page.click("button.refresh")
    bob.page.click(f"li[data-match='{match_id}'] button[data-claim='1']")
    bob.page.wait_for_selector(".table-page[data-mode=seat] .table:not([data-phase=waiting])")
    return match_id


def ordinary(actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A plain turn: draw from the stock, then throw the first card offered."""
    for wanted in ({"type": "draw", "source": "stock"},):
        if wanted in actions:
            return wanted
    discards = [a for a in actions if a["type"] == "discard"]
    return (discards or actions)[0]


def test_gem_and_rummy_tables_play_through_the_client_and_hide_every_hand(browser, api_url):
    """The other two families on the same client: each seat's page shows its own hand and
    the other's backs only, takes turns from the actions it renders, and a spectator page
    follows live without one face-up card in a hand."""
    for variant in ("gem", "rummy"):
        ann = Page(browser, f"{api_url}/#/")
        bob = Page(browser, f"{api_url}/#/")
        match_id = join_variant(ann, bob, variant)
        watcher = Page(browser, f"{api_url}/#/watch/{match_id}")
        watcher.page.wait_for_selector(".table-page[data-mode=spectator] .table")
        moves = 0
        for _ in range(200):
            if moves >= 12:
                break
            moved = False
            for player in (ann, bob):
                actions = player.actions()
                if actions:
                    click(player, ordinary(actions))
                    moves += 1
                    moved = True
                    assert player.page.locator(".mine .card:not(.back)").count() > 0, variant
            if not moved:
                time.sleep(0.02)
        assert moves >= 12, (variant, moves)
        watcher.page.wait_for_function(
            "v => Number(document.querySelector('.table').dataset.version) >= v",
            arg=max(ann.version(), bob.version()))
        assert watcher.page.locator(".seat .cards .card:not(.back)").count() == 0, variant
        assert watcher.page.locator(".mine").count() == 0 and not watcher.actions()
        for player in (ann, bob, watcher):
            player.close_clean()
