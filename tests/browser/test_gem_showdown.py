"""A gem hand's showdown shows each card's gems and each meld's kind (stashes looked like
random cards without them), and the discard pile's fan leaves each card room for its
gems (they collided)."""

from __future__ import annotations

from tests.browser.playing import created, play_over_the_api, seated

ROOM = """() => {
  const cards = [...document.querySelectorAll('.pile.discards .fan .card')]
    .map(e => e.getBoundingClientRect());
  const gemmed = document.querySelector('.pile.discards .gem');
  if (!gemmed) return {narrowest: Infinity, two_gems: 0, pairs: 0};
  const gem = gemmed.getBoundingClientRect().width;
  const steps = cards.slice(1).map((r, i) => [r, cards[i]])
    .filter(([r, before]) => Math.abs(r.top - before.top) < 2)  // neighbours on one row
    .map(([r, before]) => r.left - before.left);
  return {narrowest: Math.min(...steps), two_gems: 2 * gem + 1, pairs: steps.length};
}"""
"""A gem card has up to two gems: each card of the fan shows at least their width."""

def test_a_gem_showdown_shows_gems_and_meld_kinds(browser, api_url):
    match = created(api_url, "gem", target=300)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    play_over_the_api(api_url, match, [ann, bob],
                      lambda: bool(ann.page.query_selector(".showdown-panel")))
    panel = ".showdown-panel .showdown"
    ann.page.wait_for_selector(f"{panel} .card")
    cards = ann.page.locator(f"{panel} .card").count()
    with_gems = ann.page.locator(f"{panel} .card .gems").count()
    assert cards and with_gems == cards, (cards, with_gems)
    kinds = ann.page.locator(f"{panel} .meld-kind").all_inner_texts()
    melds = ann.page.locator(f"{panel} .shown-meld").count()
    assert len(kinds) == melds and all(kinds), kinds
    for player in (ann, bob):
        player.close_clean()


def test_the_gem_discard_fan_leaves_room_for_each_cards_gems(browser, api_url):
    match = created(api_url, "gem", target=300)
    ann, bob = seated(browser, api_url, match, 0), seated(browser, api_url, match, 1)
    rooms: list[dict[str, float]] = []

    def fanned() -> bool:
        """Measured as the fan is drawn: a move still on its way may end the hand and
        deal again, leaving a single card to measure afterwards."""
        rooms.append(ann.page.evaluate(ROOM))
        return rooms[-1]["pairs"] >= 3

    play_over_the_api(api_url, match, [ann, bob], fanned)
    room = rooms[-1]
    assert room["narrowest"] >= room["two_gems"], room
    for player in (ann, bob):
        player.close_clean()
