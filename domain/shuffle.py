"""Deterministic, uniform shuffles from a secret seed (docs/rules.md section 0, *Randomness*).

The server draws a random seed per match; every random thing is derived from it with a
label, so anyone holding the seed can recompute every deck order:

    stream(seed, label)  = HMAC-SHA256(key=seed, msg=label || ":" || counter) for counter 0, 1, ...
                           (counter as decimal ASCII), concatenated, read as 8-byte big-endian words
    uniform(n)           = rejection sampling on those words (no modulo bias)
    shuffle(deck, ...)   = Fisher-Yates: for i from len-1 down to 1, swap i with uniform(i + 1)
"""

from __future__ import annotations

import hmac
import struct
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
_WORD = 8
_SPACE = 1 << (8 * _WORD)
_BLOCK_WORDS = struct.Struct(">4Q")
"""One HMAC-SHA256 block (32 bytes) read as its four 8-byte big-endian words."""


def _words(seed: bytes, label: str) -> Iterator[int]:
    """The (seed, label) stream's words. ``hmac.digest`` and one ``struct`` unpack a block
    give the same words as building an HMAC object and slicing: a shuffle draws dozens of
    them, and a worker deals every hand it scores."""
    counter = 0
    while True:
        yield from _BLOCK_WORDS.unpack(hmac.digest(seed, f"{label}:{counter}".encode(), "sha256"))
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
