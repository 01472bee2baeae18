"""The project's own documentation: every relative link in the README and docs/ names a
file of the repository, and none leaves it (a clone must have everything it cites)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_inside_the_repository(page):
    for target in LINK.findall(page.read_text()):
        if target.startswith(("http://", "https://", "mailto:", "#")):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT), f"{page.name} links outside the repository: {target}"
        assert path.exists(), f"{page.name} links to a missing file: {target}"


def test_the_documentation_the_project_promises_is_there():
    for name in ("rules.md", "architecture.md", "events.md", "front-ends.md", "fairness.md"):
        assert (ROOT / "docs" / name).stat().st_size > 1000, name
