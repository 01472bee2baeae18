"""The post-game analysis in the replay viewer: a finished all-bot gin match is analysed
from its replay ("Analyse", with a shallow depth so the test stays short), every decision
gets its label as a badge on its move, the expert's choice in words where it differs,
and each seat its counts; a match in play offers no analysis; and the wording, checked
on crafted decisions."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import Any

from tests.browser.test_reference_client import Page

SHALLOW = {"budget_ms": 1, "samples": 4}


def post(api_url: str, path: str, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    request = urllib.request.Request(f"{api_url}{path}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer), answer.headers.get("Location") or ""


def get(api_url: str, path: str) -> dict[str, Any]:
    url = path if path.startswith("http") else f"{api_url}{path}"
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


def finished_bot_match(api_url: str) -> str:
    """Two basic bots play a one-point gin match out on their own."""
    bots = [{"bot": "basic", "think_ms": 0}, {"bot": "basic", "think_ms": 0}]
    match, _ = post(api_url, "/v1/matches", {"variant": "gin", "players": bots,
                                             "options": {"target": 1}})
    for _ in range(600):
        if get(api_url, f"/v1/matches/{match['id']}")["phase"] == "complete":
            return str(match["id"])
        time.sleep(0.05)
    raise AssertionError("the bots did not finish their match")


def test_a_finished_match_is_analysed_beside_its_moves(browser, api_url, tmp_path):
    match_id = finished_bot_match(api_url)
    viewer = Page(browser, f"{api_url}/#/replay/{match_id}")
    viewer.page.wait_for_selector(".analysis[data-analysis=none] button.analyse")
    viewer.page.click(".analysis-depth summary")
    viewer.page.fill("input[name=analysis-budget]", str(SHALLOW["budget_ms"]))
    viewer.page.fill("input[name=analysis-samples]", str(SHALLOW["samples"]))
    viewer.page.click("button.analyse")
    viewer.page.wait_for_selector(".analysis[data-analysis=done]", timeout=120_000)

    # The same parameters name the same analysis: the server's answer, to compare with.
    _, location = post(api_url, f"/v1/matches/{match_id}/analyses", SHALLOW)
    analysis = get(api_url, location)
    assert analysis["status"] == "done" and analysis["decisions"]
    events = get(api_url, f"/v1/matches/{match_id}/events")["events"]
    names = [seat["name"] for seat in get(api_url, f"/v1/matches/{match_id}")["seats"]]
    notes = viewer.page.eval_on_selector_all(".moves li[data-move] .analysis-note", """els =>
        els.map(e => [Number(e.closest('li').dataset.move), e.dataset.label,
                      e.querySelector('.badge').textContent, e.textContent])""")
    assert len(notes) == len(analysis["decisions"])
    for (move, label, badge, text), decision in zip(notes, analysis["decisions"], strict=True):
        assert move == decision["index"] + 1
        assert events[move - 1]["type"] in ("CardDrawn", "CardDiscarded", "UpcardPassed",
                                             "HandKnocked")
        assert label == badge == decision["label"]
        if decision["played"] == decision["expert"]:
            assert text == label
        else:
            told = re.fullmatch(rf"{label} the expert would .+; this move cost "
                                r"(\d+\.\d) points?", text)
            assert told and abs(float(told[1]) - decision["cost"]) <= 0.051, (text, decision)

    rows = viewer.page.eval_on_selector_all(".analysis-seats tr[data-seat]", """els =>
        els.map(e => Array.from(e.querySelectorAll('td')).map(td => td.textContent))""")
    for row, seat in zip(rows, analysis["summary"], strict=True):
        labels = seat["labels"]
        assert row[:5] == [names[seat["seat"]], str(seat["decisions"]),
                           str(labels["inaccuracy"]), str(labels["mistake"]),
                           str(labels["blunder"])]
    assert len(rows) == 2
    viewer.page.screenshot(path=str(tmp_path / "analysis.png"), full_page=True)
    viewer.close_clean()


def test_a_match_in_play_offers_no_analysis(browser, api_url):
    match, _ = post(api_url, "/v1/matches", {"variant": "gin",
                                             "players": [{"name": "Ann"}, {"name": "Bob"}]})
    viewer = Page(browser, f"{api_url}/#/replay/{match['id']}")
    viewer.page.wait_for_selector(".moves li[data-move]")
    assert viewer.page.locator(".analysis").count() == 0
    viewer.close_clean()


WORDING = """async () => {
  const {decisionNote, expertWords, points} = await import("/web/js/analysis.js");
  const note = (played, expert, cost, label) => decisionNote(
    {index: 7, hand_number: 1, seat: 0, played, expert, cost, samples: 40, label}).textContent;
  const stock = {type: "draw", source: "stock"};
  return [
    note(stock, {source: "stock", type: "draw"}, 0, "fine"),
    note(stock, {type: "draw", source: "discard"}, 6.24, "mistake"),
    note({type: "discard", card: "7H"}, {type: "knock", discard: "TC"}, 1, "fine"),
    expertWords({type: "pass"}),
    expertWords({type: "big_gin"}),
    expertWords({type: "lay_down", melds: [{cards: ["7S", "8S", "9S"]}]}),
    points(12.04),
  ];
}"""


def test_a_decision_is_told_in_words(browser, api_url):
    page = Page(browser, f"{api_url}/#/replay")
    assert page.page.evaluate(WORDING) == [
        "fine",  # the same move, its keys in another order
        "mistake the expert would take the discard; this move cost 6.2 points",
        "fine the expert would knock, discarding 10♣; this move cost 1.0 point",
        "pass the upcard",
        "declare big gin",
        "lay down 7♠ 8♠ 9♠",
        "12.0 points",
    ]
    page.close_clean()
