"""The `giftdesk` command's door (tui.launch): the everyday start skips the command line's parser; everything else
still meets it, shell completion included (tests/world/test_start_in_a_terminal.py holds the start itself)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui.launch import PLAIN_STARTS, completing

GIFTDESK = Path(sys.executable).parent / "giftdesk"  # the installed command: pyproject's entry point


def run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GIFTDESK), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
    )


def test_only_the_two_everyday_starts_take_the_plain_way():
    assert set(PLAIN_STARTS) == {(), ("--demo",)}


@pytest.mark.parametrize(
    ("environ", "asks"),
    [
        ({"_GIFTDESK_COMPLETE": "bash_source"}, True),
        ({"_PYTHON_M_TUI_COMPLETE": "zsh_complete"}, True),
        ({"GIFTDESK_PROFILE": "sandbox", "HOME": "/root"}, False),
        ({"COMPLETE": "x"}, False),
    ],
)
def test_a_shells_completion_request_is_recognised_whatever_the_programs_name(environ, asks):
    assert completing(environ) is asks


def test_the_installed_command_still_answers_version_and_help_through_click():
    assert run(["--version"]).stdout.startswith("giftdesk")
    help_text = run(["--help"]).stdout
    assert "Without a command, opens the TUI" in help_text and "accounts" in help_text


def test_a_completion_request_with_no_argument_goes_to_click_not_to_the_tui():
    # As a shell's completion script asks: no arguments, the request in the environment. The TUI would wait on a
    # terminal (stdin is not one here) instead of printing the script.
    answer = run([], _GIFTDESK_COMPLETE="bash_source")
    assert answer.returncode == 0
    assert "_giftdesk_completion" in answer.stdout


def test_a_mistyped_flag_is_clicks_usage_error_not_a_start():
    answer = run(["--dem"])
    assert answer.returncode == 2
    assert "No such option '--dem'" in answer.stderr
