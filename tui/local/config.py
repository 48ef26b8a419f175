"""Profiles: what they hold, where the secret comes from, and the TOML file they live in.

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
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tui.api.redact import Secret, register_secret
from tui.local.fileio import atomic_write, config_path
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
KEYRING_SERVICE = "giftdesk"
SECRET_COMMAND_TIMEOUT = 15.0  # seconds; a password manager asking for a PIN is slow, not stuck
CONFIG_VERSION = 1

_SECRET_KINDS: tuple[str, ...] = ("keyring", "env", "command", "inline-demo")
_FILE_SECRET_KINDS = _SECRET_KINDS[:3]
_PALETTES: tuple[str, ...] = ("standard", "colour-blind")
_LOOK_SETTINGS = ("theme", "palette", "keymap")  # top-level settings of the TUI's look and keys
DATABASE_URL_VARIABLE = "GIFTDESK_DATABASE_URL"  # turns team mode on, like [team] database_url
TEAM_KEYRING_USER = "team-database"  # the keyring's user name for the team database's password by default
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
        return _settings(self)


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


def _checked_profile(data: Mapping[str, Any]) -> Profile:
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
    if source.kind not in _FILE_SECRET_KINDS:
        raise Problem(f"kind must be one of {', '.join(_FILE_SECRET_KINDS)}")
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


def _checked_config(profiles: dict[str, Profile], settings: Mapping[str, Any]) -> Config:
    checked = Fields(settings, ("current", *_LOOK_SETTINGS, "user", "team"))
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


def _settings(source: Any, *, changed_only: bool = False) -> dict[str, Any]:
    """A profile's (or secret source's) settings by name; `changed_only`: without None and defaults."""
    settings = {}
    for setting in dataclasses.fields(source):
        if not setting.init:
            continue
        value = getattr(source, setting.name)
        if isinstance(value, SecretSource):
            value = _settings(value, changed_only=changed_only)
        if changed_only and (value is None or value == setting.default):
            continue
        settings[setting.name] = value
    return settings


def make_profile(**fields: Any) -> Profile:
    """Builds a Profile, turning a failed check into a ConfigError that reads well."""
    try:
        return _checked_profile(fields)
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


# --- secrets ----------------------------------------------------------------------------


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


def resolve_team_password(team: TeamSettings, environ: Mapping[str, str] = os.environ) -> Secret | None:
    """The team database's password from its source (registered with the redaction), or None (libpq's own)."""
    if team.password is None:
        return None
    secret = _fetch_from("[team] password", team.password, TEAM_KEYRING_USER, environ)
    register_secret(secret)
    return secret


def team_user(config: Config) -> str:
    """Who this engineer is in the team's records: the config's `user`, else the OS user."""
    if config.user:
        return config.user
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no name for this uid (a container): say so rather than guess
        return f"uid {os.getuid()}"


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


# --- the config file --------------------------------------------------------------------


class ProfileStore:
    """The profiles file (TOML). Writes are atomic, mode 0600.

    After a failed load the store refuses to save (unless forced), and it never
    saves over a file it cannot read: a corrupt config is the user's to fix, not ours to erase.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else config_path()
        self._last_load_failed = False

    def load(self) -> Config:
        try:
            config = self._read()
        except ConfigError:
            self._last_load_failed = True
            raise
        self._last_load_failed = False
        return config

    def save(self, config: Config, *, force: bool = False) -> None:
        demo = [name for name, p in config.profiles.items() if p.is_demo]
        if demo:
            raise ConfigError(f"demo profiles are never saved: {', '.join(demo)}")
        if not force:
            self._refuse_overwriting_unreadable()
        atomic_write(self.path, _to_toml(config, self._previous_text()))

    def add(self, profile: Profile) -> Config:
        return self._change(lambda config: config.with_profile(profile))

    def update(self, name: str, /, **changes: Any) -> Config:
        return self._change(
            lambda config: config.with_profile(updated_profile(config.get(name), **changes), replace=True)
        )

    def remove(self, name: str) -> Config:
        return self._change(lambda config: config.without_profile(name))

    def use(self, name: str) -> Config:
        return self._change(lambda config: config.using(name))

    def _change(self, change: Callable[[Config], Config]) -> Config:
        config = change(self.load())
        self.save(config)
        return config

    def _previous_text(self) -> str | None:
        """The file as it is now, to be edited rather than replaced; None when there is none to keep."""
        try:
            return self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def _refuse_overwriting_unreadable(self) -> None:
        if self._last_load_failed:
            raise ConfigError(f"{self.path}: not saved, because loading it failed; fix or move the file first")
        if self.path.exists():
            try:
                self._read()
            except ConfigError as exc:
                raise ConfigError(f"{exc}; not overwritten, fix or move the file first") from None

    def _read(self) -> Config:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return Config()
        except OSError as exc:
            raise ConfigError(f"{self.path}: cannot read it ({exc.strerror})") from None
        import tomllib  # only with a file to read: the demo and a first run have none

        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise ConfigError(f"{self.path}: not UTF-8 text") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{self.path}: not valid TOML ({exc})") from None
        try:
            return _from_toml(data)
        except ValueError as exc:  # tui.local.validation's Invalid included
            raise ConfigError(f"{self.path}: {exc}") from None


