"""Fixtures of the command-line tests."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from env_profile import use_credential

from tui.cli import main


@pytest.fixture
def giftdesk(monkeypatch, sim, demo_credentials):
    """giftdesk(*args) -> click Result, on the shared simulator as the acme sandbox client (a module may define its
    own `giftdesk`)."""
    use_credential(monkeypatch, sim, demo_credentials["acme-sandbox"])
    runner = CliRunner()
    return lambda *args: runner.invoke(main, list(args), catch_exceptions=False)
