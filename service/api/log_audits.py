"""Verifying a log somebody brings, with no match stored here: an exported NDJSON file."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from service.api.audit_schemas import AuditQuerySchema, AuditSchema
from service.api.base import ANYONE, ApiBlueprint
from service.usecases.uploaded_logs import MAX_LOG_BYTES, audit_log

blp = ApiBlueprint("audits", __name__, url_prefix="/v1/audits",
                   description="Verify an exported log (NDJSON) without storing it")

NDJSON_BODY = {
    "required": True,
    "description": f"An export (`GET /v1/matches/{{id}}/export`): one JSON event per line, "
                   f"at most {MAX_LOG_BYTES // (1024 * 1024)} MiB.",
    "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
}


@blp.route("")
class Audits(MethodView):
    @blp.arguments(AuditQuerySchema, location="query")
    @blp.response(200, AuditSchema)
    @blp.doc(security=ANYONE, requestBody=NDJSON_BODY)
    @blp.errors(400, 413, 422, 429)
    def post(self, query: dict[str, Any]) -> Any:
        """Verify an exported log as `rummy verify FILE` does, and answer the report.

        Needs no token and stores nothing: the log may come from any server, or have been
        edited. The report has the four checks of docs/fairness.md (`hash_chain`, `deals`,
        `rules`, `scores`); `ok` is true only when every one passes. A body that is not
        NDJSON objects is a 400 `not_a_log`; a log the verifier cannot even walk (not a
        failed check: a record missing its fields) a 422 `unverifiable_log`; a body over
        the size limit a 413. Rate-limited per client address like match creation.
        """
        request.max_content_length = MAX_LOG_BYTES
        return audit_log(request.get_data(cache=False), query["states"])
