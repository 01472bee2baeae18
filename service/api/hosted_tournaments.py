"""Tournaments the server hosts: created by an organiser, paired and recorded by the
server, read by anybody (docs/tournaments.md)."""

from __future__ import annotations

from typing import Any

from flask import Response, request, stream_with_context
from flask.views import MethodView

from service.api.audit import EXPORT_TYPES
from service.api.base import ANYONE, BEARER, ApiBlueprint, bearer_token, use_cases
from service.api.hosted_tournament_schemas import (
    AbortTournamentSchema,
    JoinedSchema,
    JoinSchema,
    MeSchema,
    OpenTournamentsQuerySchema,
    OpenTournamentsSchema,
    RatingsQuerySchema,
    RatingsSchema,
    RepairSchema,
    RoundSchema,
    StandingsQuerySchema,
    StandingsSchema,
    TournamentCreatedSchema,
    TournamentCreateSchema,
    TournamentSchema,
    WithdrawSchema,
)
from service.usecases.access import ORGANISER_CALLER
from service.usecases.hosted_tournaments import HostedTournaments, standings_csv

blp = ApiBlueprint("tournaments", __name__, url_prefix="/v1/tournaments",
                   description="Tournaments the server pairs, records and ranks")


CREATED_LINKS = {
    name: {"operationRef": f"#/paths/~1v1~1tournaments~1{{tournament_id}}{path}/get",
           "parameters": {"tournament_id": "$response.body#/id", **extra},
           "description": description}
    for name, path, extra, description in (
        ("GetTournament", "", {}, "The tournament just created"),
        ("GetStandings", "~1standings", {}, "Its standings"),
        ("GetFirstRound", "~1rounds~1{number}", {"number": 1}, "Its first round"),
        ("ExportTournament", "~1export", {}, "Its export"))}
"""Where a client (or schemathesis's stateful run) goes from a new tournament."""


ratings_blp = ApiBlueprint("ratings", __name__, url_prefix="/v1/ratings",
                          description="Players' ratings by variant, from tournament results")

lobby_blp = ApiBlueprint("tournament_lobby", __name__, url_prefix="/v1/lobby",
                         description="Tournaments open for entry")


def hosted() -> HostedTournaments:
    return use_cases().hosted


@blp.route("")
class Tournaments(MethodView):
    @blp.arguments(TournamentCreateSchema)
    @blp.response(201, TournamentCreatedSchema)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER,
             responses={201: {"links": CREATED_LINKS}})
    @blp.errors(400, 401, 403)
    def post(self, body: dict[str, Any]) -> Any:
        """Create a tournament and pair its first round (an organiser key or the admin token).

        The server creates each round's matches, records each result as its match ends,
        and pairs the next round once every table of a round has a result, until the
        format is done. Each person entrant's player token is in the answer, once.
        """
        return hosted().create(body, bearer_token())


@blp.route("/<tournament_id>")
class Tournament(MethodView):
    @blp.response(200, TournamentSchema)
    @blp.errors(404)
    def get(self, tournament_id: str) -> Any:
        """A tournament: its settings, entrants, status and standings."""
        return hosted().get(tournament_id)


@blp.route("/<tournament_id>/standings")
class Standings(MethodView):
    @blp.arguments(StandingsQuerySchema, location="query")
    @blp.response(200, StandingsSchema)
    @blp.alt_response(200, schema={"type": "string"}, content_type="text/csv", success=True,
                      description="With format=csv: rank, entrant, name, points, played, "
                                  "wins, byes, withdrawn, then one column per tie-break")
    @blp.errors(400, 404)
    def get(self, query: dict[str, Any], tournament_id: str) -> Any:
        """The standings: match points, then the tournament's tie-breaks in order."""
        rows = hosted().standings(tournament_id)
        if query["format"] == "csv":
            return Response(standings_csv(rows), mimetype="text/csv", headers={
                "Content-Disposition": 'attachment; filename="standings.csv"'})
        return {"standings": rows}


@blp.route("/<tournament_id>/rounds/<int:number>")
class Round(MethodView):
    @blp.response(200, RoundSchema)
    @blp.errors(404)
    def get(self, tournament_id: str, number: int) -> Any:
        """One round: its tables (each a match), results and byes."""
        return hosted().round(tournament_id, number)


@blp.route("/<tournament_id>/join")
class Join(MethodView):
    @blp.arguments(JoinSchema)
    @blp.response(201, JoinedSchema)
    @blp.doc(security=ANYONE)
    @blp.errors(400, 404, 409, 422)
    def post(self, body: dict[str, Any], tournament_id: str) -> Any:
        """Enter a tournament open for entry (no token needed): your player token, once.

        You are the next entrant in seeding order. 400 ``name_taken`` when an entrant has
        your name; 422 ``entry_closed`` once it has started (or it never took entries),
        ``tournament_full`` at its ``max_players``.
        """
        return hosted().join(tournament_id, body)


@blp.route("/<tournament_id>/leave")
class Leave(MethodView):
    @blp.response(200, MeSchema)
    @blp.doc(security=BEARER)
    @blp.errors(401, 403, 404, 422)
    def post(self, tournament_id: str) -> Any:
        """Withdraw yourself (your player token): no later round pairs you, and the match
        you are playing, if any, is forfeited for you. 422 ``already_withdrawn``,
        ``tournament_over``."""
        return hosted().leave(tournament_id, bearer_token())


