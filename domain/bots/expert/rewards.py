"""What a hand's outcome is worth to the search: a reward in [0, 1] from a points margin.

A search that maximised the points margin alone would play for big hands and lose many
small ones; one that counted only wins would ignore the size of a loss. The reward mixes
the two: ``win_weight`` of it is the win (1, a tie 0.5), the rest the margin over
``scale`` points mapped onto [0, 1] (clipped). It is symmetric: what one seat of two gets,
the other gets 1 less.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reward:
    """A points margin's reward (see the module's docstring)."""

    scale: float
    win_weight: float

    def __call__(self, margin: float) -> float:
        won = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
        share = min(1.0, max(-1.0, margin / self.scale))
        return self.win_weight * won + (1 - self.win_weight) * (0.5 + share / 2)
