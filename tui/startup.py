"""The start of the TUI apart from its frame: the settings it is started with (tui.app_settings), read from the
config or the demo's, `open_tui` (the door of the command line and of tui.launch's plain start) and `run_tui`. Cheap to
import: Textual and the app come in only when `run_tui` builds the app (tui.app), and no click: the plain start
(`giftdesk`, `giftdesk --demo`) loads no parser."""

from __future__ import annotations

import gc
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
    from tui.local.kept_styles_file import kept_styles_path
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
            kept_styles=kept_styles_path(),
        )
        with suppress(ConfigError):  # the demo keeps the user's look and keys; its profiles are its own
            _take_look(settings, ProfileStore().load())
        if team_database is not None:  # --demo --team
            from tui.local.config import Config, team_user
            from tui.team.mode import TeamMode

            settings.team = TeamMode(team_database, user=team_user(Config(user=settings.user)), demo=True)
        return settings
    store = ProfileStore()
    settings = AppSettings(store=store, readonly=readonly, order=order, kept_styles=kept_styles_path())
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


def open_tui(
    profile: str | None = None,
    *,
    demo: bool = False,
    team: bool = False,
    readonly: bool = False,
    order: str | None = None,
    debug: bool = False,
) -> int:
    """The TUI as the command line's options ask for it (checked already); the exit status."""
    # The start allocates a great deal and keeps nearly all of it: the collector would run ~230
    # times (a fifth of the way to the first rows) for little. The app resumes it (tui/app.py).
    gc.disable()
    try:
        if team:
            return _open_team_demo(readonly=readonly, order=order, debug=debug)
        return _open(profile, demo=demo, readonly=readonly, order=order, debug=debug)
    finally:
        gc.enable()


def _open(profile: str | None, *, demo: bool, readonly: bool, order: str | None, debug: bool) -> int:
    from tui.local.config import ConfigError
    from tui.local.profile_variable import profile_name

    backend = None
    profile = profile_name(profile, demo)
    if demo:  # first thing: the simulator's process starts while Textual loads (tui/demo.py), unless the first
        # frame needs no service: then when the catalog asks for its live page, after that frame
        from tui.demo import DemoBackend, draws_a_kept_page

        backend = DemoBackend.start(now=not draws_a_kept_page(profile or DemoBackend.default_profile_name))
    try:
        return run_tui(profile_name=profile, demo=demo, readonly=readonly, order=order, debug=debug, backend=backend)
    except ConfigError as error:  # e.g. an unknown --profile: said plainly, before any screen
        from tui.commands.output import EXIT_BAD_INPUT, fail

        fail(str(error), EXIT_BAD_INPUT)


def _open_team_demo(*, readonly: bool, order: str | None, debug: bool) -> int:
    """--demo --team: the demo with its own team database, said on stderr so a second demo can join it."""
    from tui.commands.output import EXIT_UNAVAILABLE, fail, say
    from tui.demo import DemoBackend
    from tui.team.database import TeamDatabaseError
    from tui.team.demo import demo_team_database

    backend = DemoBackend.start()
    try:
        with demo_team_database() as database:
            say(
                f"team database: {database.shown} (GIFTDESK_DATABASE_URL={database.shown} giftdesk --demo --team joins it)"
            )
            return run_tui(
                demo=True, readonly=readonly, order=order, debug=debug, backend=backend, team_database=database
            )
    except TeamDatabaseError as error:
        backend.stop()
        fail(str(error), EXIT_UNAVAILABLE)
