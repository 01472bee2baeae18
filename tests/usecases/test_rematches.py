"""A rematch through the use cases: the answers logged after the end, the new match
created once under the id its start decided (however the acceptances are retried, and
after a process died between the two), each player's new token for them alone, and logs
that verify."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from domain.audit import verify
from domain.match import BotTurn
from domain.rematch import ACCEPT, Answer
from domain.variants import VARIANTS
from service.bootstrap import Wiring
from service.usecases.commands import AnswerRematch
from service.usecases.errors import (
    AppError,
    Conflict,
    Forbidden,
    NotFound,
    Rejected,
    Unauthenticated,
)
from service.usecases.rematches import rematch_token
from tests.domain.test_audit import rehash_from
from tests.usecases.conftest import ADMIN, new_match, token


def ended(wiring: Wiring, **body: Any) -> dict[str, Any]:
    """A match that Ann (seat 0) resigned: ended, with a result."""
    match = new_match(wiring, **body)
    wiring.play.resign(match["id"], token(match, 0), "tired")
    return match


def refusal(call: Any, *args: Any) -> tuple[type, str]:
    """The kind of refusal (its HTTP status, ``service.api.errors``) and its code."""
    with pytest.raises(AppError) as refused:
        call(*args)
    kind = next(kind for kind in (Conflict, Rejected, Forbidden, NotFound, Unauthenticated)
                if isinstance(refused.value, kind))
    return kind, refused.value.code


def records(wiring: Wiring, match_id: str) -> list[dict[str, Any]]:
    return [event.to_dict() for event in wiring.repository.stored(match_id)]


def test_two_people_rematch_swapping_seats_each_with_a_token_of_their_own(queued):
    match = ended(queued)
    offered = queued.rematches.accept(match["id"], token(match, 0))
    assert (offered["status"], offered["offered_by"], offered["awaited"]) == ("offered", 0, [1])
    assert offered["token"] is None and offered["new_match_id"] is None
    started = queued.rematches.accept(match["id"], token(match, 1))
    assert started["status"] == "started" and (started["seat"], started["new_seat"]) == (1, 0)
    new_id = started["new_match_id"]
    bob = started["token"]
    ann = queued.rematches.state(match["id"], token(match, 0))["token"]
    assert queued.access.acting_seat(new_id, bob) == 0
    assert queued.access.acting_seat(new_id, ann) == 1
    assert bob == rematch_token(token(match, 1), match["id"], 1) != ann
    assert queued.repository.get(new_id).state.players == ("Bob", "Ann")


def test_the_old_tokens_cannot_act_in_the_rematch(queued):
    match = ended(queued)
    for seat in (0, 1):
        queued.rematches.accept(match["id"], token(match, seat))
    new_id = queued.rematches.state(match["id"], None)["new_match_id"]
    for seat in (0, 1):
        assert refusal(queued.access.acting_seat, new_id, token(match, seat)) == (
            Forbidden, "forbidden")


def test_nobody_but_a_seats_holder_is_shown_a_token(queued):
    match = ended(queued)
    for seat in (0, 1):
        queued.rematches.accept(match["id"], token(match, seat))
    for caller in (None, ADMIN, match["creator_token"]):
        answer = queued.rematches.state(match["id"], caller)
        assert (answer["seat"], answer["new_seat"], answer["token"]) == (None, None, None)
        assert answer["status"] == "started"
    other = new_match(queued)
    assert refusal(queued.rematches.state, match["id"], token(other, 0)) == (
        Forbidden, "forbidden")


def test_a_bot_accepts_with_the_offer_and_moves_first_in_the_rematch_as_owed(queued):
    """Ann dealt hand 1 of the ended match (``first_dealer`` 1), the bot deals none: in
    the rematch the bot sits at seat 0 and Ann at seat 1, who deals, so the bot moves
    first, as owed work like any bot's move."""
    match = ended(queued, players=[{"name": "Ann"}, {"bot": "basic", "think_ms": 250}],
                  options={"first_dealer": 1})
    answer = queued.rematches.accept(match["id"], token(match, 0))
    assert answer["status"] == "started" and answer["accepted"] == [0, 1]
    new_id = answer["new_match_id"]
    new = queued.repository.get(new_id)
    assert new.state.players == ("Basic bot", "Ann")
    assert dict(new.bots) == {0: queued.repository.get(match["id"]).bots[1]}
    assert queued.access.seat_hashes(new_id)[0] == ""
    assert [type(owed) for owed in new.owed()] == [BotTurn]
    assert queued.index.pending("bots") == 1
    assert queued.obligations.pay(new_id, "bots", new.at + 1).appended[0].command["bot"] == (
        "basic")


