"""The hostile server (tests/world/hostile_server.py) in front of a simulator, and short limits for its walks."""

from __future__ import annotations

import os

import pytest
from hostile_server import HostileServer

from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential

# The deeper run (GIFTDESK_DEEP_TESTS=1): every command against every attack, a byte a second, bigger bombs.
DEEP = os.environ.get("GIFTDESK_DEEP_TESTS") == "1"
# Short limits, so that a walk ends fast: every attack must end within them.
# Long enough for a good answer on a busy machine; a drip of 4 bytes a second never makes it.
SHORT_LIMITS = {
    "GIFTDESK_REQUEST_DEADLINE": "2",
    "GIFTDESK_CATALOG_DEADLINE": "2",
    "GIFTDESK_COMMAND_DEADLINE": "3",
    "GIFTDESK_MAX_ANSWER_MB": "2",
}


@pytest.fixture(scope="module")
def hostile_upstream():
    # No rate limits: the walk asks for the same answers again and again, each under another attack.
    with SimulatorServer(SimulatorSettings(brands=30, limits=None)) as server:
        yield server


@pytest.fixture(scope="module")
def hostile_server(hostile_upstream):
    mega = 1024 * 1024
    with HostileServer(
        hostile_upstream.base_url,
        drip_seconds=1.0 if DEEP else 0.25,
        huge_bytes=(512 if DEEP else 8) * mega,
        bomb_bytes=(2048 if DEEP else 64) * mega,
    ) as server:
        yield server


@pytest.fixture
def hostile_env(monkeypatch, hostile_server):
    """The ad-hoc profile pointing at the hostile server, with the short limits."""
    credential = demo_credential("acme-sandbox")
    monkeypatch.setenv("GIFTDESK_BASE_URL", hostile_server.base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", credential.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", credential.client_secret)
    for name, value in SHORT_LIMITS.items():
        monkeypatch.setenv(name, value)
    hostile_server.attack = "none"
    return hostile_server
