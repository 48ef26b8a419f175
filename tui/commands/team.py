"""`giftdesk team init | check | operator add|remove NAME | key`: the team database's schema, whether it can be
used, and who may use it (one login per operator: docs/team.md).

Exit codes: 0 reachable and current (init: migrated); 2 team mode is not set up
(no `[team] database_url`, no GIFTDESK_DATABASE_URL) or its settings are wrong;
3 reachable but its schema is not this giftdesk's (`team init`, or upgrade);
4 the database refused the login, or it is no operator's (`team operator add`);
5 it could not be reached. `team check` warns (exit 0) when the login owns the
tables: "this login can rewrite history".
"""

from __future__ import annotations

import click

from tui.commands.options import debug_option
from tui.commands.output import EXIT_AUTH, EXIT_BAD_INPUT, EXIT_REFUSED, EXIT_UNAVAILABLE, fail

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
    from tui.team.database import NotAnOperator, SchemaNotCurrent

    if isinstance(error, SchemaNotCurrent):
        fail(str(error), EXIT_REFUSED)
    if isinstance(error, NotAnOperator):
        fail(str(error), EXIT_AUTH, "or connect with your own operator's login (docs/team.md)")
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
    from tui.team.operators import login_warnings

    for warning in login_warnings(database):
        click.echo(f"warning: {warning}", err=True)


@command.group("operator")
def operator() -> None:
    """Give an operator their own login, or take it away.

    For whoever runs the team database. Each operator connects with their own login, in the operators' group role: the
    database stamps it on everything they write, and they can append but never
    change or remove. Run as a login that may create roles (the tables' owner), or
    print the SQL with --print-sql for whoever runs the database.

    \b
    Examples:
      giftdesk team operator add ana
      giftdesk team operator add ana --print-sql | psql "$OWNER_URL"
      giftdesk team operator remove ana
    """


_PRINT_SQL = click.option("--print-sql", is_flag=True, help="Print the SQL instead of running it.")


@operator.command("add")
@click.argument("name")
@click.option(
    "--public-key",
    metavar="KEY",
    help="The operator's signing key (their `giftdesk team key`); without it, their first signed write registers it.",
)
@_PRINT_SQL
@debug_option
def operator_add(name: str, public_key: str | None, print_sql: bool) -> None:
    """Make NAME an operator, with its own login and signing key.

    The login joins the operators' group role; its key is registered for it.

    \b
    Examples:
      giftdesk team operator add ana
      giftdesk team operator add bo --public-key 3q2+7w...=
    """
    from tui.team.operators import BadOperator, add_statements

    try:
        statements = add_statements(name, public_key)
    except BadOperator as error:
        fail(str(error), EXIT_BAD_INPUT)
    _run_or_print(statements, print_sql, f"{name} is an operator of the team database {{shown}}")
    if not print_sql:
        click.echo(f"give it a password (psql: \\password {name}) or another way to log in; its URL names it as user")


@operator.command("remove")
@click.argument("name")
@_PRINT_SQL
@debug_option
def operator_remove(name: str, print_sql: bool) -> None:
    """Take the operators' group role from NAME.

    It can read and write nothing more; what it signed still verifies.

    \b
    Examples:
      giftdesk team operator remove ana
      giftdesk team operator remove ana --print-sql | psql "$OWNER_URL"
    """
    from tui.team.operators import BadOperator, remove_statements

    try:
        statements = remove_statements(name)
    except BadOperator as error:
        fail(str(error), EXIT_BAD_INPUT)
    _run_or_print(statements, print_sql, f"{name} is no longer an operator of the team database {{shown}}")


def _run_or_print(statements: list[str], print_sql: bool, done: str) -> None:
    if print_sql:
        for statement in statements:
            click.echo(f"{statement};")
        return
    from tui.team.database import TeamDatabaseError
    from tui.team.operators import run

    database = _database()
    try:
        run(database, statements)
    except TeamDatabaseError as error:
        if "permission denied" in str(error) or "must be" in str(error):
            said = str(error).splitlines()[0]  # not PL/pgSQL's CONTEXT lines
            fail(said, EXIT_REFUSED, "run it as the login that runs the database, or use --print-sql")
        _failed(error)
        return
    click.echo(done.format(shown=database.shown))


@command.command("key")
@debug_option
def key() -> None:
    """Print this operator's public signing key.

    It is made on first use and kept in the system keyring. Whoever runs the
    database registers it: `giftdesk team operator add NAME --public-key KEY`.

    \b
    Examples:
      giftdesk team key
      giftdesk team key > ana.key
    """
    from tui.team import open_team_link
    from tui.team.database import TeamDatabaseError
    from tui.team.signing import Signer

    link = open_team_link()
    if link is None:
        fail(NOT_SET_UP, EXIT_BAD_INPUT, "see docs/team.md")
    try:
        click.echo(Signer(link.login).public_key)
    except TeamDatabaseError as error:
        _failed(error)
    except OSError as error:  # no keyring
        fail(str(error), EXIT_BAD_INPUT)
    finally:
        link.close()
