"""Build the giftdesk app against a running simulator, for Pilot tests.

Profiles are the demo ones (secrets in memory only): "demo-sandbox",
"demo-production" (client acme) and "demo-other" (a second client).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from textual.worker import WorkerFailed

from tui.app import AppSettings, GiftdeskApp, build_app
from tui.local.config import demo_profile
from tui.simulator import DEMO_CREDENTIALS

PROFILE_FOR_CREDENTIAL = {"acme-sandbox": "demo-sandbox", "acme-production": "demo-production", "other-sandbox": "demo-other"}


def demo_profiles(base_url: str, *, readonly_profiles: frozenset[str] = frozenset(), limits: dict | None = None) -> dict:
    """`limits`: every profile's overrides of the provider's limits (tui.api.limits)."""
    profiles = {}
    for credential in DEMO_CREDENTIALS:
        name = PROFILE_FOR_CREDENTIAL[credential.name]
        profile = demo_profile(name, credential.environment, base_url, credential.client_id, credential.client_secret)
        if name in readonly_profiles:
            profile = dataclasses.replace(profile, readonly=True)
        if limits:
            profile = dataclasses.replace(profile, limits=limits)
        profiles[name] = profile
    return profiles


def app_on(sim, profile: str = "demo-sandbox", *, readonly: bool = False, order: str | None = None, **settings) -> GiftdeskApp:
    """The app on `sim` (a SimulatorServer), opened on `profile`."""
    return build_app(AppSettings(profiles=demo_profiles(sim.base_url, **settings.pop("profile_options", {})), profile_name=profile, readonly=readonly, order=order, **settings))


# --- waiting for and reading the screen, shared by the Pilot tests ----------------------


async def settle(pilot) -> None:
    """Every request answered (or failed: the screen reports that itself) and drawn."""
    with contextlib.suppress(WorkerFailed):
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()  # what a screen fills in the frame after (e.g. the catalog's detail pane)


async def until(pilot, condition: Callable[[], object], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the screen"
        await pilot.pause(0.05)


def notifications(app) -> list[str]:
    return [n.message for n in app._notifications]


def rendered(screen, selector: str) -> str:
    """What a Static (or any simple widget) shows, as text."""
    return str(screen.query_one(selector).render())


async def export_shown(pilot, fmt: str, data_dir: Path) -> Path:
    """`e`, then the format in the dialog (c: CSV, j: JSON); the one file written, checked private."""
    await pilot.press("e")
    await pilot.pause()
    await pilot.press(fmt[0])
    await pilot.pause()
    folder = data_dir / "exports"
    [path] = list(folder.iterdir())
    assert folder.stat().st_mode & 0o777 == 0o700 and path.stat().st_mode & 0o777 == 0o600
    assert path.suffix == f".{fmt}"
    return path
