"""The JSON of the API's answers, by orjson.

Every answer the API gives is JSON, most of them a match view of a few kilobytes; the
standard library's encoder (with sorted keys, as Flask's default) was the largest single
own cost of a request served by gunicorn. ``FastJSON`` keeps what Flask's default provider
promises a client, keys sorted and compact, and the same values (dates and dataclasses
handed to Flask's own ``default``), but non-ASCII text is sent as UTF-8 rather than
``\\u`` escapes, which any JSON parser reads as the same string, and a float that is not
a number (no answer holds one) would be ``null``, valid JSON, where the standard library
writes ``NaN``. What orjson refuses (an integer beyond 64 bits) is encoded by Flask's own
provider.

Request bodies are read by Flask's own provider: orjson reads an integer beyond 64 bits
as a float, which would change what a body says.

Only the HTTP layer uses it: hashes, the event store and the audit chain keep their own
canonical encoders, whose bytes are part of what they sign.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Flask, Response
from flask.json.provider import DefaultJSONProvider

_OPTIONS = (orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
            | orjson.OPT_PASSTHROUGH_DATACLASS)


class FastJSON(DefaultJSONProvider):
    """Flask's JSON provider, encoding with orjson (see the module)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs:
            return super().dumps(obj, **kwargs)
        return self._bytes(obj).decode()

    def response(self, *args: Any, **kwargs: Any) -> Response:
        obj = self._prepare_response_obj(args, kwargs)
        return Response(self._bytes(obj) + b"\n", mimetype=self.mimetype)

    def _bytes(self, obj: Any) -> bytes:
        """Pretty-printed in debug mode, as Flask's own provider does."""
        option = _OPTIONS | (orjson.OPT_INDENT_2 if self._app.debug else 0)
        try:
            return orjson.dumps(obj, default=self.default, option=option)
        except orjson.JSONEncodeError:
            layout = {"indent": 2} if self._app.debug else {"separators": (",", ":")}
            return super().dumps(obj, **layout).encode()


def answer_with_orjson(app: Flask) -> None:
    app.json = FastJSON(app)
