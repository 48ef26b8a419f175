"""The TUI's tests: what every screen test shares beyond tests/conftest.py."""

from __future__ import annotations

import pytest

from tui.screens import freshness

FIXED_FRESHNESS = "as of 12:04 (3 min ago)"


@pytest.fixture(autouse=True)
def fixed_freshness(monkeypatch) -> None:
    """Screens say how fresh their data is with the time of day: fixed, so that snapshots do not depend on
    when they run (a test of the freshness line itself puts `freshness.text_for` back)."""
    monkeypatch.setattr(freshness, "text_for", lambda answer: FIXED_FRESHNESS)
