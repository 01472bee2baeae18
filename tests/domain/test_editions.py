"""Rules editions (docs/rules.md "Editions"): a match is refereed, replayed and verified
under the edition it was created with.

tests/fixtures/edition1 holds logs played over HTTP before edition 2 (3-4-player gin hands
whose top score is shared, docs/rules.md 1.8 and 1.10): they must fold to the state they had
and verify, although today's rules would score the same hands differently.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.audit import parse_ndjson, verify
from domain.events import MATCH_CREATED, RULES_EDITION, Event
from domain.evolving import replay
from domain.gin import GIN
from domain.upcasting import upcast
from domain.variants import VARIANTS

EDITION_1 = Path(__file__).parent.parent / "fixtures" / "edition1"


def replayed(name: str):
    records = parse_ndjson((EDITION_1 / name).read_text().splitlines())
    return records, replay(GIN, [upcast(Event(r["type"], r["data"], r["schema"]))
                                for r in records])


def test_a_match_created_today_records_the_current_edition():
    assert MATCH_CREATED.schema == 2 and RULES_EDITION == 2


def test_a_schema_1_creation_was_played_under_edition_1():
    created = Event("MatchCreated", {"variant": "gin", "players": ["A", "B"]}, 1)
    assert upcast(created).data["rules_edition"] == 1 and upcast(created).schema == 2


@pytest.mark.parametrize("name", sorted(p.name for p in EDITION_1.glob("*.ndjson")))
def test_an_edition_1_log_verifies(name):
    records = parse_ndjson((EDITION_1 / name).read_text().splitlines())
    report = verify(records, VARIANTS).to_dict()
    assert report["ok"], report
    assert {c["name"]: c["checked"] for c in report["checks"]}["scores"] >= 1


def test_three_players_tied_at_the_top_keep_their_edition_1_scores():
    records, state = replayed("gin-3p-shared-top-rules1.ndjson")
    assert state.rules_edition == 1 and state.phase == "complete"
    assert state.results[0]["winner"] is None and state.results[0]["next_dealer"] == 0
    # edition 1 paid both leaders the shutout bonus
    assert list(state.completion["final_scores"]) == [250, 0, 250]
    assert state.completion["winner"] is None


def test_four_players_sharing_the_top_keep_their_edition_1_dealer():
    _, state = replayed("gin-4p-shared-top-rules1.ndjson")
    assert state.scores == (0, 25, 25, 0) and state.hands_won == (0, 2, 1, 0)
    assert state.hand_number == 2 and state.dealer == 0 and state.phase == "upcard"


def test_a_log_claiming_an_unknown_edition_fails_verification():
    records = parse_ndjson((EDITION_1 / "gin-3p-shared-top-rules1.ndjson").read_text()
                           .splitlines())
    records[0] = {**records[0], "schema": 2,
                  "data": {**records[0]["data"], "rules_edition": RULES_EDITION + 1}}
    report = verify(records, VARIANTS).to_dict()
    failed = {c["name"]: c["first_failure"] for c in report["checks"] if not c["ok"]}
    assert failed["rules"]["version"] == 1 and "edition" in failed["rules"]["reason"]
