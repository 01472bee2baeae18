"""Computer players at a match's creation: ``{"bot": "basic", "name"?, "think_ms"?}`` among
the players, and ``"budget_ms"?`` on an expert's seat.

A bot seat is checked (its level one of ``domain.bots.LEVELS``, its think time a whole
number of milliseconds up to ``THINK_MS_MAX``, an expert's budget one from 1 to
``MAX_MS``) and named before anything else reads the body, so every later step (the
names' checks, the lobby, a batch's duplicate table, the first events) sees a named seat
like any other. Its default name says its level
("Basic bot"), numbered when another seat already reads the same ("Basic bot 2").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.bot_seats import SEARCHING_LEVELS, THINK_MS_MAX, BotSeat
from domain.bots import LEVELS
from domain.bots.expert.budget import DEFAULT_MS, MAX_MS
from service.usecases.errors import invalid
from service.usecases.names import name_key

INVALID_BOT = "invalid_bot"


def is_bot(player: Mapping[str, Any]) -> bool:
    return player.get("bot") is not None


def bot_seats(players: Sequence[Mapping[str, Any]]) -> dict[int, BotSeat]:
    """The bot seats among ``players``, checked (400 ``invalid_bot``, naming the field)."""
    return {seat: _checked(seat, player) for seat, player in enumerate(players)
            if is_bot(player)}


def _checked(seat: int, player: Mapping[str, Any]) -> BotSeat:
    level = player["bot"]
    if level not in LEVELS:
        raise invalid(f"players.{seat}.bot", f"unknown bot level; one of {list(LEVELS)}",
                      INVALID_BOT)
    think_ms = player.get("think_ms") or 0
    if isinstance(think_ms, bool) or not isinstance(think_ms, int) \
            or not 0 <= think_ms <= THINK_MS_MAX:
        raise invalid(f"players.{seat}.think_ms", "a bot's think time is a whole number of "
                      f"milliseconds from 0 to {THINK_MS_MAX}", INVALID_BOT)
    return BotSeat(level, think_ms, _budget(seat, level, player.get("budget_ms")))


def _budget(seat: int, level: str, budget_ms: Any) -> int | None:
    """The seat's budget per move: the expert's default unless the body gives one; none
    for a level that does not search, which may not be given one."""
    field = f"players.{seat}.budget_ms"
    if level not in SEARCHING_LEVELS:
        if budget_ms is not None:
            raise invalid(field, f"only {' and '.join(SEARCHING_LEVELS)} bots take a budget",
                          INVALID_BOT)
        return None
    if budget_ms is None:
        return DEFAULT_MS
    if isinstance(budget_ms, bool) or not isinstance(budget_ms, int) \
            or not 1 <= budget_ms <= MAX_MS:
        raise invalid(field, "an expert's budget is a whole number of milliseconds from 1 "
                      f"to {MAX_MS}", INVALID_BOT)
    return budget_ms


def above_default_budget(bots: Mapping[int, BotSeat]) -> list[int]:
    """The seats whose budget passes the default: only an organiser may seat those
    (``MatchCreation.prepare``)."""
    return [seat for seat, bot in sorted(bots.items())
            if bot.budget is not None and bot.budget > DEFAULT_MS]


def with_bot_names(body: Mapping[str, Any]) -> dict[str, Any]:
    """The creation body with its bot seats checked and each unnamed one named; the body
    as it was when it has none."""
    players = list(body["players"])
    bots = bot_seats(players)
    if not bots:
        return dict(body)
    taken = {name_key(p["name"]) for p in players if isinstance(p.get("name"), str)}
    for seat, bot in bots.items():
        if not players[seat].get("name"):
            name = _free_name(f"{bot.level.capitalize()} bot", taken)
            taken.add(name_key(name))
            players[seat] = {**players[seat], "name": name}
    return {**body, "players": players}


def _free_name(base: str, taken: set[str]) -> str:
    name, number = base, 2
    while name_key(name) in taken:
        name, number = f"{base} {number}", number + 1
    return name


def bot_view(bot: BotSeat | None) -> dict[str, Any] | None:
    """A seat's ``bot`` as creation answers and views show it: null for a person."""
    return None if bot is None else bot.to_view()
