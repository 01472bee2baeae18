"""Verifying a log somebody brings, with no match stored here: an exported NDJSON file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

from flask import Response, request
from flask.views import MethodView

from service.api.audit_schemas import AuditQuerySchema, AuditSchema
from service.api.base import ANYONE, ApiBlueprint
from service.usecases.log_upload import (
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    MAX_LOG_LINES,
    refuse_declared,
)
from service.usecases.uploaded_logs import Audit, audit_log

blp = ApiBlueprint("audits", __name__, url_prefix="/v1/audits",
                   description="Verify an exported log (NDJSON) without storing it")

NDJSON_BODY = {
    "required": True,
    "description": f"An export (`GET /v1/matches/{{id}}/export`): one JSON event per line "
                   f"(NDJSON); at most {MAX_LOG_BYTES} bytes, {MAX_LOG_LINES} lines and "
                   f"{MAX_LINE_BYTES} bytes a line. Sent with a `Content-Length` or chunked. "
                   f"The body is read as bytes whatever its Content-Type: "
                   f"`application/x-ndjson` is the precise one, `application/octet-stream` "
                   f"the one this spec names, as client generators handle it.",
    "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
}
"""The body as bytes: ``application/x-ndjson`` would be exact, but generators
(openapi-python-client) skip an operation whose body type they do not know."""
CHUNK_BYTES = 64 * 1024
"""Read at a time: each complete line is parsed as soon as its chunk has arrived."""


@blp.route("")
class Audits(MethodView):
    @blp.arguments(AuditQuerySchema, location="query")
    @blp.response(200, AuditSchema)
    @blp.doc(security=ANYONE, requestBody=NDJSON_BODY)
    @blp.errors(400, 413, 422, 429)
    def post(self, query: dict[str, Any]) -> Any:
        """Verify an exported log as `rummy verify` does, and answer the report.

        Needs no token and stores nothing: the log may come from any server, or have been
        edited. The report has the four checks of docs/fairness.md (`hash_chain`, `deals`,
        `rules`, `scores`); `ok` is true only when every one passes. The body is read line
        by line as it arrives and refused at the first line that is wrong, which the
        message names: a line that is not a JSON object is a 400 `not_a_log`; a record
        the verifier cannot walk (a field missing or of the wrong type) a 422
        `unverifiable_log`; a body past the size limit a 413 `payload_too_large` (from its
        `Content-Length`, unread, or as soon as a chunked body passes it), a log of too
        many lines a 413 `log_too_long`, a line too long a 413 `line_too_long`. Larger
        logs are verified offline: `rummy verify FILE`. Rate-limited per client address
        like match creation.
        """
        refuse_declared(request.content_length)
        # The use case counts the bytes itself; this only lifts the app's limit for JSON
        # bodies (one byte more, so that a body of exactly the limit reads to its end).
        request.max_content_length = MAX_LOG_BYTES + 1
        return answer(audit_log(chunks(request.stream), query["states"]))


def chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """The body as it arrives (chunked or not, the server has decoded it)."""
    while chunk := stream.read(CHUNK_BYTES):
        yield chunk


def answer(audit: Audit) -> Response:
    """The ``AuditSchema`` answer as JSON text. The tables are JSON already (their length
    is what ``uploaded_logs.MAX_STATES_BYTES`` bounds), so they are joined as they are,
    not parsed and written again."""
    parts = ['{"report":', _json(audit.report)]
    if audit.states is not None:
        parts += [',"states":[', ",".join(audit.states), '],"states_note":',
                  _json(audit.states_note)]
    return Response("".join(parts) + "}", mimetype="application/json")


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))

