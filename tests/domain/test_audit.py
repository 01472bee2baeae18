"""The offline verifier (``domain.audit``) and upcasting, on logs kept from older releases.

The golden logs in tests/fixtures/golden were written before deals carried commitments
and before commands were stored; they must keep replaying and verifying forever.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from domain.audit import parse_ndjson, verify
from domain.bot_seats import bots_of
from domain.bots.expert.budget import DEFAULT_MS
from domain.chain import event_hash
from domain.events import Event
from domain.evolving import replay
from domain.upcasting import upcast
from domain.variants import VARIANTS
from service.cli import main as rummy

GOLDEN = sorted((Path(__file__).parent.parent / "fixtures" / "golden").glob("*.ndjson"))


def load(path: Path) -> list[dict]:
    return parse_ndjson(path.read_text().splitlines())


def rehash_from(records: list[dict], version: int) -> None:
    """Re-chain the hashes from ``version`` on, as a forger covering their tracks would."""
    for index in range(version - 1, len(records)):
        record = records[index]
        record["prev_hash"] = records[index - 1]["hash"] if index else "0" * 64
        record["hash"] = event_hash(record["version"], record["type"], record["schema"],
                                    record["data"], record["command_id"], record["ts"],
                                    record["prev_hash"], record.get("command"))


def test_there_are_golden_logs():
    assert len(GOLDEN) >= 2


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
class TestGoldenLogs:
    def test_an_old_format_log_replays_to_its_recorded_end(self, path):
        records = load(path)
        variant = VARIANTS[records[0]["data"]["variant"]]
        state = replay(variant, [upcast(Event(r["type"], r["data"], r["schema"]))
                               for r in records])
        completed = records[-1]["data"]
        assert state.phase == "complete" and list(state.completion["final_scores"]) == \
            completed["final_scores"]

    def test_an_old_format_log_verifies_with_its_limits_stated(self, path):
        report = verify(load(path), VARIANTS).to_dict()
        assert report["ok"] and report["final_phase"] == "complete"
        notes = " ".join(n for c in report["checks"] for n in c["notes"])
        assert "no commitment (schema 1 deal)" in notes and "older format" in notes

    def test_a_forged_score_fails_even_when_the_chain_is_rehashed(self, path):
        records = copy.deepcopy(load(path))
        scored = next(r for r in records if r["type"] == "HandScored")
        scored["data"]["points"] = [p + 1 for p in scored["data"]["points"]]
        rehash_from(records, scored["version"])
        report = verify(records, VARIANTS).to_dict()
        assert report["first_failing_version"] == scored["version"]
        assert [c["name"] for c in report["checks"] if not c["ok"]] == ["scores"]

    def test_a_forged_move_fails_even_when_the_chain_is_rehashed(self, path):
        records = copy.deepcopy(load(path))
        drawn = next(r for r in records if r["type"] == "CardDrawn"
                     and r["data"]["source"] == "stock")
        drawn["data"]["card"] = "JK"
        rehash_from(records, drawn["version"])
        report = verify(records, VARIANTS).to_dict()
        assert report["first_failing_version"] == drawn["version"]

    def test_reordered_events_fail_at_the_first_moved_one(self, path):
        records = copy.deepcopy(load(path))
        records[4], records[5] = records[5], records[4]
        report = verify(records, VARIANTS).to_dict()
        assert report["checks"][0]["first_failure"]["version"] == 5


def test_upcasting_fills_the_commitment_fields_of_a_schema_1_deal():
    old = Event("HandDealt", {"hand_number": 1, "dealer": 0, "deck": ["AC"]}, 1)
    new = upcast(old)
    assert new.schema == 2 and new.data["commitment"] is None and new.data["deck"] == ["AC"]
    assert upcast(new) is new


def test_upcasting_gives_a_schema_1_expert_the_default_budget_it_searched_within():
    old = Event("BotsSeated", {"seats": [{"seat": 0, "level": "expert", "think_ms": 0},
                                         {"seat": 1, "level": "basic", "think_ms": 250}]}, 1)
    new = upcast(old)
    assert new.schema == 2 and new.data["seats"] == [
        {"seat": 0, "level": "expert", "think_ms": 0, "budget_ms": DEFAULT_MS},
        {"seat": 1, "level": "basic", "think_ms": 250}]
    assert {seat: bot.budget for seat, bot in bots_of(new).items()} == {0: DEFAULT_MS, 1: None}
    assert upcast(new) is new


class TestCommandLine:
    def test_rummy_verify_passes_a_good_log(self):
        result = CliRunner().invoke(rummy, ["verify", str(GOLDEN[0])])
        assert result.exit_code == 0 and "VERIFIED" in result.output

    def test_rummy_verify_fails_a_tampered_log_and_says_where(self, tmp_path):
        records = load(GOLDEN[0])
        records[9]["data"]["forged"] = True
        path = tmp_path / "bad.ndjson"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        result = CliRunner().invoke(rummy, ["verify", "--json", str(path)])
        assert result.exit_code == 1
        assert json.loads(result.output)["first_failing_version"] == 10

    def test_rummy_verify_refuses_what_is_not_a_log(self, tmp_path):
        path = tmp_path / "junk.ndjson"
        path.write_text("not json\n")
        assert CliRunner().invoke(rummy, ["verify", str(path)]).exit_code == 2
        path.write_text("[1, 2]\n")
        assert CliRunner().invoke(rummy, ["verify", str(path)]).exit_code == 2


def test_duplicate_tables_are_compared_hand_by_hand():
    from domain.audit import duplicate_deals

    records = load(GOLDEN[0])
    same = duplicate_deals(records, copy.deepcopy(records), "partner")
    assert same.failure is None and same.checked == sum(r["type"] == "HandDealt"
                                                        for r in records)
    other = copy.deepcopy(records)
    second_deal = [r for r in other if r["type"] == "HandDealt"][1]
    second_deal["data"]["deck"] = list(reversed(second_deal["data"]["deck"]))
    differs = duplicate_deals(records, other, "partner")
    assert differs.failure is not None and "hand 2" in differs.failure["reason"]
