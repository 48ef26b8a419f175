"""`giftdesk team init | check`: the team database's schema, and whether it can be used.

Exit codes: 0 reachable and current (init: migrated); 2 team mode is not set up
(no `[team] database_url`, no GIFTDESK_DATABASE_URL) or its settings are wrong;
3 reachable but its schema is not this giftdesk's (`team init`, or upgrade);
4 the database refused the login; 5 it could not be reached.
"""

from __future__ import annotations

import click

from tui.commands.common import EXIT_AUTH, EXIT_BAD_INPUT, EXIT_REFUSED, EXIT_UNAVAILABLE, debug_option, fail

NOT_SET_UP = (
    'team mode is not set up: add `[team] database_url = "postgresql://USER@HOST/DB"` to the config, '
    "or set GIFTDESK_DATABASE_URL"
)


def _database():  # -> TeamDatabase
    from tui.local.config import ConfigError
    from tui.team import team_database

    try:
        database = team_database()
    except ConfigError as error:
        fail(str(error), EXIT_BAD_INPUT)
    if database is None:
        fail(NOT_SET_UP, EXIT_BAD_INPUT, "see docs/team.md")
    return database


def _failed(error: Exception) -> None:
    from tui.team.database import SchemaNotCurrent

    if isinstance(error, SchemaNotCurrent):
        fail(str(error), EXIT_REFUSED)
    if "authentication failed" in str(error) or "no password supplied" in str(error):
        fail(str(error), EXIT_AUTH, "check the user in the URL and [team] password's source")
    fail(str(error), EXIT_UNAVAILABLE, "is the server up, and the host and port right?")


@click.group("team")
def command() -> None:
    """Set up and check the team database (team mode: docs/team.md).

    \b
    Examples:
      giftdesk team init
      GIFTDESK_DATABASE_URL=postgresql://giftdesk@db/giftdesk giftdesk team check
    """


@command.command("init")
@debug_option
def init() -> None:
    """Create or migrate the team database's schema.

    Each migration runs in its own transaction; running it twice, or from two
    machines at once, does no harm.

    \b
    Examples:
      giftdesk team init
      GIFTDESK_DATABASE_URL=postgresql://giftdesk@db/giftdesk giftdesk team init
    """
    from tui.team.database import TeamDatabaseError, migrate

    database = _database()
    try:
        before, after = migrate(database)
    except TeamDatabaseError as error:
        _failed(error)
        return
    if before == after:
        click.echo(f"team database {database.shown}: schema {after}, already current")
    else:
        click.echo(f"team database {database.shown}: schema {before} -> {after}")


@command.command("check")
@debug_option
def check() -> None:
    """Say whether the team database is reachable and current.

    Exit 0 when both; 3 when its schema needs `giftdesk team init` (or a newer
    giftdesk); 4 when it refused the login; 5 when it could not be reached.

    \b
    Examples:
      giftdesk team check
      giftdesk team check || giftdesk team init
    """
    from tui.team.database import TeamDatabaseError
    from tui.team.database import check as check_database

    database = _database()
    try:
        version = check_database(database)
    except TeamDatabaseError as error:
        _failed(error)
        return
    click.echo(f"team database {database.shown}: reachable, schema {version} (current)")
