"""Secrets never reach disk (DESIGN rule 6).

The demo runs headless through every screen and a few scriptable commands,
with the platform's config, data, state, log and cache dirs pointed at a
temporary tree (no GIFTDESK_* overrides, so the real default paths are used).
Then every file written there is scanned for the demo client secrets and for
the card codes and weblink tokens the demo handed out. None may appear.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from tui.app import build_app
from tui.cli import main
from tui.core.navigation import DESTINATIONS
from tui.local.logs import setup_logging
from tui.simulator import DEMO_CREDENTIALS
from tui.startup import load_settings


@pytest.fixture
def platform_dirs(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "home"
    for variable, sub in {
        "XDG_CONFIG_HOME": "config",
        "XDG_DATA_HOME": "data",
        "XDG_STATE_HOME": "state",
        "XDG_CACHE_HOME": "cache",
    }.items():
        monkeypatch.setenv(variable, str(root / sub))
    monkeypatch.setenv("HOME", str(root))
    for variable in (
        "GIFTDESK_CONFIG",
        "GIFTDESK_DATA_DIR",
        "GIFTDESK_LOG_DIR",
        "GIFTDESK_BASE_URL",
        "GIFTDESK_CLIENT_ID",
        "GIFTDESK_CLIENT_SECRET",
    ):
        monkeypatch.delenv(variable, raising=False)
    return root


def _asked(http: httpx.Client, method: str, url: str, **options) -> httpx.Response:
    """A request as an integrator makes it beside the running TUI: the provider allows one request in flight per
    resource, so one that meets the TUI's own (its first catalog page) is refused 429, and asked again after it."""
    for _ in range(20):
        response = http.request(method, url, **options)
        if response.status_code != 429:
            response.raise_for_status()
            return response
        time.sleep(float(response.headers.get("Retry-After") or 0.5))
    raise AssertionError(f"{method} {url}: refused 429 twenty times")


def _payout_card_code(base_url: str) -> str:
    """Place a payout-product order in the demo's sandbox and return its card code once Sold."""
    acme = next(c for c in DEMO_CREDENTIALS if c.name == "acme-sandbox")
    with httpx.Client(base_url=base_url, auth=acme.auth, timeout=10) as http:
        page = _asked(http, "GET", "/api/integration/v2.0/catalog", params={"Name": "Payout", "PageSize": 1}).json()
        product = page["items"][0]["products"][0]
        request_id = str(uuid.uuid4())
        _asked(
            http,
            "POST",
            "/api/integration/v1.0/orders/checkout",
            json={
                "RequestId": request_id,
                "AccountId": 1001,
                "Products": [{"ProductId": product["id"], "Quantity": 1, "Value": product["minFaceValue"]}],
            },
        )
        for _ in range(100):
            order = _asked(http, "GET", f"/api/integration/v1.0/orders/{request_id}").json()
            cards = order["items"][0]["cards"]
            if cards and cards[0]["status"] == "Sold":
                return cards[0]["cardCode"]
            time.sleep(0.1)
    raise AssertionError("the payout card was never Sold")


async def test_demo_through_every_screen_writes_no_secret(platform_dirs: Path, monkeypatch):
    setup_logging(debug=True)  # as run_tui does; debug logs the most
    settings = load_settings(None, demo=True, readonly=False, order=None)
    app = build_app(settings)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await settings.demo.wait_ready()
            card_code = _payout_card_code(settings.demo.base_url)
            token = card_code.rsplit("/", 1)[-1]
            for destination in DESTINATIONS:
                await pilot.press(destination.key)
                await pilot.pause(0.2)
            await app.navigate("payout", card_code)
            await pilot.pause(0.5)
            await app.switch_profile("demo-production")
            await pilot.pause(0.2)
        # The same service, scripted through the ad-hoc environment profile
        # (in a thread: the commands run their own event loop).
        acme = next(c for c in DEMO_CREDENTIALS if c.name == "acme-sandbox")
        monkeypatch.setenv("GIFTDESK_BASE_URL", settings.demo.base_url)
        monkeypatch.setenv("GIFTDESK_CLIENT_ID", acme.client_id)
        monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", acme.client_secret)
        runner = CliRunner()
        for args in (
            ["accounts", "--json"],
            ["payout", "redeem", card_code, "--wallet", "PayPal", "--email", "ann.secret@example.com", "--yes"],
            ["payout", "status", card_code, "--json"],
        ):
            result = await asyncio.to_thread(runner.invoke, main, args)
            assert result.exit_code == 0, result.output
    finally:
        settings.demo.stop()

    secrets = [c.client_secret for c in DEMO_CREDENTIALS] + [
        card_code,
        token,
        token.replace("%3D", "="),
        "ann.secret@example.com",
    ]
    written = [path for path in platform_dirs.rglob("*") if path.is_file()]
    assert written, "the run wrote nothing at all: the scan would prove nothing"
    for path in written:
        content = path.read_bytes()
        for secret in secrets:
            assert secret.encode() not in content, f"{path} holds a secret in clear"
