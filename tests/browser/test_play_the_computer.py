"""Playing the computer in the reference client: from the lobby a person plays a whole gin
match against a basic bot and a rummy round against one, every bot move told in the move
log beside the table, the end explained in words; a spectator page follows an all-bot
match to its end; "Play again" takes the rematch against the bot; and the log's and the
end screen's wording, checked on crafted events.

The bots play with no think time (the lobby's "instant" pace) so the tests stay short.
"""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

from tests.browser.playing import eager, play_the_computer, play_to_the_end
from tests.browser.test_reference_client import Page, click

LABELS = {"T": "10", "C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def label(code: str) -> str:
    return "Joker" if code == "JK" else "".join(LABELS.get(c, c) for c in code)


def public_log(api_url: str, match_id: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{api_url}/v1/matches/{match_id}/events", timeout=10) as answer:
        return json.load(answer)["events"]


def logged(page: Page) -> dict[int, dict[str, str]]:
    """The move log's entries by version: their text and the cards they mark."""
    page.page.wait_for_selector(".move-log li[data-type=MatchCompleted]")
    entries = page.page.eval_on_selector_all(".move-log li[data-version]", """els => els.map(e => [
        Number(e.dataset.version), e.textContent,
        Array.from(e.querySelectorAll('mark.log-card')).map(m => m.dataset.card).join(' ')])""")
    return {version: {"text": text, "cards": cards} for version, text, cards in entries}


MOVES = {"UpcardPassed", "CardDrawn", "CardDiscarded", "HandKnocked", "MeldsLaidDown",
         "CardLaidOff", "JokerExchanged"}
"""The events a seat's own move records; what follows from one (a hand ended by a discard
that left the stock too short, its scoring, the next deal) carries the move's command too."""


def assert_bot_moves_logged(log: dict[int, dict[str, str]], events: list[dict[str, Any]],
                            bot: str) -> int:
    """Every bot move is in the log, in words; a stock draw never names its card."""
    moves = [e for e in events if (e["command_id"] or "").startswith("seat1:bot:")
             and e["type"] in MOVES]
    assert moves
    for event in moves:
        entry, data = log[event["version"]], event["data"]
        assert entry["text"].startswith(bot), entry
        if event["type"] == "CardDrawn" and data["source"] == "stock":
            assert entry == {"text": f"{bot} drew from the stock", "cards": ""}
        elif event["type"] == "CardDrawn":
            assert entry["text"].endswith("from the discard pile")
            assert data["card"] in entry["cards"]
        elif event["type"] == "CardDiscarded":
            told = f"{bot} discarded {label(data['card'])}"
            assert entry == {"text": told, "cards": data["card"]}
    return len(moves)


def test_a_person_plays_a_whole_gin_match_against_a_basic_bot(browser, api_url, tmp_path):
    ann = Page(browser, f"{api_url}/#/")
    match_id = play_the_computer(ann, "gin", target=10)
    assert ann.page.text_content(".table .goal") == "Target 10 points"
    bot_seat = ann.page.text_content(".seat[data-seat='1'] .seat-name") or ""
    assert "⚙" in bot_seat and "Basic bot · basic" in bot_seat, bot_seat
    assert ann.page.locator(".seat[data-seat='1'] .presence").count() == 0  # never away
    assert ann.page.get_attribute(".move-log .log-hands", "aria-live") == "polite"

    assert play_to_the_end(ann) >= 1
    log = logged(ann)
    events = public_log(api_url, match_id)
    assert assert_bot_moves_logged(log, events, "Basic bot") >= 2
    own_draws = [e for e in events if e["type"] == "CardDrawn" and e["data"]["seat"] == 0
                 and e["data"]["source"] == "stock"]
    for draw in own_draws:  # Ann's own stock draws name the card she drew
        entry = log[draw["version"]]
        assert entry["text"].startswith("You drew ") and entry["cards"], entry
    hands = [e for e in events if e["type"] == "HandScored"]
    assert all(log[e["version"]]["text"].startswith(f"Hand {e['data']['hand_number']} over")
               for e in hands)

    story = ann.page.text_content(".match-end .match-story") or ""
    assert "reached the target of 10 hand points" in story and "Final scores" in story, story
    assert "line bonus" in story
    assert ann.page.locator(".match-end .hand-story").count() == 1
    assert ann.page.text_content(".table .goal") == "Target 10 points"
    ann.page.screenshot(path=str(tmp_path / "gin-against-a-bot.png"), full_page=True)
    ann.close_clean()


def test_play_again_takes_the_rematch_and_the_bot_plays_on(browser, api_url):
    """The bot accepts with the offer: "Play again" opens the new match at once, Ann in
    the bot's old seat, and the bot moves there as in any match."""
    ann = Page(browser, f"{api_url}/#/")
    old_id = play_the_computer(ann, "gin", target=1)
    play_to_the_end(ann)
    ann.page.click(".match-end button.rematch")
    ann.page.wait_for_function(
        "id => document.querySelector('.table-page[data-mode=seat]')?.dataset.match !== id"
        " && document.querySelector('.table') !== null", arg=old_id)
    new_id = ann.attribute(".table-page", "data-match") or ""
    assert ann.page.text_content(".table-page > p").startswith(f"Match {new_id} · seat 1 (Ann)")
    assert "you" in (ann.attribute(".seat[data-seat='1']", "class") or "").split()
    assert "Basic bot" in (ann.page.text_content(".seat[data-seat='0'] .bot-seat") or "")
    created = next(e for e in public_log(api_url, new_id) if e["type"] == "RematchCreated")
    assert created["data"]["rematch_of"] == old_id

    for _ in range(500):  # the bot has moved, or moves after Ann's first move
        if any((e["command_id"] or "").startswith("seat0:bot:")
               for e in public_log(api_url, new_id)):
            break
        actions = ann.actions()
        if actions:
            click(ann, eager(actions, ann.best_discard()))
        time.sleep(0.05)
    else:
        raise AssertionError("the bot never moved in the rematch")
    ann.page.wait_for_selector(".move-log li[data-version]:has-text('Basic bot')")
    ann.close_clean()


def test_a_person_plays_a_rummy_round_against_a_basic_bot(browser, api_url):
    ann = Page(browser, f"{api_url}/#/")
    match_id = play_the_computer(ann, "rummy", rounds=1)
    assert ann.page.text_content(".table .goal") == "1 round"
    play_to_the_end(ann)
    log = logged(ann)
    events = public_log(api_url, match_id)
    assert_bot_moves_logged(log, events, "Basic bot")
    ended = next(e for e in events if e["type"] == "HandEnded")
    if ended["data"]["result"] == "out":
        winner = "You" if ended["data"]["winner"] == 0 else "Basic bot"
        assert log[ended["version"]]["text"].startswith(f"{winner} went out")
    for event in events:
        if event["type"] == "MeldsLaidDown":
            assert " laid down " in log[event["version"]]["text"]
    story = ann.page.text_content(".match-end") or ""
    assert "The lowest total of minus points wins" in story, story
    assert "Minus points this round" in story or "void" in story, story
    ann.close_clean()


def test_a_spectator_watches_an_all_bot_match_to_its_end(browser, api_url):
    watcher = Page(browser, f"{api_url}/#/")
    watcher.page.select_option("select[name=watch-variant]", "gin")
    watcher.page.select_option("select[name=watch-level]", "basic")
    watcher.page.select_option("select[name=watch-pace]", "100")
    watcher.page.click("form.watch-form summary")
    watcher.page.fill("input[name=watch-option-target]", "10")
    watcher.page.click("form.watch-form button[type=submit]")
    watcher.page.wait_for_selector(".table-page[data-mode=spectator] .table")
    match_id = watcher.attribute(".table-page", "data-match") or ""
    watcher.page.wait_for_selector(".spectator-hint[data-all-bots='1']")
    face_up = 0
    for _ in range(600):
        if watcher.attribute(".table", "data-phase") == "complete":
            break
        face_up += watcher.page.locator(".seat .cards .card:not(.back)").count()
        time.sleep(0.05)
    watcher.page.wait_for_selector(".table[data-phase=complete] .match-end .match-story")
    assert face_up == 0 and not watcher.actions()
    log = logged(watcher)
    events = public_log(api_url, match_id)
    for event in events:
        if event["type"] in ("CardDrawn", "CardDiscarded", "HandKnocked", "UpcardPassed"):
            assert event["version"] in log, event
    assert not any(entry["text"].startswith("You") for entry in log.values())
    assert all(entry["cards"] == "" for entry in log.values()
               if entry["text"].endswith("drew from the stock"))

    # Any match is watched by its URL, a finished one too: the log is read back whole
    # (a revealed deal's event no longer names the upcard apart: the deck holds it).
    late = Page(browser, f"{api_url}/#/watch/{match_id}")
    late.page.wait_for_selector(".table-page[data-mode=spectator] .table[data-phase=complete]")
    read_back = logged(late)
    assert read_back.keys() == log.keys()
    for version, entry in log.items():
        assert read_back[version]["text"] in entry["text"], (read_back[version], entry)
    for page in (watcher, late):
        page.close_clean()


WORDING = """async () => {
  const {told, plain} = await import("/web/js/movelog.js");
  const table = {names: ["Ann", "Basic bot"], viewer: 0, variant: "gin"};
  const say = (type, data, at = table) => plain(told({type, data, version: 9}, at));
  const rummy = {...table, variant: "rummy"};
  return [
    say("CardDrawn", {seat: 1, source: "discard", card: "7S"}),
    say("CardDrawn", {seat: 1, source: "stock", card: "9H"}),
    say("CardDrawn", {seat: 0, source: "stock", card: "4D"}),
    say("CardDiscarded", {seat: 1, card: "QH"}),
    say("UpcardPassed", {seat: 0}),
    say("HandKnocked", {seat: 1, kind: "knock", deadwood: 4, discard: "TC"}),
    say("HandKnocked", {seat: 1, kind: "gin", deadwood: 0, discard: "2C"}),
    say("HandKnocked", {seat: 0, kind: "big_gin", deadwood: 0, discard: null}),
    say("HandScored", {hand_number: 2, result: "undercut", points: [0, 27]}),
    say("CardDrawn", {seat: 1, source: "discard", depth: 2, card: "5D", cards: ["5D", "6D"]}),
    say("MeldsLaidDown", {seat: 1, opening: true, value: 42,
      melds: [{cards: ["7S", "8S", "9S"]}, {cards: ["KH", "KD", "KC"]}]}, rummy),
    say("CardLaidOff", {seat: 0, meld: 3, card: "JK", represents: "5H"}, rummy),
    say("JokerExchanged", {seat: 1, meld: 2, card: "8D"}, rummy),
    say("HandEnded", {result: "out", reason: "out", winner: 1, rummy: true}, rummy),
    say("HandScored", {hand_number: 1, result: "out", points: [36, 0], rummy: true,
      scores: [36, 0]}, rummy),
    told({type: "SeedRevealed", data: {}, version: 9}, table),
  ];
}"""


def test_the_move_log_tells_each_move_in_words(browser, api_url):
    page = Page(browser, f"{api_url}/#/replay")
    assert page.page.evaluate(WORDING) == [
        "Basic bot took 7♠ from the discard pile",
        "Basic bot drew from the stock",  # another seat's card, even where the log has it
        "You drew 4♦",
        "Basic bot discarded Q♥",
        "You passed the upcard",
        "Basic bot knocked with 4 deadwood, discarding 10♣",
        "Basic bot went gin, discarding 2♣",
        "You declared big gin",
        "Hand 2 over, an undercut: Basic bot scores 27",
        "Basic bot took 5♦ 6♦ from the discard pile",
        "Basic bot laid down 7♠ 8♠ 9♠ · K♥ K♦ K♣ to open (42 points)",
        "You laid off Joker on meld #3 as 5♥",
        "Basic bot put 8♦ in place of the joker of meld #2 and took the joker",
        "Basic bot went out, going rummy",
        "Round 1 over, a player out (rummy: minus points doubled): "
        "minus points Ann 36, Basic bot 0",
        None,
    ]
    page.close_clean()


STORIES = """async () => {
  const {handStory, matchStory, matchGoal} = await import("/web/js/explain.js");
  const seats = [{seat: 0, name: "Ann"}, {seat: 1, name: "Basic bot"}];
  const gin = {variant: "gin", seats, options: {target: 100, gin_bonus: 25, big_gin_bonus: 31,
    undercut_bonus: 25, line_bonus: 25}};
  const pairing = (result, K, D, points) => ({knocker: 1, result, pairings: [
    {defender: 0, knocker_deadwood: K, defender_deadwood: D, points, result, winner: 0}]});
  const rummy = {variant: "rummy", seats, options: {rounds: null, penalty_limit: null}};
  return [
    matchGoal(gin), matchGoal(rummy),
    matchGoal({...rummy, options: {rounds: 3, penalty_limit: 100}}),
    handStory(gin, pairing("gin", 0, 12, 37)),
    handStory(gin, pairing("big_gin", 0, 9, 40)),
    handStory(gin, pairing("knock", 3, 10, 7)),
    handStory(gin, pairing("undercut", 8, 5, 28)),
    handStory(gin, {result: "draw", reason: "stock_exhausted"}),
    handStory(rummy, {result: "out", winner: 1, rummy: true, points: [72, 0]}),
    matchStory({...gin, phase: "complete", winners: [1], scores: [0, 104], final_scores: [0, 354],
      bonuses: [{seat: 0, game: 0, line: 0, hands_won: 0, shutout: false, total: 0},
                {seat: 1, game: 200, line: 50, hands_won: 2, shutout: true, total: 250}]}),
    matchStory({...rummy, phase: "complete", winners: [1], scores: [72, 0], final_scores: [72, 0],
      rounds_played: 2}),
  ];
}"""


def test_the_end_screen_explains_the_result_in_words(browser, api_url):
    page = Page(browser, f"{api_url}/#/replay")
    assert page.page.evaluate(STORIES) == [
        "Target 100 points", "2 rounds (each player deals once)", "3 rounds · penalty limit 100",
        ["Basic bot went gin (no deadwood): no lay-offs, and Basic bot scores 37 "
         "(the gin bonus 25 + Ann's 12 deadwood)."],
        ["Basic bot went big gin (every card melds): no lay-offs, and Basic bot scores 40 "
         "(the big gin bonus 31 + Ann's 9 deadwood)."],
        ["Basic bot knocked with 3 deadwood against Ann's 10 after lay-offs: "
         "Basic bot scores 7 (10 − 3)."],
        ["Basic bot knocked with 8 deadwood, but Ann had less after lay-offs (5): an undercut, "
         "and Ann scores 28 (8 − 5 + the undercut bonus 25)."],
        ["Nobody knocked: the hand is drawn (the stock ran down) and nobody scores."],
        ["Basic bot went rummy, laying every card down in one turn: the others' minus points "
         "are doubled.", "Minus points this round: Ann 72, Basic bot 0."],
        ["Basic bot reached the target of 100 hand points (hand points: Ann 0, Basic bot 104).",
         "Basic bot takes the shutout bonus of 200: nobody else scored a point.",
         "Basic bot takes the line bonus: 2 hands won × 25 = 50.",
         "Final scores with bonuses: Ann 0, Basic bot 354; Basic bot wins."],
        ["After 2 rounds that counted, the game is over.",
         "The lowest total of minus points wins: Ann 72, Basic bot 0."],
    ]
    page.close_clean()


def test_the_lobby_lists_a_bot_seat_as_a_bot(browser, api_url):
    body = {"variant": "rummy", "players": [{"name": "Ann"}, {"open": True},
                                            {"bot": "expert", "think_ms": 0}]}
    request = urllib.request.Request(f"{api_url}/v1/matches", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        created = json.load(answer)
    match_id = created["id"]
    lobby = Page(browser, f"{api_url}/#/")
    row = f"li[data-match='{match_id}']"
    lobby.page.wait_for_selector(row)
    assert lobby.page.text_content(f"{row} .bot-seat[data-bot=expert]") == "⚙ Expert bot · expert"
    assert lobby.page.locator(f"{row} button[data-claim='1']").count() == 1
    lobby.close_clean()
    call_off = urllib.request.Request(  # out of the lobby the other tests share
        f"{api_url}/v1/matches/{match_id}/abort", data=b'{"reason": "test over"}',
        headers={"Content-Type": "application/json",
                 "Authorization": f"Bearer {created['creator_token']}"})
    urllib.request.urlopen(call_off, timeout=10).close()
