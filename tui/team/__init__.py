"""Team mode: the shared stores on PostgreSQL (psycopg 3), behind the same interfaces as the local SQLite ones.

On when `[team] database_url` is in the config or GIFTDESK_DATABASE_URL is set
(`tui.local.config.team_settings`); without it, nothing here is imported. No Textual.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tui.local.config import Config, team_settings, team_user
from tui.local.config_file import ProfileStore
from tui.local.secret_sources import resolve_team_password
from tui.team.database import TeamDatabase

if TYPE_CHECKING:
    from tui.team.link import TeamLink
    from tui.team.mode import TeamMode


def team_database(config: Config | None = None, environ: Mapping[str, str] = os.environ) -> TeamDatabase | None:
    """The team database the config (or GIFTDESK_DATABASE_URL) names, its password fetched; None: local mode."""
    settings = team_settings(config if config is not None else ProfileStore().load(), environ)
    if settings is None:
        return None
    return TeamDatabase(settings.database_url, resolve_team_password(settings, environ))


def open_team_link(config: Config | None = None, environ: Mapping[str, str] = os.environ) -> TeamLink | None:
    """A link to the team database (who is its login; the config's `user`, else the OS user, a display name only);
    None: local mode."""
    from tui.team.link import TeamLink

    config = config if config is not None else ProfileStore().load()
    database = team_database(config, environ)
    return None if database is None else TeamLink(database, user=team_user(config))


def open_team_mode(config: Config | None = None, environ: Mapping[str, str] = os.environ) -> TeamMode | None:
    """Team mode for this process (`giftdesk listen`, `giftdesk inbox`): its link and stores; None: local mode."""
    from tui.team.mode import TeamMode

    config = config if config is not None else ProfileStore().load()
    database = team_database(config, environ)
    return None if database is None else TeamMode(database, user=team_user(config))
