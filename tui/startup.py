"""The start of the TUI apart from its frame: the settings it is started with, read from the config (or the
demo's), and the cyclic collector paused for the start. Cheap to import: Textual and the app come in only when
`run_tui` builds the app (tui.app), so the command line loads nothing here it would not load anyway."""

from __future__ import annotations

import gc
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.demo import DemoBackend
    from tui.local.config import Config, Profile
    from tui.local.config_file import ProfileStore
    from tui.team.database import TeamDatabase
    from tui.team.mode import TeamMode


# The command line starts the TUI with the cyclic collector off: it resumes after the start screen's first
# content, or this long after mounting at the latest (a loaded machine's first rows came after 3 s, and the
# collection, ~0.3 s there, came before them).
START_COLLECTOR_PAUSE_SECONDS = 10.0


@dataclass
class AppSettings:
    """Everything the app is started with; tests build their own."""

    store: ProfileStore | None = None  # None in the demo: its profiles live in memory only
    profiles: dict[str, Profile] = field(default_factory=dict)
    profile_name: str | None = None
    readonly: bool = False
    order: str | None = None
    demo: DemoBackend | None = None
    client_options: dict[str, Any] = field(default_factory=dict)  # e.g. retry=RetryPolicy(...) in tests
    config_problem: str | None = None  # a config that could not be read: shown, never overwritten
    # The config's look and keys (docs/decisions.md, issue 17): sandbox theme, status palette, keymap.
    theme: str | None = None
    palette: str = "standard"
    keymap: dict[str, str] = field(default_factory=dict)
    user: str | None = None  # who signs notes (the config's `user`, else the OS user)
    team: TeamMode | None = None  # team mode: the shared stores (tui.team); None: this machine's


def resume_collector() -> None:
    """Collect what the start left, keep the rest out of every later full collection, and go on collecting
    (once: the collector on means it was resumed, or never paused)."""
    if gc.isenabled():
        return
    gc.collect()
    gc.freeze()  # modules, styles, widgets: what the start made lives as long as the app
    gc.enable()


def load_settings(
    profile_name: str | None,
    *,
    demo: bool,
    readonly: bool,
    order: str | None,
    backend: DemoBackend | None = None,
    team_database: TeamDatabase | None = None,
) -> AppSettings:
    """Settings for a real run. A config that cannot be read is reported, not replaced.

    `backend`: the demo's simulator when the caller started it already (the command line does, first thing).
    """
    from tui.local.config import ConfigError
    from tui.local.config_file import ProfileStore
    from tui.local.profiles import profile_from_env

    if demo:
        if backend is None:
            from tui.demo import DemoBackend

            backend = DemoBackend.start()
        settings = AppSettings(
            profiles=backend.profiles(),
            profile_name=profile_name or backend.default_profile_name,
            readonly=readonly,
            order=order,
            demo=backend,
        )
        with suppress(ConfigError):  # the demo keeps the user's look and keys; its profiles are its own
            _take_look(settings, ProfileStore().load())
        if team_database is not None:  # --demo --team
            from tui.local.config import Config, team_user
            from tui.team.mode import TeamMode

            settings.team = TeamMode(team_database, user=team_user(Config(user=settings.user)), demo=True)
        return settings
    store = ProfileStore()
    settings = AppSettings(store=store, readonly=readonly, order=order)
    try:
        config = store.load()
        settings.profiles = dict(config.profiles)
        settings.profile_name = config.current
        _take_look(settings, config)
        env_profile = profile_from_env()
    except ConfigError as error:
        settings.config_problem = str(error)
        return settings
    if env_profile is not None:
        settings.profiles[env_profile.name] = env_profile
        settings.profile_name = env_profile.name
    if profile_name is not None:
        if profile_name not in settings.profiles:
            raise ConfigError(
                f"no profile named {profile_name!r}; known: {', '.join(settings.profiles) or 'none'} (see `giftdesk profiles list`)"
            )
        settings.profile_name = profile_name
    settings.team = _team_mode(config)
    return settings


def _team_mode(config: Config) -> TeamMode | None:
    """Team mode when the config or GIFTDESK_DATABASE_URL names a database (a wrong setting: ConfigError)."""
    from tui.local.config import team_settings

    if team_settings(config) is None:
        return None  # psycopg is not even imported
    from tui.local.config import team_user
    from tui.team import team_database
    from tui.team.mode import TeamMode

    database = team_database(config)
    assert database is not None
    return TeamMode(database, user=team_user(config))


def _take_look(settings: AppSettings, config: Config) -> None:
    settings.theme, settings.palette, settings.keymap = config.theme, config.palette, dict(config.keymap)
    settings.user = config.user


def run_tui(
    profile_name: str | None = None,
    *,
    demo: bool = False,
    readonly: bool = False,
    order: str | None = None,
    debug: bool = False,
    backend: DemoBackend | None = None,
    team_database: TeamDatabase | None = None,
) -> int:
    """Run the TUI; the exit status: 0, or 1 when an unexpected error stopped it."""
    from tui.local.logs import setup_logging

    setup_logging(debug=debug)
    settings = load_settings(
        profile_name, demo=demo, readonly=readonly, order=order, backend=backend, team_database=team_database
    )
    from tui.app import build_app  # Textual only now, after the settings read

    try:
        app = build_app(settings)
        app.run()
        return app.return_code or 0
    finally:
        if settings.team is not None:
            settings.team.close()
        if settings.demo is not None:
            settings.demo.stop()