def _from_toml(data: dict[str, Any]) -> Config:
    unknown = set(data) - {"version", "current", "profiles", *_LOOK_SETTINGS, "user", "team"}
    if unknown:
        raise ValueError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    version = data.get("version", CONFIG_VERSION)
    if version != CONFIG_VERSION:
        raise ValueError(f"version {version!r} is not one this giftdesk reads ({CONFIG_VERSION})")
    tables = data.get("profiles", {})
    if not isinstance(tables, dict):
        raise ValueError("[profiles] must be a table")
    profiles = {}
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise ValueError(f"profiles.{name} must be a table")
        if "name" in table:
            raise ValueError(f"profiles.{name}: the name is the table's key, not a setting")
        secret = table.get("secret")
        if isinstance(secret, dict) and secret.get("kind") not in _FILE_SECRET_KINDS:
            raise ValueError(f"profiles.{name}.secret.kind must be one of {', '.join(_FILE_SECRET_KINDS)}")
        try:
            profiles[name] = _checked_profile({**table, "name": name})
        except Invalid as exc:
            raise ValueError(f"profiles.{name}: {exc}") from None
    return _checked_config(
        profiles, {key: data[key] for key in ("current", *_LOOK_SETTINGS, "user", "team") if key in data}
    )


def _to_toml(config: Config, previous: str | None = None) -> bytes:
    """The config as TOML. Given the file's `previous` text, it is edited in place with tomlkit:
    the user's comments, order and layout stay, only what changed is rewritten."""
    import tomlkit  # only the writers need it
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(previous) if previous else tomlkit.document()
    except TOMLKitError:  # a forced save over a broken file starts afresh
        document = tomlkit.document()
    _set(document, "version", CONFIG_VERSION)
    if config.current is None:
        document.pop("current", None)
    else:
        _set(document, "current", config.current)
    if "profiles" not in document:
        document["profiles"] = tomlkit.table(is_super_table=True)
    tables = document["profiles"]
    for name, profile in config.profiles.items():
        # A setting left at its default is written only where the file already has it.
        explicit = _settings(profile, changed_only=True)
        del explicit["name"]
        if name in tables:
            every = {key: value for key, value in profile.as_dict().items() if key != "name" and value is not None}
            _merge(tables[name], every, explicit)
        else:
            tables[name] = explicit
    for name in [name for name in tables if name not in config.profiles]:
        document = tomlkit.parse(_without_table(document, name))
    text = tomlkit.dumps(document)
    return (text if text.endswith("\n") else text + "\n").encode("utf-8")


def _merge(table: Any, wanted: dict[str, Any], explicit: dict[str, Any]) -> None:
    """Makes a tomlkit table hold `wanted`, touching only the keys that differ.

    A key the table lacks is added only when `explicit` has it (it differs from the default).
    """
    for key in [key for key in table if key not in wanted]:
        del table[key]
    for key, value in wanted.items():
        if key not in table and key not in explicit:
            continue
        if isinstance(value, dict) and isinstance(table.get(key), dict):
            _merge(table[key], value, explicit.get(key, {}))
        else:
            _set(table, key, value)


def _set(container: Any, key: str, value: Any) -> None:
    if container.get(key) != value:  # an unchanged value keeps its own formatting and comment
        container[key] = value


# tomlkit keeps the comment lines above a table header at the end of whatever comes before it.
# Removing a profile puts the comments above the *next* header back in their place and drops
# the removed profile's own; bodies are edited directly, so the result is dumped at once.
_TRIVIA = ("Comment", "Whitespace")


def _is_trivia(entry: tuple[Any, Any]) -> bool:
    return entry[0] is None and type(entry[1]).__name__ in _TRIVIA


def _last_body(table: Any) -> list[Any]:
    """The body whose end holds the comments above the next header: the last sub-table's, if any."""
    body: list[Any] = table.value.body
    keyed = [item for key, item in body if key is not None]
    if keyed and type(keyed[-1]).__name__ == "Table":
        return _last_body(keyed[-1])
    return body


def _cut_trivia_before(body: list[Any], end: int) -> list[Any]:
    start = end
    while start > 0 and _is_trivia(body[start - 1]):
        start -= 1
    cut = body[start:end]
    del body[start:end]
    return cut


def _without_table(document: Any, name: str) -> str:
    """The document's text without [profiles.NAME], every other comment where it was."""
    tables = document["profiles"]
    names = list(tables.keys())
    index = names.index(name)
    removed = tables[name]
    last = _last_body(removed)
    carried = _cut_trivia_before(last, len(last))  # the comments above the next header
    if index > 0:
        before = _last_body(tables[names[index - 1]])
        _cut_trivia_before(before, len(before))
        before.extend(carried)
    else:
        # The first profile's comments sit before [profiles] itself, or before the
        # `profiles` entry of the document when that table has no header of its own.
        parent, owner = (document.body, tables) if tables.is_super_table() else (tables.value.body, removed)
        position = next(i for i, (_, item) in enumerate(parent) if item is owner)
        _cut_trivia_before(parent, position)
        position = next(i for i, (_, item) in enumerate(parent) if item is owner)
        parent[position:position] = carried
    body = tables.value.body
    body[:] = [entry for entry in body if entry[1] is not removed]
    text: str = document.as_string()
    return text
