"""What dumping a match view costs: the schemas' own dump against marshmallow's, in turn.

    python bench/view_dump.py [--rounds 30]

Plays a gin match in process (fakeredis, the Flask test client) with random legal moves,
keeping every view it answered (public, the seat on turn, the seat after its action);
then times ``MatchViewSchema().dump`` (as built) and marshmallow's ``Schema.dump`` of the
same schema over all of them, alternated ``--rounds`` times so that load on the machine
falls on both alike. Prints JSON: µs per view, median and minimum, each way.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import fakeredis
from marshmallow import Schema

from service.api.app import create_app
from service.api.schemas import MatchViewSchema
from service.config import Settings


def played_views(moves: int = 150) -> list[dict[str, Any]]:
    app = create_app(Settings(redis_url="redis://unused"), client=fakeredis.FakeRedis(),
                     jobs_inline=True)
    logging.disable(logging.CRITICAL)
    client, rng = app.test_client(), random.Random(2)
    match = client.post("/v1/matches", json={
        "variant": "gin", "players": [{"name": "Ann"}, {"name": "Bob"}]}).get_json()
    tokens = [seat["token"] for seat in match["seats"]]
    queries, views = app.extensions["rummy"].queries, []
    for _ in range(moves):
        public = queries.view(match["id"], None)
        views.append(public)
        if public["phase"] == "complete" or public["turn"] is None:
            break
        token = tokens[public["turn"]]
        seat = queries.view(match["id"], token)
        views.append(seat)
        client.post(f"/v1/matches/{match['id']}/actions",
                    json=rng.choice(seat["legal_actions"]),
                    headers={"Authorization": f"Bearer {token}"})
        views.append(queries.view(match["id"], token))
    return views


def per_view_us(dump: Callable[[Any], Any], views: list[dict[str, Any]]) -> float:
    start = time.process_time()
    for view in views:
        dump(view)
    return (time.process_time() - start) / len(views) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args().rounds
    views, schema = played_views(), MatchViewSchema()
    marshmallow, as_built = [], []
    for _ in range(rounds):
        marshmallow.append(per_view_us(lambda view: Schema.dump(schema, view), views))
        as_built.append(per_view_us(schema.dump, views))
    print(json.dumps({"views": len(views), "rounds": rounds, **{
        name: {"median_us": round(statistics.median(times), 1), "min_us": round(min(times), 1)}
        for name, times in (("marshmallow_dump", marshmallow), ("as_built", as_built))}},
        indent=2))


if __name__ == "__main__":
    main()
