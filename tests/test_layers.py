"""The layers as tests: the import-linter contracts of pyproject.toml hold, and they would
catch a forbidden import (shown on a copy of the code with one added); the domain imports
only the standard library and the pure algorithm libraries networkx and openskill."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALGORITHMS = {"networkx", "openskill"}
"""The libraries besides the standard library the domain may import (pyproject.toml)."""
LINT = Path(sys.executable).with_name("lint-imports")


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT), "--no-cache"], cwd=root, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": str(root),
                                                       "PATH": "/usr/bin:/bin"})


def test_the_contracts_hold():
    outcome = lint(ROOT)
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr
    assert "0 broken" in outcome.stdout


def test_a_use_case_that_imports_redis_breaks_its_contract(tmp_path):
    for package in ("domain", "service", "workers"):
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "web"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    play = tmp_path / "service" / "usecases" / "play.py"
    text = play.read_text().replace("from typing import Any\n",
                                    "from typing import Any\n\nimport redis\n")
    play.write_text(text)
    outcome = lint(tmp_path)
    assert outcome.returncode != 0
    assert "service.usecases.play -> redis" in outcome.stdout
    assert "Use cases import no redis, Flask or marshmallow" in outcome.stdout


def test_the_domain_imports_only_the_standard_library_the_algorithms_and_itself():
    for path in sorted((ROOT / "domain").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom)
                     and node.level == 0 else [])
            for name in names:
                top = name.split(".")[0]
                assert (top in sys.stdlib_module_names or top in ALGORITHMS
                        or top == "domain"), (path, name)
