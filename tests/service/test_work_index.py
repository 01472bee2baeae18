"""The work index: marks, leases and releases, on both Redis backends.

A reconciler claims what is due, and gives a match up only if nobody marked it again
meanwhile; two reconcilers never hold the same match at once.
"""

from __future__ import annotations

import fakeredis
import pytest

from domain.match import DeadlineDue, StepDue
from service.adapters.work import WorkIndex
from service.usecases.obligations import KINDS

STEPS, CLOCKS = StepDue.kind, DeadlineDue.kind


@pytest.fixture
def now():
    return [1000.0]


@pytest.fixture
def index(redis_client, key_prefix, now) -> WorkIndex:
    return WorkIndex(redis_client, key_prefix, KINDS, clock=lambda: now[0])


def test_only_due_matches_are_claimed(index, now):
    index.mark(STEPS, "a", 999.0)
    index.mark(STEPS, "b", 1001.0)
    lease, due = index.claim(STEPS, lease_s=2)
    assert due == ["a"] and lease == 1002.0
    now[0] = 1001.5
    assert index.claim(STEPS, lease_s=2)[1] == ["b"]  # a is leased until 1002


def test_a_claim_is_exclusive_until_its_lease_ends(index, now):
    index.mark(STEPS, "a", 999.0)
    first = index.claim(STEPS, lease_s=2)
    assert index.claim(STEPS, lease_s=2)[1] == []  # another reconciler finds nothing
    now[0] = first[0]
    assert index.claim(STEPS, lease_s=2)[1] == ["a"]  # the first one died: due again


def test_release_keeps_a_mark_made_after_the_claim(index):
    index.mark(STEPS, "a", 999.0)
    lease, _ = index.claim(STEPS, lease_s=2)
    index.mark(STEPS, "a", 1001.5)  # a runner marks it again for a new step
    assert not index.release(STEPS, "a", lease)
    assert index.pending(STEPS) == 1
    assert index.release(STEPS, "a", 1001.5)  # released at the score it now has
    assert index.pending(STEPS) == 0


def test_a_mark_never_postpones_a_due_match(index):
    index.mark(STEPS, "a", 999.0)
    index.mark(STEPS, "a", 2000.0)
    assert index.claim(STEPS, lease_s=2)[1] == ["a"]


def test_reschedule_sets_the_next_deadline(index, now):
    index.mark(CLOCKS, "a", 999.0)
    index.reschedule(CLOCKS, "a", 1030.0)
    assert index.claim(CLOCKS, lease_s=2)[1] == []
    assert index.due_in(CLOCKS) == 30.0
    now[0] = 1030.0
    assert index.claim(CLOCKS, lease_s=2)[1] == ["a"]


def test_the_kinds_are_separate_keys(index):
    index.mark(STEPS, "a", 999.0)
    assert index.claim(CLOCKS, lease_s=2)[1] == []
    with pytest.raises(ValueError):
        index.key("other")


def test_settling_a_batch_forgets_the_paid_unless_marked_again_and_times_the_rest(index):
    for match_id in ("paid", "marked again", "next turn"):
        index.mark(STEPS, match_id, 999.0)
    lease, due = index.claim(STEPS, lease_s=2)
    assert sorted(due) == ["marked again", "next turn", "paid"]
    index.mark(STEPS, "marked again", 1001.5)  # a new step made due meanwhile
    released = index.settle(STEPS, lease, ["paid", "marked again"], {"next turn": 1030.0})
    assert released == 1
    assert index.claim(STEPS, lease_s=2)[1] == []
    assert index.due_in(STEPS) == 1.5  # "marked again" stays; "next turn" comes at 1030
    assert index.pending(STEPS) == 2


def test_every_kind_is_claimed_at_once_each_under_its_own_limit(index):
    for match_id in ("a", "b", "c"):
        index.mark(STEPS, match_id, 999.0)
    index.mark(CLOCKS, "d", 999.0)
    index.mark(CLOCKS, "e", 1001.0)  # not yet due
    claimed = index.claim_each(lease_s=2, limit=2)
    assert list(claimed) == list(KINDS)
    assert claimed[STEPS] == (1002.0, ["a", "b"]) and claimed[CLOCKS] == (1002.0, ["d"])
    assert all(due == [] for kind, (_, due) in claimed.items() if kind not in (STEPS, CLOCKS))
    assert index.claim_each(lease_s=2, limit=2)[STEPS][1] == ["c"]  # a and b are leased


def test_claiming_at_once_survives_a_server_that_forgot_its_scripts(now):
    """On a Redis of its own: forgetting the scripts of a shared server would trouble the
    other tests that use it."""
    client = fakeredis.FakeRedis()
    index = WorkIndex(client, "forgetful", KINDS, clock=lambda: now[0])
    index.mark(STEPS, "a", 999.0)
    client.script_flush()  # a restarted Redis
    assert index.claim_each(lease_s=2)[STEPS][1] == ["a"]
    index.mark(STEPS, "b", 999.0)
    assert index.claim_each(lease_s=2)[STEPS][1] == ["b"]
