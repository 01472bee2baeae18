"""The project's own documentation: the README is a front door that links to one page per
subject, every relative link in it and in docs/ reaches a file of the repository (and the
heading an ``#anchor`` names), none leaves it (a clone must have everything it cites), and
the pages that list settings, metrics and benchmarks list all of them."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from service.adapters.metrics import NAMES as METRICS
from service.config import RateLimits

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
README_MAX_LINES = 300


def outside_code(text: str) -> list[str]:
    """The page's lines outside fenced code blocks (a shell comment is no heading)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(page: Path) -> set[str]:
    """The ``#anchors`` of a page's headings, made as GitHub makes them: lower case, markup
    and punctuation dropped, spaces turned into hyphens, ``-1``, ``-2`` on repeats."""
    seen: dict[str, int] = {}
    found = set()
    for line in outside_code(page.read_text()):
        heading = HEADING.match(line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(2).lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def relative_links(page: Path) -> list[str]:
    return [target for line in outside_code(page.read_text())
            for target in LINK.findall(line)
            if not target.startswith(("http://", "https://", "mailto:"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_heading_inside_the_repository(page):
    for target in relative_links(page):
        name, _, anchor = target.partition("#")
        path = (page.parent / name).resolve() if name else page
        assert path.is_relative_to(ROOT), f"{page.name} links outside the repository: {target}"
        assert path.exists(), f"{page.name} links to a missing file: {target}"
        if anchor and path.suffix == ".md":
            assert anchor in anchors(path), f"{page.name} links to a missing heading: {target}"


def test_a_link_to_a_missing_heading_is_caught(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n## 1. Gin Rummy (`gin`)\n\n```sh\n# not a heading\n```\n"
                    "## Twice\n\n## Twice\n")
    assert anchors(page) == {"a-page", "1-gin-rummy-gin", "twice", "twice-1"}


def test_the_readme_is_a_front_door():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < README_MAX_LINES
    for command in ("make serve", "make test"):
        assert command in readme
    missing = set(DOCS.glob("*.md")) - reachable_from(ROOT / "README.md")
    assert not missing, f"no link from the README leads to {sorted(p.name for p in missing)}"


def reachable_from(start: Path) -> set[Path]:
    """The pages a reader reaches from ``start`` by following relative links."""
    seen, todo = {start}, [start]
    while todo:
        page = todo.pop()
        for target in relative_links(page):
            name = target.partition("#")[0]
            path = (page.parent / name).resolve() if name else page
            if path.suffix == ".md" and path.exists() and path not in seen:
                seen.add(path)
                todo.append(path)
    return seen


def test_the_documentation_the_project_promises_is_there():
    for name in ("rules.md", "architecture.md", "events.md", "front-ends.md", "fairness.md",
                 "configuration.md", "api.md", "streams.md", "background-work.md",
                 "testing.md", "benchmarks.md", "tournaments.md", "operations.md"):
        assert (DOCS / name).stat().st_size > 1000, name


def settings() -> set[str]:
    """Every environment variable service/config.py reads, the rate limits' included."""
    source = (ROOT / "service" / "config.py").read_text()
    named = set(re.findall(r'"((?:RUMMY|REDIS|RQ)_[A-Z0-9_]+)"', source))
    limits = {f"RUMMY_LIMIT_{field.name.upper()}" for field in dataclasses.fields(RateLimits)}
    return named | limits


def test_every_setting_is_documented_in_the_configuration_page():
    page = (DOCS / "configuration.md").read_text()
    assert {"REDIS_URL", "RUMMY_ADMIN_TOKEN", "RUMMY_LIMIT_CREATE"} <= settings()
    missing = sorted(name for name in settings() if f"`{name}`" not in page)
    assert not missing, f"docs/configuration.md does not document {missing}"


def test_every_metric_is_listed_in_the_operations_page():
    page = (DOCS / "operations.md").read_text()
    missing = sorted(name for name in METRICS if f"`{name}`" not in page)
    assert not missing, f"docs/operations.md does not list {missing}"


def test_every_benchmark_is_named_in_the_benchmarks_page():
    page = (DOCS / "benchmarks.md").read_text()
    benches = sorted(path.name for path in (ROOT / "bench").glob("*.py"))
    assert "streams.py" in benches
    missing = [name for name in benches if f"bench/{name}" not in page]
    assert not missing, f"docs/benchmarks.md does not name {missing}"
