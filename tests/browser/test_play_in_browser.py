"""A page on another origin, in real Chromium, joins a match through an open seat, plays it
to the end and follows its own private events live through EventSource with a ticket."""

from __future__ import annotations

from typing import Any


def run_page(browser: Any, page_origin: str, api_url: str) -> dict[str, Any]:
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{page_origin}/play.html?api={api_url}")
    page.wait_for_function("() => window.result !== undefined", timeout=120_000)
    result: dict[str, Any] = page.evaluate("window.result")
    page.close()
    assert "error" not in result, result.get("error")
    result["console_errors"] = errors
    return result


def test_a_page_on_another_origin_plays_a_match_and_follows_it_live(browser, page_origin,
                                                                    api_url):
    assert page_origin != api_url
    result = run_page(browser, page_origin, api_url)

    # It created the match with an open seat, claimed it, and read its seat's view.
    assert (result["createStatus"], result["claimStatus"]) == (201, 201)
    assert result["firstView"]["seat"] == 0 and len(result["firstView"]["hand"]) == 10
    # It played every action from legal_actions, without one refusal, to the end.
    assert result["statuses"] == {"200": result["actions"]} and result["actions"] > 0
    assert result["lastView"]["phase"] == "complete"

    # Live, it received the whole log once, in order: every event /events has, same hash
    # (/events now shows revealed hands in full, the stream showed them as they were).
    live = [entry for entry in result["received"] if entry["id"]]
    logged = result["annEvents"]
    assert [int(e["id"]) for e in live] == [e["version"] for e in logged]
    assert [(e["type"], e["event"]["hash"]) for e in live] == [
        (e["type"], e["hash"]) for e in logged]
    assert live[-1]["type"] == "MatchCompleted"

    # Its own stock draws carry the card; the other seat's do not.
    stock_draws = [e["event"]["data"] for e in live
                   if e["type"] == "CardDrawn" and e["event"]["data"]["source"] == "stock"]
    own = [d for d in stock_draws if d["seat"] == 0]
    other = [d for d in stock_draws if d["seat"] == 1]
    assert own and all(d.get("card") for d in own)
    assert other and not any(d.get("card") for d in other)

    # After the end the server closed the stream (an error event: EventSource reconnects),
    # the reconnect got 204 (the second error), and EventSource stopped for good: CLOSED.
    assert result["readyState"] == 2, result
    assert result["opens"] == 1 and result["errors"] == 2
    assert not result["console_errors"], result["console_errors"]
