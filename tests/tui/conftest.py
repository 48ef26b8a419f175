"""The TUI's tests: what every screen test shares beyond tests/conftest.py."""

from __future__ import annotations

import pytest

from tui.screens import freshness

FIXED_FRESHNESS = "as of 12:04 (3 min ago)"


@pytest.fixture(autouse=True)
def fixed_freshness(monkeypatch) -> None:
    """Screens say how fresh their data is with the time of day: fixed, so that snapshots do not depend on
    when they run (a test of the freshness line itself puts `freshness.text_for` back)."""
    monkeypatch.setattr(freshness, "text_for", lambda answer, renews_at=None: FIXED_FRESHNESS)


@pytest.fixture(autouse=True)
def fixed_status_line_clock(monkeypatch) -> None:
    """The status line says when a refresh failed (and how old the last good data is): at a fixed moment, so
    that snapshots do not depend on when they run (tests of its ages move it themselves)."""
    import widgets.status_line

    monkeypatch.setattr(widgets.status_line, "clock", lambda: FIXED_MOMENT)


FIXED_MOMENT = 1_780_000_000.0


@pytest.fixture(autouse=True)
def no_renewal_during_the_test(monkeypatch) -> None:
    """The test suite relaxes the provider's limits (tests/conftest.py), so an open ledger, board or rates
    screen would refresh itself every few seconds under a test's feet: not during a test, unless the test is
    about it (test_tui_freshness.py sets it back)."""
    monkeypatch.setattr(freshness, "SHORTEST_RENEWAL", 3600.0)
