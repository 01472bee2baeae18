"""What a post-game analysis costs at the service's defaults: CPU time of
``domain.bots.analysis.analyse`` over one whole match per variant, in the pure domain.

    python bench/analyses.py [--seed 7] [--variants gin,gem,rummy,rami] [--samples N]

Each match is played out by ``basic`` bots from a fresh seed: gin and gem between two to
their default target, rummy and rami between four to their default end. The analysis
runs at the default budget with the variant's default samples
(``service.usecases.analyses.SAMPLES``) unless ``--samples`` says otherwise; its CPU time
(``time.process_time``, so a busy machine shows less) is printed as JSON with the match's
hands and decisions.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.bots.analysis import analyse  # noqa: E402
from domain.variants import VARIANTS  # noqa: E402
from service.usecases.analyses import SAMPLES  # noqa: E402
from tests.playouts import bots, new_match, steps  # noqa: E402

PLAYERS = {"gin": 2, "gem": 2, "rummy": 4, "rami": 4}


def measure(name: str, seed: int, samples: int | None) -> dict[str, object]:
    variant, players = VARIANTS[name], PLAYERS[name]
    rng = random.Random(seed)
    state, log, secrets = new_match(rng, players, variant)
    for state, events in steps(rng, state, secrets, variant,  # noqa: B007, B020
                               policy=bots(*["basic"] * players)):
        log.extend(events)
    count = samples or SAMPLES[name]
    started = time.process_time()
    decisions = analyse(variant, log, samples=count)
    cpu_s = time.process_time() - started
    return {"variant": name, "players": players, "hands": state.hand_number,
            "decisions": len(decisions), "samples": count, "cpu_s": round(cpu_s, 1),
            "ms_per_decision": round(1000 * cpu_s / max(1, len(decisions)))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--variants", default=",".join(PLAYERS))
    parser.add_argument("--samples", type=int, default=None)
    args = parser.parse_args()
    for name in args.variants.split(","):
        print(json.dumps(measure(name, args.seed, args.samples)), flush=True)


if __name__ == "__main__":
    main()
