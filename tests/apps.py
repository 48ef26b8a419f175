"""Build the giftdesk app against a running simulator, for Pilot tests.

Profiles are the demo ones (secrets in memory only): "demo-sandbox",
"demo-production" (client acme) and "demo-other" (a second client).
"""

from __future__ import annotations

from tui.app import AppSettings, GiftdeskApp, build_app
from tui.config import demo_profile
from tui.simulator import DEMO_CREDENTIALS

PROFILE_FOR_CREDENTIAL = {"acme-sandbox": "demo-sandbox", "acme-production": "demo-production", "other-sandbox": "demo-other"}


def demo_profiles(base_url: str, *, readonly_profiles: frozenset[str] = frozenset()) -> dict:
    profiles = {}
    for credential in DEMO_CREDENTIALS:
        name = PROFILE_FOR_CREDENTIAL[credential.name]
        profile = demo_profile(name, credential.environment, base_url, credential.client_id, credential.client_secret)
        if name in readonly_profiles:
            profile = profile.model_copy(update={"readonly": True})
        profiles[name] = profile
    return profiles


def app_on(sim, profile: str = "demo-sandbox", *, readonly: bool = False, order: str | None = None, **settings) -> GiftdeskApp:
    """The app on `sim` (a SimulatorServer), opened on `profile`."""
    return build_app(AppSettings(profiles=demo_profiles(sim.base_url, **settings.pop("profile_options", {})), profile_name=profile, readonly=readonly, order=order, **settings))