def test_three_players_move_on_one_seat_and_the_deal_passes_on(queued):
    match = queued.creation.create({"variant": "rummy", "options": {"first_dealer": 0},
                                    "players": [{"name": n} for n in ("Ann", "Bob", "Cy")]},
                                   None)
    queued.play.resign(match["id"], token(match, 2), "gone")
    answers = [queued.rematches.accept(match["id"], token(match, seat)) for seat in (2, 0, 1)]
    assert [a["new_seat"] for a in answers] == [1, 2, 0]
    new = queued.repository.get(answers[-1]["new_match_id"])
    assert new.state.players == ("Bob", "Cy", "Ann")
    assert new.state.dealer == 0  # the first dealer is still seat 0: Bob, after Ann
    first = queued.repository.stored(answers[-1]["new_match_id"])
    created = next(e for e in first if e.type == "RematchCreated")
    assert created.data == {"rematch_of": match["id"], "previous_seats": [1, 2, 0]}


def test_the_same_options_clock_and_tags_carry_over(queued):
    match = ended(queued, clock={"turn_seconds": 60, "on_timeout": "auto_play"},
                  tags=["league"], options={"first_dealer": 0, "target": 50})
    for seat in (0, 1):
        answer = queued.rematches.accept(match["id"], token(match, seat))
    first = {e.type: e.data for e in queued.repository.stored(answer["new_match_id"])}
    assert first["MatchCreated"]["options"]["target"] == 50
    assert first["ClockSet"] == {"turn_seconds": 60, "bank_seconds": None,
                                 "on_timeout": "auto_play"}
    info = queued.queries.info(answer["new_match_id"])
    assert info is not None and info.tags == ("league",) and info.owner == "admin"


def test_a_decline_is_final_and_a_rematch_that_started_cannot_be_declined(queued):
    match = ended(queued)
    queued.rematches.accept(match["id"], token(match, 0))
    declined = queued.rematches.decline(match["id"], token(match, 1))
    assert (declined["status"], declined["declined_by"], declined["awaited"]) == (
        "declined", 1, [])
    assert queued.rematches.decline(match["id"], token(match, 1))["status"] == "declined"
    assert refusal(queued.rematches.accept, match["id"], token(match, 0)) == (
        Conflict, "rematch_declined")
    started = ended(queued)
    for seat in (0, 1):
        queued.rematches.accept(started["id"], token(started, seat))
    assert refusal(queued.rematches.decline, started["id"], token(started, 0)) == (
        Conflict, "rematch_started")


def test_a_match_still_played_aborted_or_unknown_has_no_rematch(queued):
    live = new_match(queued)
    assert refusal(queued.rematches.accept, live["id"], token(live, 0)) == (
        Conflict, "match_not_finished")
    assert refusal(queued.rematches.state, live["id"], None) == (
        Conflict, "match_not_finished")
    aborted = new_match(queued)
    queued.play.abort(aborted["id"], ADMIN, {"reason": "void"})
    assert refusal(queued.rematches.accept, aborted["id"], token(aborted, 0)) == (
        Rejected, "no_rematch")
    assert refusal(queued.rematches.state, "nope", None) == (NotFound, "match_not_found")


def test_a_match_called_off_before_it_started_has_none(queued):
    waiting = queued.creation.create({"variant": "gin", "players": [{"name": "Ann"},
                                                                     {"open": True}]}, None)
    ann = token(waiting, 0)
    assert refusal(queued.rematches.accept, waiting["id"], ann) == (
        Conflict, "match_not_started")
    queued.play.abort(waiting["id"], waiting["creator_token"], {"reason": "nobody came"})
    assert refusal(queued.rematches.state, waiting["id"], None) == (Rejected, "no_rematch")


