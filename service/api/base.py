"""flask-smorest pieces set to this API's conventions: 400 for malformed input, one error shape."""

from __future__ import annotations

from typing import Any

from flask_smorest import Api, Blueprint
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from service.api.schemas import ErrorSchema

HTTP_CODES = {400: "invalid_request", 401: "unauthorized", 403: "forbidden",
              404: "not_found", 405: "method_not_allowed", 409: "version_conflict",
              413: "payload_too_large", 415: "unsupported_media_type",
              422: "illegal_move", 500: "internal_error"}


class Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400


class ApiBlueprint(Blueprint):
    ARGUMENTS_PARSER = Parser()


class RummyApi(Api):
    """Every HTTP error as ``{"code", "message"}`` (+ ``errors`` per field for 400)."""

    ERROR_SCHEMA = ErrorSchema

    def handle_http_exception(self, error: HTTPException) -> Any:
        status = error.code or 500
        payload: dict[str, Any] = {"code": HTTP_CODES.get(status, "error"),
                                   "message": error.description or error.name}
        data = getattr(error, "data", None) or {}
        messages = data.get("messages") or data.get("errors")
        if messages:
            payload["errors"] = _flatten_locations(messages)
            payload["message"] = "the request is malformed: " + ", ".join(payload["errors"])
        return payload, status, data.get("headers") or {}


def _flatten_locations(messages: dict[str, Any]) -> dict[str, Any]:
    """webargs nests errors under the location ("json", "headers"); callers want field names."""
    flat: dict[str, Any] = {}
    for location, errors in messages.items():
        if isinstance(errors, dict):
            flat.update(errors)
        else:
            flat[location] = errors
    return flat
