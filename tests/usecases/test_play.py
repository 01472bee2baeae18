"""A seat's action is decided first on the match as this process holds it, with no read;
whatever another process appended since, the answer is the one the newest version gives."""

from __future__ import annotations

import fakeredis
import pytest

from domain.errors import RuleError
from tests.usecases.conftest import new_match, token, wired


@pytest.fixture
def two_processes(clock):
    """Two API processes' wirings over one Redis."""
    server = fakeredis.FakeServer()
    here, there = wired(clock, False, server), wired(clock, False, server)
    yield here, there
    here.close()
    there.close()


def test_an_action_the_held_version_refuses_is_decided_again_on_the_newest(two_processes):
    here, there = two_processes
    match = new_match(here)
    assert here.repository.get(match["id"]).version == 3  # seat 1 to take or pass
    there.play.act(match["id"], token(match, 1), {"type": "pass"})  # now seat 0's turn
    answer = here.play.act(match["id"], token(match, 0), {"type": "pass"})
    assert answer["version"] == 5 and answer["turn"] == 1


def test_an_action_the_held_version_allows_is_refused_when_the_newest_does(two_processes):
    """The append finds the log moved on, and the newest version refuses it: nothing is
    appended."""
    here, there = two_processes
    match = new_match(here)
    assert here.repository.get(match["id"]).version == 3
    there.play.act(match["id"], token(match, 1), {"type": "pass"})
    with pytest.raises(RuleError) as refused:
        here.play.act(match["id"], token(match, 1), {"type": "pass"})
    assert refused.value.code == "not_your_turn"
    assert here.repository.get(match["id"]).version == 4
