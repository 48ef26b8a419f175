"""What a config holds and how it is checked: profiles, the secret's source, the look, team mode's settings.

No Textual here (a test checks it): the scriptable commands import this on start.

The config file never holds a client secret in clear. A profile names a
*source* for its secret (the system keyring, an environment variable, or a
command whose output is the secret); the demo mode's in-memory secret is a
private attribute that no dump includes and the saver refuses.
"""

from __future__ import annotations

import dataclasses
import getpass
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tui.api.redact import Secret
from tui.local.validation import (
    Fields,
    Invalid,
    Problem,
    boolean,
    one_of,
    optional,
    string,
    table_of,
    whole_number,
)

Environment = Literal["sandbox", "production"]
Palette = Literal["standard", "colour-blind"]
SecretKind = Literal["keyring", "env", "command", "inline-demo"]
ENVIRONMENTS: tuple[str, ...] = ("sandbox", "production")
_SECRET_KINDS: tuple[str, ...] = ("keyring", "env", "command", "inline-demo")
FILE_SECRET_KINDS = _SECRET_KINDS[:3]
_PALETTES: tuple[str, ...] = ("standard", "colour-blind")
LOOK_SETTINGS = ("theme", "palette", "keymap")  # top-level settings of the TUI's look and keys
DATABASE_URL_VARIABLE = "GIFTDESK_DATABASE_URL"  # turns team mode on, like [team] database_url
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_ENV_VAR_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_URL_RE = re.compile(r"https?://[^\s/?#]+(/[^\s?#]*)?", re.IGNORECASE)


class ConfigError(Exception):
    """A profile or the config file is unusable. The message says what to do; it never holds a secret."""


# --- models -----------------------------------------------------------------------------
# Plain frozen dataclasses, checked by tui.local.validation (no pydantic: issue 16).
# Building one directly skips the checks; `make_profile` and the file reader check.

ENV_PROFILE_NAME = "env"  # the ad-hoc profile of the GIFTDESK_* variables


@dataclass(frozen=True)
class SecretSource:
    """Where a profile's client secret comes from.

    keyring: service "giftdesk", username `ref` (the profile name when empty);
    env: the variable named `ref`; command: `ref` is a shell command whose stdout
    (stripped) is the secret; inline-demo: held in memory only (see `inline_demo`).
    """

    kind: SecretKind
    ref: str = ""
    # Not settable from any input, in no dump, never compared: the demo's secret.
    _demo_value: Secret | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        checked = Fields({"kind": self.kind, "ref": self.ref}, ("kind", "ref"))
        checked.take("kind", one_of(*_SECRET_KINDS))
        checked.take("ref", string)
        checked.done()
        if self.kind == "env" and not _ENV_VAR_RE.fullmatch(self.ref):
            raise Invalid([("", f"{self.ref!r} is not an environment variable name")])
        if self.kind == "command" and not self.ref.strip():
            raise Invalid([("", "the command is empty")])

    @classmethod
    def inline_demo(cls, secret: str) -> SecretSource:
        """An in-memory secret for the demo profiles. The saver refuses profiles holding one."""
        source = cls(kind="inline-demo", ref="demo")
        object.__setattr__(source, "_demo_value", Secret(secret))
        return source


@dataclass(frozen=True)
class Profile:
    """One set of credentials for one environment of the service."""

    name: str
    environment: Environment
    base_url: str
    client_id: str
    secret: SecretSource
    default_account: int | None = None
    readonly: bool = False
    # The Orders board flags a non-final order older than this (None: tui.core.triage's default, 15).
    stuck_after_minutes: int | None = None
    # The provider's limits this profile keeps, where they differ from tui.api.limits.DEFAULT_LIMITS:
    # endpoint name -> "requests/period" (`[profiles.NAME.limits]`, e.g. transactions = "4/hour").
    limits: dict[str, str] | None = None

    @property
    def mirror_name(self) -> str:
        """The name of this profile's catalog mirror (with the environment): the profile's name; for the
        ad-hoc profile of the GIFTDESK_* variables, also what identifies the service (base URL and client
        id, hashed), so that two services set in turn never share a mirror."""
        if self.name != ENV_PROFILE_NAME:
            return self.name
        import hashlib

        service = f"{self.base_url.rstrip('/')}\n{self.client_id}".encode()
        return f"{ENV_PROFILE_NAME}-{hashlib.sha256(service).hexdigest()[:16]}"

    @property
    def is_production(self) -> bool:
        return self.environment == "production"

    @property
    def is_demo(self) -> bool:
        return self.secret.kind == "inline-demo"

    def as_dict(self) -> dict[str, Any]:
        """Every setting by name, the secret's source as a table; never the demo's secret."""
        return settings_by_name(self)


