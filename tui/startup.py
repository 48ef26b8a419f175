"""The start of the TUI apart from its frame: the settings it is started with (tui.app_settings), read from the
config or the demo's, and `run_tui`, the command line's door. Cheap to import: Textual and the app come in only when
`run_tui` builds the app (tui.app), so the command line loads nothing here it would not load anyway."""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING

from tui.app_settings import AppSettings

if TYPE_CHECKING:
    from tui.demo import DemoBackend
    from tui.local.config import Config
    from tui.team.database import TeamDatabase
    from tui.team.mode import TeamMode


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
