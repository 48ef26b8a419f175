"""The Profiles screen sees the profiles file change under it (issue 35, break 4): a profile added from a
shell (`giftdesk profiles add`) shows without leaving the screen; `r` reads the file again too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from apps import until
from textual.widgets import DataTable

from tui.app import AppSettings, build_app
from tui.local.config_file import ProfileStore

GIFTDESK = str(Path(sys.executable).parent / "giftdesk")


def shell(*args: str) -> None:
    done = subprocess.run([GIFTDESK, *args], env=os.environ, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def add(name: str) -> None:
    shell(
        "profiles", "add", name, "--environment", "sandbox", "--base-url", "http://127.0.0.1:9",
        "--client-id", f"{name}-client", "--secret-env", "SOME_SECRET",
    )  # fmt: skip


def names(app) -> list[str]:
    table = app.screen.query_one("#profiles-table", DataTable)
    return [str(table.get_row_at(row)[1]) for row in range(table.row_count)]


async def test_a_profile_added_from_a_shell_shows_on_the_open_profiles_screen():
    add("early")
    store = ProfileStore()
    app = build_app(AppSettings(profiles=dict(store.load().profiles), store=store))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("6")
        await until(pilot, lambda: "early" in names(app))
        add("late")
        await until(pilot, lambda: "late" in names(app), timeout=10)  # without a key
        assert "late" in app.profiles
        shell("profiles", "remove", "late")
        await pilot.press("r")
        await until(pilot, lambda: "late" not in names(app))
