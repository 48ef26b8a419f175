"""Every path of the project named in README.md and docs/ exists: a doc that names a moved file misleads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# A path under one of the project's own folders, not part of a longer word or URL.
PATH = re.compile(r"(?<![\w./-])((?:tui|widgets|styles|tests|bench|docs|\.ci)/[\w./-]*\w)")


def named_paths(doc: Path) -> list[str]:
    return sorted({match.group(1) for match in PATH.finditer(doc.read_text(encoding="utf-8"))})


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_path_named_exists(doc):
    missing = [path for path in named_paths(doc) if not (ROOT / path).exists()]
    assert not missing, f"{doc.name} names paths that do not exist: {missing}"


def test_the_check_sees_paths():
    # It would pass on any docs if the pattern matched nothing.
    assert "tui/app.py" in named_paths(ROOT / "docs" / "decisions.md")
