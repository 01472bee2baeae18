"""schemathesis's extensions for this API (schemathesis.toml loads them).

``rules_beyond_the_schema``: the only 400s a schema-valid request may get. Creating a match
obeys rules that OpenAPI 3.0 cannot state: the player count of *this* variant, *this*
variant's options, ``first_dealer`` below the player count, a ``deck`` that is exactly the
match's cards in any spelling (``TD``, ``10d``), ``dice`` for gem, an ``invite_code`` only
beside an open seat, duplicate tables that pair up; a forfeit names a seat the match has;
an action is of a kind the match's variant plays; an uploaded log is one JSON event per
line, where the spec can say only "bytes"; a player's name shows a letter, digit or
pictograph, and differs from the other seats'. The server refuses each with its own
code, so schemathesis.toml lets ``positive_data_acceptance`` pass a 400 on those operations
and this check holds each such 400 to its operation's codes. A 400 ``invalid_request`` (the
server's schema refusing what the spec allows) still fails there, as everywhere else.

``map_body``: the endpoints schemathesis registers (``POST /v1/webhooks``) point at a
closed local port (its server runs with ``RUMMY_WEBHOOK_PRIVATE=allow`` to take them); the
experts it seats and the analyses it asks for keep to the default budget and a few
samples, so the hundreds of all-bot matches it creates play out, and their analyses run,
within the run's time (each is what the tests of bots and analyses cover).
"""

from __future__ import annotations

import re
from typing import Any

import schemathesis

from domain.bots.expert.budget import DEFAULT_MS, MAX_MS
from service.api.webhook_schemas import WEBHOOK_URL, WEBHOOK_URL_MAX
from service.usecases.analyses import SAMPLES_MAX

CREATE_RULES = frozenset({
    "invalid_players",  # the variant's player count (the spec: the range over all variants)
    "invalid_option",  # an option of another variant, or out of range for this one
    "invalid_clock",
    "invalid_card",  # a deck card in no deck of the variant (e.g. JK for gin)
    "invalid_deck",  # not exactly the match's cards
    "invalid_dice",
    "invalid_invite_code",  # an invite code without an open seat
    "invalid_name",  # a name that shows no letter, digit or pictograph (only blanks)
    "name_taken",  # two seats named alike
    "invalid_bot",  # a budget_ms on a bot of a level that does not search
})
RULES: dict[str, frozenset[str]] = {
    "POST /v1/matches": CREATE_RULES,
    "POST /v1/batches": CREATE_RULES | {"invalid_duplicate"},
    # A tournament's table size within *this* variant's players, rounds only for a Swiss,
    # minutes only (and always) for an arena, tie-breaks named once each, a start time
    # ahead and a limit at least the players named, no round break in an arena.
    "POST /v1/tournaments": CREATE_RULES | {"invalid_table_size", "invalid_rounds",
                                            "invalid_minutes", "invalid_tie_breaks",
                                            "invalid_registration", "invalid_round_break"},
    "POST /v1/tournaments/{tournament_id}/join": frozenset({"invalid_name", "name_taken"}),
    "POST /v1/matches/{match_id}/forfeit": frozenset({"unknown_seat"}),
    "POST /v1/matches/{match_id}/seats/{seat}/claim": frozenset({"invalid_name"}),
    # An action of a kind the match's variant does not play (lay_down in gin): the spec's
    # Action is every variant's. Only a run given a real match and its seat's token gets
    # here; the schema's own refusals, with the same code, name their fields in ``errors``
    # and still fail.
    "POST /v1/matches/{match_id}/actions": frozenset({"invalid_action"}),
    # The body is bytes to the spec (client generators handle nothing finer) and an
    # exported log to the server: drawn bytes are not one JSON object per line.
    "POST /v1/audits": frozenset({"not_a_log"}),
}
"""The codes of the rules beyond the schema, by operation (schemathesis.toml names the same
operations)."""

CLOSED_PORT = "http://127.0.0.1:9"
"""The discard port, closed on any test machine: a delivery there is refused at once."""


def _error(response: Any) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


@schemathesis.check
def rules_beyond_the_schema(ctx: Any, response: Any, case: Any) -> bool | None:
    """A schema-valid request refused with a 400 names one of its operation's rules."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    allowed = RULES.get(f"{case.method.upper()} {case.operation.path}")
    if allowed is None:
        return None  # positive_data_acceptance refuses the 400 itself
    error = _error(response)
    code = error.get("code")
    if code not in allowed or (code == "invalid_action" and "errors" in error):
        raise AssertionError(f"A schema-valid request was refused with 400 {code!r}, which "
                             f"is not one of this operation's rules beyond the schema "
                             f"({', '.join(sorted(allowed))})")
    return None


CHEAP = {"budget_ms": (DEFAULT_MS, MAX_MS), "samples": (4, SAMPLES_MAX)}
"""The most a drawn expert seat or analysis may ask of the server's CPU, and the most
either may be (a value past it is left as drawn, to be refused)."""


@schemathesis.hook.apply_to(name=["POST /v1/webhooks", "POST /v1/matches",  # type: ignore[attr-defined]
                                  "POST /v1/batches", "POST /v1/matches/{match_id}/analyses"])
def map_body(ctx: Any, body: Any) -> Any:
    """A drawn body, made safe and cheap to run (the module's docstring)."""
    if not isinstance(body, dict):
        return body
    if isinstance(body.get("url"), str):
        return _closed_port(body)
    if isinstance(body.get("players"), list):
        return {**body, "players": [_cheap(player) for player in body["players"]]}
    if isinstance(body.get("matches"), list):
        return {**body, "matches": [map_body(ctx, match) for match in body["matches"]]}
    return _cheap(body)


def _closed_port(body: dict[str, Any]) -> dict[str, Any]:
    """Send a well-formed webhook URL's path and query to ``CLOSED_PORT`` instead of its
    made-up host: once a match schemathesis created ends, the server POSTs to every
    endpoint it registered, and a drawn host such as ``1.1`` is a real address. A URL the
    pattern refuses is left as drawn (the server refuses it before any delivery)."""
    if re.fullmatch(WEBHOOK_URL, body["url"]):
        rest = re.sub(r"^[A-Za-z]+://[^/?#]*", "", body["url"])
        return {**body, "url": (CLOSED_PORT + rest)[:WEBHOOK_URL_MAX]}
    return body


def _cheap(body: Any) -> Any:
    """``body`` with a valid ``budget_ms`` or ``samples`` at most ``CHEAP``'s (a value out
    of range or of another type is left as drawn, to be refused)."""
    if not isinstance(body, dict):
        return body
    return {key: min(value, CHEAP[key][0]) if _valid(key, value) else value
            for key, value in body.items()}


def _valid(key: str, value: Any) -> bool:
    return key in CHEAP and type(value) is int and 1 <= value <= CHEAP[key][1]
