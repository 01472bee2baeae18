"""The expert's budget: a number of iterations, never a clock.

A move's search must be the same for the same information state and seed (the honesty
tests and the post-game analysis replay it), so the budget is counted in iterations (or
samples), calibrated per kind of search so that the default costs at most about
``DEFAULT_MS`` of CPU on the reference machine (bench/bot_moves.py, medians over whole
hands). ``budget_ms`` scales the count linearly from that calibration.
"""

from __future__ import annotations

DEFAULT_MS = 50
"""The default budget of a move, in milliseconds of CPU."""
MAX_MS = 2000
"""The largest budget a caller may ask for."""


def scaled(per_default: int, budget_ms: int | None) -> int:
    """The iterations for ``budget_ms`` (the default when None) of a search that runs
    ``per_default`` of them in ``DEFAULT_MS``; at least one."""
    ms = DEFAULT_MS if budget_ms is None else budget_ms
    if isinstance(ms, bool) or not isinstance(ms, int) or not 1 <= ms <= MAX_MS:
        raise ValueError(f"budget_ms is a whole number of milliseconds, 1 to {MAX_MS}")
    return max(1, per_default * ms // DEFAULT_MS)