@dataclass(frozen=True)
class TeamSettings:
    """[team]: the team's PostgreSQL database (team mode). Without it, everything stays on this machine.

    The URL carries no password (refused when it does): `password` names where it comes from,
    as a profile's secret does; None leaves it to libpq's own (PGPASSWORD, ~/.pgpass) or none.
    """

    database_url: str
    password: SecretSource | None = None


@dataclass(frozen=True)
class Config:
    """Every stored profile, and the one used when none is named."""

    profiles: dict[str, Profile] = field(default_factory=dict)
    current: str | None = None
    # The TUI's look and keys, edited by hand (giftdesk never writes them):
    # `theme` is any Textual theme for sandbox (production keeps its own look),
    # `palette` the status colours, `[keymap]` binding id -> keys (Textual's App.set_keymap).
    theme: str | None = None
    palette: Palette = "standard"
    keymap: dict[str, str] = field(default_factory=dict)
    # Who this engineer is in the team's audit log and notes (else the OS user); [team]: team mode.
    user: str | None = None
    team: TeamSettings | None = None

    @property
    def current_profile(self) -> Profile | None:
        return self.profiles.get(self.current) if self.current else None

    def get(self, name: str) -> Profile:
        try:
            return self.profiles[name]
        except KeyError:
            known = ", ".join(sorted(self.profiles)) or "none yet"
            raise ConfigError(f"no profile named {name!r} (profiles: {known}); see `giftdesk profiles list`") from None

    def with_profile(self, profile: Profile, *, replace: bool = False) -> Config:
        """Adds (or with replace=True, replaces) a profile. The first profile becomes current."""
        if profile.name in self.profiles and not replace:
            raise ConfigError(f"a profile named {profile.name!r} exists already")
        profiles = {**self.profiles, profile.name: profile}
        return dataclasses.replace(self, profiles=profiles, current=self.current or profile.name)

    def without_profile(self, name: str) -> Config:
        self.get(name)
        profiles = {key: p for key, p in self.profiles.items() if key != name}
        return dataclasses.replace(self, profiles=profiles, current=None if self.current == name else self.current)

    def using(self, name: str) -> Config:
        self.get(name)
        return dataclasses.replace(self, current=name)


# --- checking: what the pydantic models checked, with their messages (tui.local.validation)


def _profile_name(value: Any) -> str:
    name = string(value)
    if not _NAME_RE.fullmatch(name):
        raise Problem("use 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit")
    return name


def _base_url(value: Any) -> str:
    url = string(value).strip()
    if not _URL_RE.fullmatch(url):
        raise Problem("must be an http:// or https:// URL with a host, e.g. https://api.example.com")
    from urllib.parse import urlsplit

    try:  # what the regular expression lets through but no client can use: "http://[::1", "http://host:abc"
        parts = urlsplit(url)
        parts.port  # noqa: B018 (reading it checks it)
    except ValueError as error:
        raise Problem(f"is not a usable URL ({error}), e.g. https://api.example.com or http://[::1]:8080") from None
    if not parts.hostname:
        raise Problem("must be an http:// or https:// URL with a host, e.g. https://api.example.com")
    return url.rstrip("/")


def _client_id(value: Any) -> str:
    client_id = string(value).strip()
    if not client_id:
        raise Problem("must not be empty")
    # Basic auth joins id and secret with ':', so the id cannot hold one.
    if ":" in client_id or any(ch.isspace() for ch in client_id):
        raise Problem("must not contain ':' or whitespace")
    return client_id


def _secret_source(value: Any) -> SecretSource:
    if isinstance(value, SecretSource):
        return value
    if not isinstance(value, dict):
        raise Problem("Input should be a valid dictionary or instance of SecretSource")
    checked = Fields(value, ("kind", "ref"))
    kind = checked.take("kind", one_of(*_SECRET_KINDS))
    ref = checked.take("ref", string, "")
    checked.done()
    return SecretSource(kind=kind, ref=ref)  # which checks the ref for its kind


def _limits(value: Any) -> dict[str, str] | None:
    from tui.api.limits import LimitSyntaxError, parse_overrides

    table = table_of(string)(value)
    try:
        parse_overrides(table)
    except LimitSyntaxError as exc:
        raise Problem(str(exc)) from None
    return table or None


