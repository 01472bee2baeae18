"""/docs: the interactive API reference, served from the app itself (works offline)."""

from __future__ import annotations

import re


def test_docs_serve_swagger_ui_over_the_apps_own_spec(client):
    page = client.get("/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert '"/docs/swagger.json"' in html
    assert not re.search(r"(src|href)=\"https?://", html), "no file may come from elsewhere"
    for asset in re.findall(r'(?:src|href)="(/docs/static/[^"]+)"', html):
        with client.get(asset) as served:
            assert served.status_code == 200 and served.get_data(), asset
    assert client.get("/docs/swagger.json").json == client.get("/openapi.json").json
