"""Helpers of the team store's tests (tests/team): links to a team database as different operators.

Each operator connects with their own login (DESIGN rule 13): `operator_database` makes it one
(`giftdesk team operator add`'s SQL, run as the database's owner, the cluster's superuser) and
gives the database as that login sees it.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from tui.team.database import TeamDatabase
from tui.team.link import TeamLink
from tui.team.operators import add_statements, run


def as_login(database: TeamDatabase, login: str) -> TeamDatabase:
    """The same database, logged in as `login` (the throwaway cluster trusts loopback: no password)."""
    parts = urlsplit(database.url)
    return TeamDatabase(urlunsplit(parts._replace(netloc=f"{login}@{parts.netloc.rsplit('@', 1)[-1]}")))


def operator_database(owner: TeamDatabase, login: str, public_key: str | None = None) -> TeamDatabase:
    run(owner, add_statements(login, public_key))
    return as_login(owner, login)


def open_link(database: TeamDatabase, user: str = "ana", host: str = "desk-1") -> TeamLink:
    """A link as operator `user` (its own login, made if need be) to the database `database` owns."""
    return TeamLink(operator_database(database, user), user=user, host=host)
