"""/docs in real Chromium: Swagger UI renders every operation of the spec, offline."""

from __future__ import annotations


def test_the_api_reference_renders_in_a_browser(browser, api_url):
    page = browser.new_page()
    page.goto(f"{api_url}/docs")
    page.wait_for_selector(".opblock", timeout=30_000)
    operations = page.locator(".opblock").count()
    title = page.locator(".title").first.inner_text()
    page.close()
    assert operations >= 30
    assert "Rummy game server" in title
