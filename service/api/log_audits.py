"""Verifying a log somebody brings, with no match stored here: an exported NDJSON file."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from flask import Response, request
from flask.views import MethodView

from service.api.audit_schemas import AuditQuerySchema, AuditSchema
from service.api.base import ANYONE, ApiBlueprint, use_cases
from service.api.deadlines import let_others_run
from service.ports import Verification
from service.usecases.log_upload import (
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    MAX_LOG_LINES,
    refuse_declared,
)

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
"""Read at a time: each complete line is checked as soon as its chunk has arrived."""


@blp.route("")
class Audits(MethodView):
    @blp.arguments(AuditQuerySchema, location="query")
    @blp.response(200, AuditSchema)
    @blp.doc(security=ANYONE, requestBody=NDJSON_BODY)
    @blp.errors(400, 408, 413, 422, 429, 503)
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
        like match creation. A body that does not arrive in time is a 408 `body_timeout`
        (docs/configuration.md, `RUMMY_BODY_*`).

        Once the whole body has passed its line checks, the log is verified in a process
        of its own, a few at a time per server process (`RUMMY_AUDIT_PROCESSES`): when
        none is free within 10 s the answer is a 503 `audits_busy` with `Retry-After`, and a
        verification that does not finish (its process ran out of time or died) a 503
        `audit_failed`. The answer is sent as it is read from the verifier's output, with
        its `Content-Length`.
        """
        refuse_declared(request.content_length)
        # The use case counts the bytes itself; this only lifts the app's limit for JSON
        # bodies (one byte more, so that a body of exactly the limit reads to its end).
        request.max_content_length = MAX_LOG_BYTES + 1
        return answer(use_cases().uploads.audit(chunks(request.stream), query["states"]))


def chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """The body as it arrives (chunked or not, the server has decoded it). After each
    chunk the request lets the others run: checking the lines of a 6 MiB upload that
    arrives at once takes some 200 ms of CPU."""
    while chunk := stream.read(CHUNK_BYTES):
        yield chunk
        let_others_run()


def answer(verified: Verification) -> Response:
    """The verifier's answer (``AuditSchema``, JSON text already) streamed from its file, a
    part at a time, never held whole; the file is let go when the answer ends, however it
    ends."""
    response = Response(verified.parts(), mimetype="application/json")
    response.headers["Content-Length"] = str(verified.size)
    response.call_on_close(verified.close)
    return response
