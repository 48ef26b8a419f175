"""The config file: TOML read and written (a person's comments and order kept), never overwritten when it
cannot be read. No Textual."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui.local.config import (
    FILE_SECRET_KINDS,
    LOOK_SETTINGS,
    Config,
    ConfigError,
    Profile,
    checked_config,
    checked_profile,
    settings_by_name,
)
from tui.local.fileio import atomic_write, config_path
from tui.local.profiles import updated_profile
from tui.local.validation import Invalid

CONFIG_VERSION = 1


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
    unknown = set(data) - {"version", "current", "profiles", *LOOK_SETTINGS, "user", "team"}
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
        if isinstance(secret, dict) and secret.get("kind") not in FILE_SECRET_KINDS:
            raise ValueError(f"profiles.{name}.secret.kind must be one of {', '.join(FILE_SECRET_KINDS)}")
        try:
            profiles[name] = checked_profile({**table, "name": name})
        except Invalid as exc:
            raise ValueError(f"profiles.{name}: {exc}") from None
    return checked_config(
        profiles, {key: data[key] for key in ("current", *LOOK_SETTINGS, "user", "team") if key in data}
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
        explicit = settings_by_name(profile, changed_only=True)
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
