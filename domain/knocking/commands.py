"""The seat commands of gin and gem, and how a seat's action object becomes one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.errors import RuleError


@dataclass(frozen=True)
class PassUpcard:
    seat: int


@dataclass(frozen=True)
class Draw:
    """Draw from the stock, or take the discard pile down to the ``depth``-th card from
    the top (1: the top card; deeper only in three-player gem, docs/rules.md 2.6)."""

    seat: int
    source: str  # "stock" | "discard"
    depth: int = 1


@dataclass(frozen=True)
class Discard:
    seat: int
    card: str


@dataclass(frozen=True)
class Knock:
    seat: int
    discard: str
    melds: tuple[tuple[str, ...], ...] | None = None


@dataclass(frozen=True)
class DeclareBigGin:
    seat: int


def parse_command(game: str, seat: int, action: Mapping[str, Any], *,
                  deep_draws: bool = False) -> object:
    """A seat's action object (already shape-checked by the API) as a command; a draw's
    ``depth`` is read only where the game has deep draws (gem)."""
    kind = action.get("type")
    if kind == "pass":
        return PassUpcard(seat)
    if kind == "draw":
        depth = action.get("depth") if deep_draws else None
        return Draw(seat, action.get("source", "stock"), 1 if depth is None else depth)
    if kind == "discard":
        return Discard(seat, action["card"])
    if kind == "knock":
        melds = action.get("melds")
        return Knock(seat, action["discard"],
                     tuple(tuple(m) for m in melds) if melds is not None else None)
    if kind == "big_gin":
        return DeclareBigGin(seat)
    raise RuleError("invalid_action", f"{game} has no action {kind!r}")
