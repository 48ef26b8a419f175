"""The Makefile checks the Python version before making .venv, and says what to do.

Run with a fake `python` (a shell script that answers version checks as Python 3.10
or 3.12 would, through the real interpreter) in a copy of the Makefile.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_PYTHON = """#!/bin/sh
# A Python {version} as far as the Makefile can tell: -V, -c (sys.version_info), -m venv.
case "$1" in
  -V|--version) echo "Python {version}"; exit 0 ;;
  -c) exec {real} -c "import sys; sys.version_info = ({major}, {minor}, 0, 'final', 0)
$2" ;;
  -m) if [ "$2" = venv ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0; fi ;;
esac
echo "fake python {version}: $*" >&2
exit 1
"""

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def fake_python(path: Path, version: str) -> Path:
    major, minor = version.split(".")[:2]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FAKE_PYTHON.format(version=version, real=sys.executable, major=major, minor=minor))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def make(project: Path, target: str, python: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", target, f"PYTHON={python}"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_old_python_is_refused_before_any_venv_is_made(project, tmp_path):
    old = fake_python(tmp_path / "old" / "python3", "3.10.12")
    result = make(project, "test", old)
    assert result.returncode != 0
    assert "needs Python 3.11 or newer" in result.stderr and "3.10.12" in result.stderr
    assert "make PYTHON=python3.11 test" in result.stderr
    assert not (project / ".venv").exists()


def test_a_venv_left_by_an_old_python_is_named_with_the_way_out(project, tmp_path):
    fake_python(project / ".venv" / "bin" / "python", "3.10.12")  # made before this check existed
    new = fake_python(tmp_path / "new" / "python3", "3.12.1")
    result = make(project, "lint", new)
    assert result.returncode != 0
    assert ".venv was made with Python 3.10.12" in result.stderr and "make clean" in result.stderr


def test_a_new_enough_python_gets_its_venv(project, tmp_path):
    new = fake_python(tmp_path / "new" / "python3", "3.12.1")
    result = make(project, "lint", new)
    assert (project / ".venv" / "bin" / "python").exists()
    assert "needs Python" not in result.stderr
    assert "fake python 3.12.1: -m pip install" in result.stderr  # it went on to install


def test_the_editable_install_prints_no_warning_box(tmp_path: Path):
    """`make` installs the checkout editable: setuptools' "Editable installation ... !!" box must not show.

    Into a virtual env of its own: pip would take the running env's giftdesk out first, even with --prefix."""
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=120)
    python = tmp_path / "venv" / "bin" / "python"
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if not line.startswith("WARNING: Location")]  # a local index
    assert not any("!!" in line or "BuildBackendWarning" in line for line in said), "\n".join(said)