_PROFILE_FIELDS = (
    "name",
    "environment",
    "base_url",
    "client_id",
    "secret",
    "default_account",
    "readonly",
    "stuck_after_minutes",
    "limits",
)


def checked_profile(data: Mapping[str, Any]) -> Profile:
    """A Profile from its settings; Invalid names every problem."""
    checked = Fields(data, _PROFILE_FIELDS)
    profile = Profile(
        name=checked.take("name", _profile_name),
        environment=checked.take("environment", one_of(*ENVIRONMENTS)),
        base_url=checked.take("base_url", _base_url),
        client_id=checked.take("client_id", _client_id),
        secret=checked.take("secret", _secret_source),
        default_account=checked.take("default_account", optional(whole_number(0)), None),
        readonly=checked.take("readonly", boolean, False),
        stuck_after_minutes=checked.take("stuck_after_minutes", optional(whole_number(1)), None),
        limits=checked.take("limits", optional(_limits), None),
    )
    checked.done()
    return profile


def _database_url(value: Any) -> str:
    from urllib.parse import urlsplit

    url = string(value).strip()
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError as exc:
        raise Problem(f"not a URL ({exc})") from None
    if parts.scheme not in ("postgresql", "postgres") or not parts.hostname:
        raise Problem("must be a postgresql:// URL with a host, e.g. postgresql://giftdesk@db.example.com/giftdesk")
    if password is not None:
        raise Problem(
            "holds a password: remove it from the URL and name its source instead, "
            'e.g. password = { kind = "env", ref = "GIFTDESK_DATABASE_PASSWORD" }'
        )
    return url


def _team_password(value: Any) -> SecretSource:
    source = _secret_source(value)
    if source.kind not in FILE_SECRET_KINDS:
        raise Problem(f"kind must be one of {', '.join(FILE_SECRET_KINDS)}")
    return source


def _team_settings(value: Any) -> TeamSettings:
    if not isinstance(value, dict):
        raise Problem("[team] must be a table")
    checked = Fields(value, ("database_url", "password"))
    team = TeamSettings(
        database_url=checked.take("database_url", _database_url),
        password=checked.take("password", optional(_team_password), None),
    )
    checked.done()
    return team


def checked_config(profiles: dict[str, Profile], settings: Mapping[str, Any]) -> Config:
    checked = Fields(settings, ("current", *LOOK_SETTINGS, "user", "team"))
    config = Config(
        profiles=profiles,
        current=checked.take("current", optional(string), None),
        theme=checked.take("theme", optional(string), None),
        palette=checked.take("palette", one_of(*_PALETTES), "standard"),
        keymap=checked.take("keymap", table_of(string), {}),
        user=checked.take("user", optional(string), None),
        team=checked.take("team", optional(_team_settings), None),
    )
    checked.done()
    for key, profile in config.profiles.items():
        if key != profile.name:
            raise Invalid([("", f"profile stored as {key!r} is named {profile.name!r}")])
    if config.current is not None and config.current not in config.profiles:
        raise Invalid([("", f"current = {config.current!r} names no profile")])
    return config


def settings_by_name(source: Any, *, changed_only: bool = False) -> dict[str, Any]:
    """A profile's (or secret source's) settings by name; `changed_only`: without None and defaults."""
    settings = {}
    for setting in dataclasses.fields(source):
        if not setting.init:
            continue
        value = getattr(source, setting.name)
        if isinstance(value, SecretSource):
            value = settings_by_name(value, changed_only=changed_only)
        if changed_only and (value is None or value == setting.default):
            continue
        settings[setting.name] = value
    return settings


# --- team mode --------------------------------------------------------------------------


def team_settings(config: Config, environ: Mapping[str, str] = os.environ) -> TeamSettings | None:
    """Team mode's settings: GIFTDESK_DATABASE_URL (with [team]'s password source) else [team]; None: local."""
    url = environ.get(DATABASE_URL_VARIABLE, "").strip()
    if not url:
        return config.team
    # A URL in the environment may carry its password (as libpq's do): only the file may not.
    if not url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(
            f"{DATABASE_URL_VARIABLE} must be a postgresql:// URL, e.g. postgresql://giftdesk@db.example.com/giftdesk"
        )
    return TeamSettings(database_url=url, password=config.team.password if config.team else None)


def team_user(config: Config) -> str:
    """Who this engineer is in the team's records: the config's `user`, else the OS user."""
    if config.user:
        return config.user
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no name for this uid (a container): say so rather than guess
        return f"uid {os.getuid()}"
