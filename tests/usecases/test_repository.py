"""The repository: one cached fold per match, fast-forwarded with newer events only."""

from __future__ import annotations

import fakeredis
import pytest

from service.usecases.errors import NotFound
from tests.usecases.conftest import ADMIN, new_match, token, wired


def test_the_runner_caches_what_it_saved_so_the_next_load_reads_no_event(queued):
    match = new_match(queued)
    repository = queued.repository
    queued.play.act(match["id"], token(match, 1), {"type": "pass"})
    before = repository.stats.events
    loaded = repository.get(match["id"])
    assert loaded.version == 4 and repository.stats.events == before


def test_a_match_another_process_moved_is_fast_forwarded_with_the_new_events_only(clock):
    server = fakeredis.FakeServer()
    here, there = wired(clock, False, server), wired(clock, False, server)
    try:
        match = new_match(here)
        assert here.repository.get(match["id"]).version == 3
        for seat, action in [(1, {"type": "pass"}), (0, {"type": "pass"})]:
            there.play.act(match["id"], token(match, seat), action)
        events, evolves = here.repository.stats.events, here.repository.stats.evolves
        loaded = here.repository.get(match["id"])
        assert loaded.version == 5 and loaded.state.phase == "draw"
        assert here.repository.stats.events - events == 2  # versions 4 and 5, not 1-5
        assert here.repository.stats.evolves - evolves == 2
    finally:
        here.close()
        there.close()


def test_a_cached_match_is_fast_forwarded_with_what_reads_its_events_along(clock):
    """A view reads a cached match's newer events and its presence in one round trip: the
    repository folds what the reading brought and hands back the rest; a match it has not
    loaded is for ``get``."""
    server = fakeredis.FakeServer()
    here, there = wired(clock, False, server), wired(clock, False, server)
    try:
        match = new_match(here)
        assert here.repository.get_along("not-loaded-here", lambda after: ([], "x")) is None
        here.repository.get(match["id"])
        there.play.act(match["id"], token(match, 1), {"type": "pass"})
        asked = []

        def reading(after: int) -> tuple[list, str]:
            asked.append(after)
            return here.store.read(match["id"], after), "beside"

        loaded, beside = here.repository.get_along(match["id"], reading)
        assert asked == [3] and beside == "beside"
        assert loaded.version == 4 and here.repository.get(match["id"]) == loaded
    finally:
        here.close()
        there.close()


def test_a_match_embedded_retention_deleted_is_not_found(clock):
    wiring = wired(clock, True, keep_finished=1)
    try:
        first, second = new_match(wiring), new_match(wiring)
        wiring.repository.get(first["id"])  # cached
        for match in (first, second):
            clock.now += 1  # the first finishes first
            wiring.play.abort(match["id"], ADMIN, {"reason": "closing"})
        with pytest.raises(NotFound):
            wiring.repository.get(first["id"])  # the older finished one is gone for good
        assert wiring.repository.get(second["id"]).is_over
    finally:
        wiring.close()


def test_a_batch_is_loaded_in_one_read_as_each_alone_would_be(clock, monkeypatch):
    """A worker loads the matches it claimed at once: the cached fast-forwarded, the
    others folded from their first event, an unknown one not found; no log is read
    alone."""
    server = fakeredis.FakeServer()
    here, there = wired(clock, False, server), wired(clock, False, server)
    try:
        cached, fresh = new_match(here), new_match(there)
        here.repository.get(cached["id"])
        there.play.act(cached["id"], token(cached, 1), {"type": "pass"})
        for alone in ("read", "meta"):
            monkeypatch.setattr(here.repository.store, alone, None)
        loaded = here.repository.get_many([cached["id"], fresh["id"], "no-such-match"])
        monkeypatch.undo()
        assert loaded[cached["id"]].version == 4 and loaded[fresh["id"]].version == 3
        assert isinstance(loaded["no-such-match"], NotFound)
        assert loaded[fresh["id"]] == there.repository.get(fresh["id"])
    finally:
        here.close()
        there.close()
