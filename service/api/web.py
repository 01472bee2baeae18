"""The reference web client (``service/web``): static pages served at ``/``, no build step.

It calls the same public API any front end calls, from the same origin, so it needs no
CORS and holds nothing the API does not give it. The content security policy keeps the
pages to this origin's own scripts and connections.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, Response, send_from_directory

WEB_DIR = Path(__file__).resolve().parents[1] / "web"

POLICY = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
          "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
          "frame-ancestors 'none'")

blp = Blueprint("web", __name__, static_folder=str(WEB_DIR), static_url_path="/web")


@blp.get("/")
def index() -> Any:
    """The client's one page; it routes by the URL fragment, which never reaches a server."""
    return send_from_directory(WEB_DIR, "index.html")


@blp.after_request
def protect(response: Response) -> Response:
    """Every page and module of the client: the policy, and no guessing of types."""
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