@blp.route("/<tournament_id>/start")
class Start(MethodView):
    @blp.response(200, TournamentSchema)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER)
    @blp.errors(401, 403, 404, 409, 422)
    def post(self, tournament_id: str) -> Any:
        """Start a tournament open for entry now (its owner or the admin): entry closes
        and the first round is paired with the entrants so far. 422
        ``tournament_started``, ``too_few_entrants``."""
        return hosted().start(tournament_id, bearer_token())


@blp.route("/<tournament_id>/rounds/<int:number>/repair")
class Repair(MethodView):
    @blp.arguments(RepairSchema)
    @blp.response(200, RoundSchema)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER)
    @blp.errors(400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], tournament_id: str, number: int) -> Any:
        """Pair a round again before its tables open (its owner or the admin), during
        the round break: by the format from the same results, leaving out who has
        withdrawn since; or, in a Swiss, as ``tables`` and ``byes`` place every entrant
        still in. The new tables get new match ids. 422 ``round_started``,
        ``not_repairable`` (an arena), ``manual_pairing``, ``tournament_over``."""
        return hosted().repair(tournament_id, number, bearer_token(), body)


@blp.route("/<tournament_id>/withdraw")
class Withdraw(MethodView):
    @blp.arguments(WithdrawSchema)
    @blp.response(200, TournamentSchema)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER)
    @blp.errors(400, 401, 403, 404, 422)
    def post(self, body: dict[str, Any], tournament_id: str) -> Any:
        """Withdraw an entrant (the tournament's owner or the admin).

        No later round pairs them; the match they are playing, if any, is forfeited for
        them. 422 ``already_withdrawn``, or ``tournament_over``.
        """
        return hosted().withdraw(tournament_id, bearer_token(), body)


@blp.route("/<tournament_id>/abort")
class Abort(MethodView):
    @blp.arguments(AbortTournamentSchema)
    @blp.response(200, TournamentSchema)
    @blp.doc(security=BEARER, caller=ORGANISER_CALLER)
    @blp.errors(400, 401, 403, 404, 422)
    def post(self, body: dict[str, Any], tournament_id: str) -> Any:
        """Call the tournament off (its owner or the admin): no more rounds are paired;
        matches already running play on but no longer count. 422 ``tournament_over``."""
        return hosted().abort(tournament_id, bearer_token(), body)


@blp.route("/<tournament_id>/export")
class Export(MethodView):
    @blp.doc(responses={"200": {
        "description": "NDJSON, keys sorted: the tournament's log (one event per line, as a "
                       "match's export has them), then each recorded table's match log, "
                       "each line with its match_id. Check it offline with `rummy verify "
                       "FILE`: the chain, every pairing from the results before it, every "
                       "result from its match's log.",
        "content": {ndjson: {"schema": {"type": "string", "format": "binary"}}
                    for ndjson in EXPORT_TYPES}}})
    @blp.errors(404)
    def get(self, tournament_id: str) -> Any:
        """The whole tournament for archiving and verifying."""
        lines = hosted().export(tournament_id)
        kind = request.accept_mimetypes.best_match(EXPORT_TYPES) or EXPORT_TYPES[0]
        return Response(stream_with_context(lines), mimetype=kind, headers={
            "Content-Disposition": f'attachment; filename="{tournament_id}.ndjson"'})


@blp.route("/<tournament_id>/me")
class Me(MethodView):
    @blp.response(200, MeSchema)
    @blp.doc(security=BEARER)
    @blp.errors(401, 403, 404)
    def get(self, tournament_id: str) -> Any:
        """The entrant whose player token is sent: their table this round and their seat
        there (which the same token acts for)."""
        return hosted().me(tournament_id, bearer_token())



@lobby_blp.route("/tournaments")
class OpenTournaments(MethodView):
    @lobby_blp.arguments(OpenTournamentsQuerySchema, location="query")
    @lobby_blp.response(200, OpenTournamentsSchema)
    @lobby_blp.doc(security=ANYONE)
    @lobby_blp.errors(400)
    def get(self, query: dict[str, Any]) -> Any:
        """Tournaments open for entry, newest first, each as GET /v1/tournaments/{id}
        shows it; join one with POST /v1/tournaments/{id}/join. Follow ``next_cursor``
        until null. A tournament leaves the list when it starts or is called off."""
        return hosted().open_for_entry(query.get("variant"), query["limit"],
                                       query.get("cursor"))


@ratings_blp.route("/<variant>")
class Ratings(MethodView):
    @ratings_blp.arguments(RatingsQuerySchema, location="query")
    @ratings_blp.response(200, RatingsSchema)
    @ratings_blp.errors(400, 404)
    def get(self, query: dict[str, Any], variant: str) -> Any:
        """The variant's rated players, best first: every tournament result updates its
        players' ratings once (openskill's Plackett-Luce; docs/tournaments.md, Ratings)."""
        return hosted().ratings(variant, query["offset"], query["limit"])
