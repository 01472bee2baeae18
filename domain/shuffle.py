"""Deterministic, uniform shuffles from a secret seed (docs/rules.md section 0, *Randomness*).

The server draws a random seed per match; every random thing is derived from it with a
label, so anyone holding the seed can recompute every deck order:

    stream(seed, label)  = HMAC-SHA256(key=seed, msg=label || ":" || counter) for counter 0, 1, ...
                           (counter as decimal ASCII), concatenated, read as 8-byte big-endian words
    uniform(n)           = rejection sampling on those words (no modulo bias)
    shuffle(deck, ...)   = Fisher-Yates: for i from len-1 down to 1, swap i with uniform(i + 1)
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
_WORD = 8
_SPACE = 1 << (8 * _WORD)


def _words(seed: bytes, label: str) -> Iterator[int]:
    counter = 0
    while True:
        block = hmac.new(seed, f"{label}:{counter}".encode(), hashlib.sha256).digest()
        for start in range(0, len(block), _WORD):
            yield int.from_bytes(block[start : start + _WORD], "big")
        counter += 1


class SeededStream:
    """Uniform integers drawn from the HMAC counter stream of (seed, label)."""

    def __init__(self, seed: bytes, label: str) -> None:
        self._words = _words(seed, label)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        limit = _SPACE - _SPACE % n
        while True:
            word = next(self._words)
            if word < limit:
                return word % n


def shuffled(items: Sequence[T], seed: bytes, label: str) -> tuple[T, ...]:
    """Fisher-Yates shuffle of ``items`` driven by the (seed, label) stream."""
    out = list(items)
    stream = SeededStream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def choose(n: int, seed: bytes, label: str) -> int:
    """A uniform choice in [0, n), e.g. the first dealer."""
    return SeededStream(seed, label).below(n)
