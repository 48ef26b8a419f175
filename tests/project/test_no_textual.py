"""DESIGN rule 1: the client, the config, the simulator and the scriptable
commands never import Textual. Each check runs in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

NO_TEXTUAL = "assert 'textual' not in sys.modules, sorted(m for m in sys.modules if m.startswith('textual'))"


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", f"import sys\n{code}\n{NO_TEXTUAL}"], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "module",
    [
        "tui.api",
        "tui.api.client",
        "tui.api.models",
        "tui.api.redact",
        "tui.local.config",
        "tui.local.config_file",
        "tui.local.profiles",
        "tui.local.secret_sources",
        "tui.simulator",
        "tui.cli",
        "tui.commands.options",
        "tui.commands.output",
        "tui.commands.runner",
    ],
)
def test_importing_does_not_import_textual(module):
    result = run_python(f"import {module}")
    assert result.returncode == 0, result.stderr


def invoke_cli(*args: str) -> str:
    return (
        "from tui.cli import main\n"
        f"try:\n    main({list(args)!r})\nexcept SystemExit as exit:\n    assert exit.code in (0, None), exit.code"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["catalog", "--help"],
        ["order", "place", "--help"],
        ["payout", "check", "--wallet", "Venmo", "--handle", "@ann_smith"],
        ["--demo", "accounts", "--json"],
    ],
)
def test_commands_do_not_import_textual(args):
    result = run_python(invoke_cli(*args))
    assert result.returncode == 0, result.stderr


def test_giftdesk_help_runs_as_a_program():
    result = subprocess.run([sys.executable, "-m", "tui", "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "Commands:" in result.stdout
