"""What organisers hear about their tournaments: a subscriber of the tournaments' runner.

One message per event worth telling, on the owner's feed and to their webhooks, shaped as
a match's lifecycle messages are (``service.usecases.lifecycle``)::

    {"id": "<tournament_id>-<version>", "kind": "round_paired", "tournament_id",
     "version", "ts", "owner", "data": {...}}

A paired round names its tables with their match ids and entrants, so a tournament
backend can show every player their next table from the notice alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.tournaments import events as E
from domain.tournaments.tournament import Tournament, TournamentState
from service.ports import StoredEvent
from service.usecases.lifecycle import MetaOf, OrganiserNotices
from service.usecases.subscribers import Appended

KIND_OF = {E.ENTRANT_JOINED.name: "entrant_joined",
           E.TOURNAMENT_STARTED.name: "tournament_started",
           E.ROUND_PAIRED.name: "round_paired",
           E.ROUND_REPAIRED.name: "round_repaired",
           E.MATCH_RECORDED.name: "tournament_match_recorded",
           E.ROUND_COMPLETED.name: "round_completed",
           E.PLAYER_WITHDRAWN.name: "entrant_withdrawn",
           E.TOURNAMENT_COMPLETED.name: "tournament_completed",
           E.TOURNAMENT_ABORTED.name: "tournament_aborted"}


class TournamentNotices:
    """The subscriber that tells organisers how their tournaments progress."""

    def __init__(self, notices: OrganiserNotices, meta: MetaOf) -> None:
        self.notices = notices
        self.meta = meta

    def __call__(self, appended: Appended[Tournament]) -> None:
        told = [event for event in appended.events if event.type in KIND_OF]
        state = appended.aggregate.state
        if not told or state is None:
            return
        owner = (self.meta(appended.aggregate_id) or {}).get("owner", "")
        if owner:
            self.notices.tell(owner, [notice(appended.aggregate_id, owner, state, event)
                                      for event in told])


def notice(tournament_id: str, owner: str, state: TournamentState,
           event: StoredEvent) -> dict[str, Any]:
    return {"id": f"{tournament_id}-{event.version}", "kind": KIND_OF[event.type],
            "tournament_id": tournament_id, "version": event.version, "ts": event.ts,
            "owner": owner, "data": _data(state, event.data)}


def _data(state: TournamentState, data: Mapping[str, Any]) -> dict[str, Any]:
    """The event's payload with each entrant named."""
    def named(entrant: int) -> dict[str, Any]:
        person = state.entrants[entrant]
        return {"entrant": entrant, "name": person.name, "external_id": person.external_id}

    out = {key: value for key, value in data.items() if key != "entry"}
    if "tables" in data:
        out["tables"] = [{**table, "seats": [named(e) for e in table["seats"]]}
                         for table in data["tables"]]
        out["byes"] = [named(e) for e in data["byes"]]
    if "entrant" in data:
        out.update(named(data["entrant"]))
    return out
