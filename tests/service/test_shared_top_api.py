"""3-4-player gin over HTTP when the top score of a hand is shared (docs/rules.md 1.3, 1.8,
1.10): the hand is won, the deal moves on as the policy says, one player takes the game
bonus, and the server's own verifier and `rummy verify` agree with the log."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from domain.audit import parse_ndjson, verify
from domain.variants import VARIANTS
from service.cli import main as rummy
from tests.builders import prepared_deck
from tests.domain.gin.test_scoring import PAYS_AND_TIES, TIES_AT_5
from tests.domain.test_audit import rehash_from
from tests.service.conftest import ADMIN_AUTH, bearer, create
from tests.service.test_audit_api import verification


def knock_to_a_shared_top(client, hands, **options):
    """Seat 1 passes, seat 0 passes, seat 1 draws KD and knocks it; the jobs score it."""
    match = create(client, prepared_deck(hands, upcard="2C", stock="KD"),
                   players=len(hands), **options)
    for seat, action in [(1, {"type": "pass"}), (0, {"type": "pass"}),
                         (1, {"type": "draw", "source": "stock"}),
                         (1, {"type": "knock", "discard": "KD"})]:
        response = client.post(f"/v1/matches/{match['id']}/actions", json=action,
                               headers=bearer(match["seats"][seat]["token"]))
        assert response.status_code == 200, response.json
    return match, client.get(f"/v1/matches/{match['id']}", headers=ADMIN_AUTH).json


@pytest.mark.parametrize("hands, policy, winner, dealer", [
    (TIES_AT_5, "alternate", 2, 1), (TIES_AT_5, "winner", 2, 2), (TIES_AT_5, "loser", 2, 1),
    (PAYS_AND_TIES, "alternate", 1, 1), (PAYS_AND_TIES, "winner", 1, 1),
    (PAYS_AND_TIES, "loser", 1, 3),
], ids=["3p-alternate", "3p-winner", "3p-loser", "4p-alternate", "4p-winner", "4p-loser"])
def test_a_shared_top_is_a_won_hand_and_the_deal_moves_on(client, hands, policy, winner,
                                                          dealer):
    match, view = knock_to_a_shared_top(client, hands, next_dealer=policy)
    scored = view["hands"][0]
    assert scored["winner"] == winner and scored["next_dealer"] == dealer
    assert view["hand_number"] == 2 and view["dealer"] == dealer
    assert verification(client, match["id"])["ok"]


def test_two_players_at_the_target_one_takes_the_bonus_and_the_log_verifies(client,
                                                                            tmp_path):
    match, view = knock_to_a_shared_top(client, TIES_AT_5, target=25)
    assert view["phase"] == "complete"
    events = client.get(f"/v1/matches/{match['id']}/events").json["events"]
    completed = next(e for e in events if e["type"] == "MatchCompleted")["data"]
    assert [b["game"] for b in completed["bonuses"]] == [0, 0, 100]
    assert not any(b["shutout"] for b in completed["bonuses"])
    assert completed["final_scores"] == [50, 0, 150] and completed["winner"] == 2
    created = next(e for e in events if e["type"] == "MatchCreated")
    assert created["schema"] == 2 and created["data"]["rules_edition"] == 2
    assert verification(client, match["id"])["ok"]
    path = tmp_path / "match.ndjson"
    path.write_text(client.get(f"/v1/matches/{match['id']}/export").get_data(as_text=True))
    assert CliRunner().invoke(rummy, ["verify", str(path)]).exit_code == 0


def test_a_log_rewritten_to_an_older_edition_fails_at_the_first_score(client):
    """The edition is part of the log: claiming edition 1 for an edition 2 match (and
    re-chaining every hash) makes its shared-top score one the rules would not make."""
    match, _ = knock_to_a_shared_top(client, TIES_AT_5, next_dealer="alternate")
    export = client.get(f"/v1/matches/{match['id']}/export", headers=ADMIN_AUTH)
    records = parse_ndjson(export.get_data(as_text=True).splitlines())
    records[0]["data"]["rules_edition"] = 1
    rehash_from(records, 1)
    report = verify(records, VARIANTS).to_dict()
    scored = next(r["version"] for r in records if r["type"] == "HandScored")
    assert [c["name"] for c in report["checks"] if not c["ok"]] == ["scores"]
    assert report["first_failing_version"] == scored
