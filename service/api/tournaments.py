"""Tournaments: batches of matches (with duplicate deals) and results export."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from service.api.base import BEARER, ApiBlueprint, bearer_token, use_cases
from service.api.tournament_schemas import (
    BatchCreatedSchema,
    BatchCreateSchema,
    BatchSchema,
    ResultsQuerySchema,
    ResultsSchema,
)
from service.usecases.access import ORGANISER_CALLER
from service.usecases.tournaments import Tournaments, results_csv

batches = ApiBlueprint("batches", __name__, url_prefix="/v1/batches",
                       description="Create a whole round of matches at once (organisers)")
results = ApiBlueprint("results", __name__, url_prefix="/v1/results",
                       description="Results of completed matches by tag (organisers)")


def tournaments() -> Tournaments:
    return use_cases().tournaments


@batches.route("")
class Batches(MethodView):
    @batches.arguments(BatchCreateSchema)
    @batches.response(201, BatchCreatedSchema)
    @batches.doc(security=BEARER, caller=ORGANISER_CALLER, responses={201: {"links": {"GetBatch": {
        "operationRef": "#/paths/~1v1~1batches~1{batch_id}/get",
        "parameters": {"batch_id": "$response.body#/id"},
        "description": "The batch just created"}}}})
    @batches.errors(400, 401, 403)
    def post(self, body: dict[str, Any]) -> Any:
        """Create many matches at once, all or nothing (an organiser key or the admin token).

        Every match is validated first; when one is invalid, none is created and the 400
        names it (``matches.<index>.<field>``). Each match is tagged ``batch:<id>`` plus
        the batch's ``tags``. With ``duplicate``, matches pair up (0, 1), (2, 3), ...: the
        second table deals every hand exactly as the first, with the players rotated one
        seat (two players swap); a pair that differs in variant, options or players is a
        400 ``invalid_duplicate``.
        """
        return tournaments().create_batch(body, bearer_token())


@batches.route("/<batch_id>")
class Batch(MethodView):
    @batches.response(200, BatchSchema)
    @batches.doc(security=BEARER, caller=ORGANISER_CALLER)
    @batches.errors(401, 403, 404)
    def get(self, batch_id: str) -> Any:
        """A batch and its matches as listed (its owner or the admin; others get 404)."""
        return tournaments().batch(batch_id, bearer_token())


@results.route("")
class Results(MethodView):
    @results.arguments(ResultsQuerySchema, location="query")
    @results.response(200, ResultsSchema)
    @results.alt_response(200, schema={"type": "string"}, content_type="text/csv",
                          success=True, description=(
        "JSON by default; with format=csv, text/csv with one row per player per match: "
        "match_id, match_external_id, variant, tags (joined by ';'), batch, "
        "duplicate_group, duplicate_table, seat, name, player_external_id, winner "
        "(true/false), final_score, bonus"))
    @results.doc(security=BEARER, caller=ORGANISER_CALLER)
    @results.errors(400, 401, 403)
    def get(self, query: dict[str, Any]) -> Any:
        """Completed matches carrying every ``tag``: players, winner(s), final scores, bonuses.

        Only the caller's matches (every match for the admin), oldest first.
        """
        found = tournaments().results(bearer_token(), query["tag"])
        if query["format"] == "csv":
            return Response(results_csv(found), mimetype="text/csv",
                            headers={"Content-Disposition": 'attachment; filename="results.csv"'})
        return {"matches": found}
