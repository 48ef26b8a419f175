"""Where a secret comes from, fetched when needed: the keyring, an environment variable or a command (and
the team database's password the same ways). A secret is registered for redaction the moment it is read.
No Textual."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from typing import Any

from tui.api.redact import Secret, register_secret
from tui.local.config import ConfigError, Profile, SecretSource, TeamSettings

KEYRING_SERVICE = "giftdesk"
SECRET_COMMAND_TIMEOUT = 15.0  # seconds; a password manager asking for a PIN is slow, not stuck
TEAM_KEYRING_USER = "team-database"  # the keyring's user name for the team database's password by default


def resolve_secret(profile: Profile, environ: Mapping[str, str] = os.environ) -> Secret:
    """The profile's client secret, fetched from its source. ConfigError says what to fix.

    The value is registered with the redaction, so logs and messages mask it wherever it shows up.
    """
    secret = _fetch_secret(profile, environ)
    register_secret(secret)
    return secret


def _fetch_secret(profile: Profile, environ: Mapping[str, str]) -> Secret:
    source = profile.secret
    if source.kind == "inline-demo":
        if source._demo_value is None:
            raise ConfigError(f"profile {profile.name!r}: a demo secret exists only in --demo mode")
        return source._demo_value
    return _fetch_from(f"profile {profile.name!r}", source, profile.name, environ)


def _fetch_from(whose: str, source: SecretSource, keyring_user: str, environ: Mapping[str, str]) -> Secret:
    """The secret a (file) source names; `whose` starts every message (\"profile 'x'\", \"[team] password\")."""
    if source.kind == "env":
        return _secret_from_env(whose, source.ref, environ)
    if source.kind == "command":
        return _secret_from_command(whose, source.ref)
    return _secret_from_keyring(whose, source.ref or keyring_user)


def resolve_team_password(team: TeamSettings, environ: Mapping[str, str] = os.environ) -> Secret | None:
    """The team database's password from its source (registered with the redaction), or None (libpq's own)."""
    if team.password is None:
        return None
    secret = _fetch_from("[team] password", team.password, TEAM_KEYRING_USER, environ)
    register_secret(secret)
    return secret


def _secret_from_env(whose: str, variable: str, environ: Mapping[str, str]) -> Secret:
    value = environ.get(variable, "")
    if not value:
        raise ConfigError(f"{whose}: environment variable {variable} is not set; export it with the client secret")
    return Secret(value)


def _secret_from_command(whose: str, command: str) -> Secret:
    # Output is never echoed: stdout is the secret, and stderr could repeat it.
    hint = "run the command in a shell to see why, or change it with `giftdesk profiles add`"
    try:
        result = subprocess.run(
            command,
            shell=True,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=SECRET_COMMAND_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        raise ConfigError(
            f"{whose}: the secret command did not finish within {SECRET_COMMAND_TIMEOUT:g} s; {hint}"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{whose}: the secret command could not start ({exc.strerror}); {hint}") from None
    if result.returncode != 0:
        raise ConfigError(f"{whose}: the secret command failed with exit status {result.returncode}; {hint}")
    secret = result.stdout.strip()
    if not secret:
        raise ConfigError(f"{whose}: the secret command printed nothing; {hint}")
    return Secret(secret)


def _keyring_module() -> Any:
    try:
        import keyring  # optional dependency, and slow to import: only when needed
    except ImportError:
        raise ConfigError(
            "the keyring package is missing from this installation (giftdesk depends on it): "
            "reinstall giftdesk, or pip install keyring; or use --secret-env / --secret-command"
        ) from None
    return keyring


def _secret_from_keyring(whose: str, username: str) -> Secret:
    keyring = _keyring_module()
    try:
        value = keyring.get_password(KEYRING_SERVICE, username)
    except keyring.errors.KeyringError as exc:
        raise ConfigError(
            f"{whose}: the system keyring is unavailable "
            f"({type(exc).__name__}); use --secret-env or --secret-command instead"
        ) from None
    if not value:
        raise ConfigError(
            f"{whose}: no secret in the keyring for service "
            f"{KEYRING_SERVICE!r}, user {username!r}; store it with "
            f"`keyring set {KEYRING_SERVICE} {username}`"
        )
    return Secret(value)


def store_keyring_secret(username: str, secret: str) -> None:
    """Puts a client secret in the system keyring (service "giftdesk")."""
    keyring = _keyring_module()
    try:
        keyring.set_password(KEYRING_SERVICE, username, secret)
    except keyring.errors.KeyringError as exc:
        raise ConfigError(
            f"could not store the secret in the system keyring ({type(exc).__name__}); "
            "use --secret-env or --secret-command instead"
        ) from None


def delete_keyring_secret(username: str) -> bool:
    """Removes a stored secret; False when there was none or no keyring is usable."""
    try:
        _keyring_module().delete_password(KEYRING_SERVICE, username)
    except Exception:  # not installed, no backend, no such entry: nothing left to delete here
        return False
    return True
