"""What one action and one hand end cost the application core: stream reads, events read
and ``evolve`` calls.

    python bench/core.py

Runs in-process on fakeredis (the counts do not depend on the Redis). A match is played
to the point where seat 1 can knock; then, on a warm repository (the match is cached, as
it is for a live match), it measures:

- the knock (a seat's action), queued mode: load, decide, append, follow-up;
- the hand end (the scoring step a worker runs): score, reveal, deal the next hand;
- the knock in embedded mode with its step in-process (paid inline here, as the tests
  do; the embedded server pays it on its timer thread right after the answer).

Prints JSON. ``evolve`` counts every call of the family's ``evolve`` anywhere (the
repository's fold, the step's own fold of its events, views).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import fakeredis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.gin import GIN  # noqa: E402
from service.bootstrap import bootstrap  # noqa: E402
from service.config import Settings  # noqa: E402
from service.usecases.commands import RunStep  # noqa: E402
from tests.service.test_matches_api import DECK  # noqa: E402

ADMIN = "bench-admin"
calls = {"evolve": 0}
_evolve = GIN.evolve


def counted_evolve(state: Any, event: Any) -> Any:
    calls["evolve"] += 1
    return _evolve(state, event)


object.__setattr__(GIN, "evolve", counted_evolve)


def ready_to_knock(in_process: bool) -> tuple[Any, str, str]:
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    wiring = bootstrap(Settings(redis_url="redis://bench", admin_token=ADMIN), client,
                       in_process=in_process, pay_inline=in_process)
    body = {"variant": "gin", "players": [{"name": "A"}, {"name": "B"}],
            "options": {"first_dealer": 0}, "deck": DECK}
    created = wiring.creation.create(body, ADMIN)
    match_id = created["id"]
    seat1 = created["seats"][1]["token"]
    seat0 = created["seats"][0]["token"]
    wiring.play.act(match_id, seat1, {"type": "pass"})
    wiring.play.act(match_id, seat0, {"type": "pass"})
    wiring.play.act(match_id, seat1, {"type": "draw", "source": "stock"})
    return wiring, match_id, seat1


def measured(wiring: Any, run: Any) -> dict[str, int]:
    stats = wiring.repository.stats
    before = (stats.reads, stats.events, calls["evolve"])
    run()
    return {"stream_reads": stats.reads - before[0], "events_read": stats.events - before[1],
            "evolve_calls": calls["evolve"] - before[2]}


def main() -> None:
    wiring, match_id, seat1 = ready_to_knock(in_process=False)
    knock = {"type": "knock", "discard": "5S"}
    action = measured(wiring, lambda: wiring.play.act(match_id, seat1, knock))
    hand_end = measured(wiring, lambda: wiring.runner.run(match_id, RunStep()))
    wiring, match_id, seat1 = ready_to_knock(in_process=True)
    embedded = measured(wiring, lambda: wiring.play.act(match_id, seat1, knock))
    print(json.dumps({"action": action,
                      "hand_end": hand_end, "knock_embedded_with_step": embedded}, indent=2))


if __name__ == "__main__":
    main()
