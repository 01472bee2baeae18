"""A real browser against the real server: Debian's chromium driven by Playwright, the API
under gunicorn (``python -m service.serve``, embedded mode) and the test page served from
another origin (another port), as a third-party front end would be.

chromium comes from Debian's package (``make test`` installs it, see the Makefile); a
missing browser or Playwright skips loudly, and fails under ``CI=true``.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import cannot_run, server_env, serving_api

PAGES = Path(__file__).parent / "pages"
CHROMIUM = os.environ.get("RUMMY_CHROMIUM", "/usr/bin/chromium")


ADMIN = "browser-admin"
"""The admin token of ``api_url``'s server: it creates tournaments (an organiser's call)."""


@pytest.fixture(scope="session")
def api_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``make serve``'s server (embedded mode, its defaults, and an admin token) on a free
    port, for the session."""
    def argv(port: int) -> list[str]:
        return [sys.executable, "-m", "service.serve", "--port", str(port)]

    with serving_api("api", argv, server_env(RUMMY_ADMIN_TOKEN=ADMIN),
                     tmp_path_factory.mktemp("browser") / "api.log") as url:
        yield url


@pytest.fixture(scope="session")
def page_origin() -> Iterator[str]:
    """The test pages, served by another server on another port: another origin."""
    handler = functools.partial(_QuietHandler, directory=str(PAGES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        pass


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        cannot_run("BROWSER", f"no chromium at {CHROMIUM} (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        cannot_run("BROWSER", "Playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM,
                                              args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()
