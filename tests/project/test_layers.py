"""The layers of DESIGN.md "Shape" are enforced by import-linter (run by `make test`).

These tests show that the contracts bite: a copy of the code with one
deliberate upward import fails, and the message names that import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_copy(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess[str]:
    """Run lint-imports on a copy of the project whose `module` file gains `line`."""
    for package in ("tui", "widgets", "styles"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    target = tmp_path / (module.replace(".", "/") + ".py")
    target.write_text(target.read_text() + f"\n{line}\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_project_keeps_every_contract(tmp_path):
    result = lint_copy(tmp_path, "tui.core.polling", "")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "named"),
    [
        ("tui.core.polling", "from tui.screens import base", "tui.core.polling -> tui.screens.base"),
        ("tui.api.statuses", "import tui.local.fileio", "tui.api.statuses -> tui.local.fileio"),
        ("tui.screens.audit", "import tui.app", "tui.screens.audit -> tui.app"),
        (
            "tui.screens.audit",
            "from tui.profile_services import profile_client",
            "tui.screens.audit -> tui.profile_services",
        ),
        ("tui.screens.watch", "from tui.watch_service import WatchService", "tui.screens.watch -> tui.watch_service"),
        ("tui.local.storage", "import textual.widgets", "tui.local.storage -> textual"),
        ("tui.simulator.rates", "import tui.api.models", "tui.simulator.rates -> tui.api.models"),
    ],
)
def test_an_upward_import_breaks_a_contract_and_is_named(tmp_path, module, line, named):
    result = lint_copy(tmp_path, module, line)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout
    assert named in result.stdout


def import_circles(*packages: str) -> set[tuple[str, str]]:
    """Each pair of modules that import one another, directly or through others (typing-only imports count: they
    say which module knows which)."""
    import grimp  # import-linter's own graph

    graph = grimp.build_graph(*packages)
    return {
        tuple(sorted((module, imported)))
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
        if module != imported and graph.chain_exists(importer=imported, imported=module)
    }


def test_no_module_imports_one_that_imports_it_back():
    assert import_circles("tui", "widgets", "styles") == set()


def test_a_circle_is_found(tmp_path, monkeypatch):
    package = tmp_path / "circled"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "one.py").write_text("from circled import two\n")
    (package / "two.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from circled import one\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_circles("circled") == {("circled.one", "circled.two")}
