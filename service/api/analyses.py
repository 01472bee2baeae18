"""Post-game analyses: every decision of a finished match weighed against the expert's."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.api.analysis_schemas import AnalysisRequestSchema, AnalysisSchema
from service.api.base import ANYONE, ApiBlueprint, bearer_token, use_cases

blp = ApiBlueprint("analyses", __name__, url_prefix="/v1/matches",
                   description="Weigh every decision of a finished match against the expert")


@blp.route("/<match_id>/analyses")
class Analyses(MethodView):
    @blp.arguments(AnalysisRequestSchema(), required=False)
    @blp.response(202, AnalysisSchema)
    @blp.doc(security=ANYONE)
    @blp.errors(400, 401, 403, 404, 409, 422, 429)
    def post(self, body: dict[str, Any], match_id: str) -> Any:
        """Analyse a finished match with an ``analyses`` job.

        Every decision of every seat that had a choice is weighed against the expert's
        choice from what that seat knew then: ``cost`` is the expected points the move
        played lost against the expert's, and ``label`` follows from the variant's
        ``thresholds`` (docs/front-ends.md, *Analyses*). Poll the returned resource
        (``Location``) until ``done`` or ``failed``.

        Only a finished match (complete, forfeited or aborted): one in play or waiting
        for players is a 409 ``match_not_finished`` (an analysis would tell a seat how to play);
        one called off before it started a 422 ``match_over``. Anybody who may see the
        match may ask, no token needed: its end made its whole log public. The id is a
        digest of the log and the parameters, so asking again with the same ones answers
        the same analysis (queued, running or done; a failed one is queued again).
        Requests are limited per client address and per match (429 ``rate_limited``). A
        result is kept for a day after it ended, then its ``Location`` is a 404
        ``analysis_not_found``.
        """
        created = use_cases().analyses.request(match_id, bearer_token(), body)
        location = f"/v1/matches/{match_id}/analyses/{created['id']}"
        return created, 202, {"Location": location}


@blp.route("/<match_id>/analyses/<analysis_id>")
class Analysis(MethodView):
    @blp.response(200, AnalysisSchema)
    @blp.doc(security=ANYONE)
    @blp.errors(401, 403, 404)
    def get(self, match_id: str, analysis_id: str) -> Any:
        """An analysis: its status, its parameters and, once done, the decisions and a
        summary per seat (kept a day)."""
        return use_cases().analyses.analysis(match_id, analysis_id, bearer_token())
