"""Making and choosing a profile: from fields, from the GIFTDESK_* variables, by name, and whether it is
read-only. No Textual."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from tui.local.config import ENV_PROFILE_NAME, ENVIRONMENTS, Config, ConfigError, Profile, SecretSource, checked_profile
from tui.local.validation import Invalid


def make_profile(**fields: Any) -> Profile:
    """Builds a Profile, turning a failed check into a ConfigError that reads well."""
    try:
        return checked_profile(fields)
    except Invalid as exc:
        raise ConfigError(f"invalid profile: {exc}") from None


def updated_profile(profile: Profile, /, **changes: Any) -> Profile:
    """A copy of `profile` with `changes` applied and checked again. The name cannot change."""
    if "name" in changes and changes["name"] != profile.name:
        raise ConfigError("a profile cannot be renamed; add a new one and remove the old one")
    current = {setting.name: getattr(profile, setting.name) for setting in dataclasses.fields(profile)}
    return make_profile(**{**current, **changes})


def demo_profile(name: str, environment: str, base_url: str, client_id: str, client_secret: str) -> Profile:
    """A profile for --demo: the secret lives in memory only and can never be saved."""
    return make_profile(
        name=name,
        environment=environment,
        base_url=base_url,
        client_id=client_id,
        secret=SecretSource.inline_demo(client_secret),
    )


# --- read-only and choosing a profile -------------------------------------------------


def effective_readonly(cli_flag: bool, profile: Profile | None) -> bool:
    """--readonly or the profile's own setting: either one makes it read-only, neither can undo the other."""
    return cli_flag or (profile is not None and profile.readonly)


def profile_from_env(environ: Mapping[str, str] = os.environ) -> Profile | None:
    """The ad-hoc profile "env" from GIFTDESK_BASE_URL/_CLIENT_ID/_CLIENT_SECRET, or None when none is set.

    Only some of the three set is a mistake worth saying, not a reason to fall back silently.
    """
    required = ("GIFTDESK_BASE_URL", "GIFTDESK_CLIENT_ID", "GIFTDESK_CLIENT_SECRET")
    present = [var for var in required if environ.get(var)]
    if not present:
        return None
    if len(present) < len(required):
        missing = ", ".join(var for var in required if var not in present)
        raise ConfigError(f"{', '.join(present)} set but {missing} not: set all three, or unset them")
    environment = environ.get("GIFTDESK_ENVIRONMENT", "sandbox") or "sandbox"
    if environment not in ENVIRONMENTS:
        raise ConfigError(f"GIFTDESK_ENVIRONMENT must be sandbox or production, not {environment!r}")
    try:
        return make_profile(
            name=ENV_PROFILE_NAME,
            environment=environment,
            base_url=environ["GIFTDESK_BASE_URL"],
            client_id=environ["GIFTDESK_CLIENT_ID"],
            secret=SecretSource(kind="env", ref="GIFTDESK_CLIENT_SECRET"),
        )
    except ConfigError as exc:
        raise ConfigError(f"from GIFTDESK_* variables: {exc}") from None


def choose_profile(config: Config, name: str | None = None, environ: Mapping[str, str] = os.environ) -> Profile:
    """The profile to use: --profile NAME, else the GIFTDESK_* variables, else the current profile."""
    if name is not None:
        if name == "env" and "env" not in config.profiles:
            env_profile = profile_from_env(environ)
            if env_profile is not None:
                return env_profile
        return config.get(name)
    env_profile = profile_from_env(environ)
    if env_profile is not None:
        return env_profile
    if config.current_profile is not None:
        return config.current_profile
    raise ConfigError(
        "no profile chosen: add one with `giftdesk profiles add`, pick one with "
        "`giftdesk profiles use NAME`, or try `giftdesk --demo`"
    )