def test_retried_and_repeated_acceptances_create_one_match(queued):
    match = ended(queued)
    for _ in range(3):
        queued.rematches.accept(match["id"], token(match, 0))
    answers = [queued.rematches.accept(match["id"], token(match, 1)) for _ in range(3)]
    assert len({a["new_match_id"] for a in answers}) == 1
    assert len({a["token"] for a in answers}) == 1
    types = [e.type for e in queued.repository.stored(match["id"])]
    assert types.count("RematchStarted") == 1 and types.count("RematchOffered") == 1
    before = len(queued.store.match_ids(limit=100))
    queued.rematches.state(match["id"], token(match, 0))
    assert len(queued.store.match_ids(limit=100)) == before


def test_a_rematch_started_but_never_created_is_created_by_the_next_read(queued):
    """As when the process died between the append of RematchStarted and the creation."""
    match = ended(queued)
    queued.rematches.accept(match["id"], token(match, 0))
    queued.rematches.hashes.keep(match["id"], 0, queued.rematches.hashes.of(match["id"])[1])
    queued.runner.run(match["id"], AnswerRematch(Answer(1, ACCEPT), "decided-before"))
    assert queued.store.meta("decided-before") is None
    public = queued.rematches.state(match["id"], None)
    assert public["new_match_id"] == "decided-before"
    assert queued.repository.get("decided-before").state.players == ("Bob", "Ann")
    again = queued.rematches.state(match["id"], None)
    assert again["new_match_id"] == "decided-before"


def test_a_rematch_stored_but_left_half_made_is_finished_by_the_next_read(queued, monkeypatch):
    """As when the process died after the rematch's match was stored, before it was listed
    and its first turn noted as owed: the next read of the rematch finishes its creation,
    once."""
    match = ended(queued, players=[{"name": "Ann"}, {"bot": "basic", "think_ms": 250}],
                  options={"first_dealer": 1})
    runner = queued.rematches.creation.runner
    finished: list[str] = []

    def killed(*args: Any) -> None:
        raise SystemExit("killed")

    with monkeypatch.context() as patched:
        patched.setattr(runner, "created", killed)
        with pytest.raises(SystemExit):
            queued.rematches.accept(match["id"], token(match, 0))
    new_id = queued.repository.get(match["id"]).rematch.match_id
    assert new_id is not None and queued.store.meta(new_id) is not None
    assert queued.index.pending("bots") == 0  # the bot's first move not owed

    def counted(match_id: str, events: Any, real: Any = runner.created) -> None:
        finished.append(match_id)
        real(match_id, events)

    monkeypatch.setattr(runner, "created", counted)
    assert queued.rematches.state(match["id"], None)["new_match_id"] == new_id
    assert queued.index.pending("bots") == 1 and finished == [new_id]
    queued.rematches.state(match["id"], token(match, 0))
    assert finished == [new_id]  # its meta says it was opened: not done again
    assert queued.obligations.pay(new_id, "bots", queued.repository.get(new_id).at + 1).appended


def test_the_stream_of_an_ended_match_ends_at_its_last_event_of_play(queued):
    match = ended(queued)
    end = queued.repository.get(match["id"]).version
    queued.rematches.accept(match["id"], token(match, 0))
    loaded = queued.repository.get(match["id"])
    assert loaded.version == end + 1 and loaded.played_version == end
    assert queued.queries.is_over_for(match["id"], end)
    assert not queued.queries.is_over_for(match["id"], end - 1)


def test_both_logs_verify_and_a_forged_answer_does_not(queued):
    match = ended(queued, players=[{"name": "Ann"}, {"name": "Bob"}, {"bot": "random"}])
    for seat in (1, 0):
        answer = queued.rematches.accept(match["id"], token(match, seat))
    for match_id in (match["id"], answer["new_match_id"]):
        assert verify(records(queued, match_id), VARIANTS).ok
    log = records(queued, match["id"])
    forged = copy.deepcopy(log)
    forged[-2]["data"]["seat"] = 1  # Ann's acceptance told as Bob's
    rehash_from(forged, forged[-2]["version"])
    assert not verify(forged, VARIANTS).checks["rules"].to_dict()["ok"]
    live = records(queued, new_match(queued)["id"])
    version = len(live) + 1
    live.append({**log[-3], "version": version, "data": {"seat": 0},
                 "command_id": f"rematch:0:accept:{version - 1}",
                 "command": {"rematch": "accept", "seat": 0}})
    rehash_from(live, version)
    report = verify(live, VARIANTS)
    assert report.first_failing_version == version
    assert "still being played" in report.checks["rules"].failure["reason"]
