"""The team's operators: one database login each, in the operators' group role (DESIGN rule 13).

`giftdesk team operator add|remove NAME`, run by whoever runs the database (a
login that may create roles, usually the tables' owner), or printed for them
to run. Adding makes the login (or gives an existing one the group role) and
registers its signing key when one is given; without one, the operator's first
signed write registers its own (giftdesk_register_key, once). Removing takes
the group role away: the login can read and write nothing more, and its keys
stay, so the entries it signed still verify. No Textual.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

import psycopg

from tui.team.database import OPERATORS_ROLE, TeamDatabase, TeamDatabaseError, _said

_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


class BadOperator(ValueError):
    """A name or key that cannot be an operator's; the message says what can."""


def checked_name(name: str) -> str:
    if not _NAME.fullmatch(name) or name.startswith("pg_") or name == OPERATORS_ROLE:
        raise BadOperator(
            f"{name!r} cannot be an operator's login: use lower-case letters, digits and _ (at most 63, not "
            f"starting with a digit or pg_, not {OPERATORS_ROLE})"
        )
    return name


def checked_key(public_key: str) -> str:
    try:
        raw = base64.b64decode(public_key, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise BadOperator(
            "--public-key is an Ed25519 public key in base64 (44 characters): the operator's "
            "`giftdesk team key` prints theirs"
        )
    return public_key


def add_statements(name: str, public_key: str | None = None) -> list[str]:
    """The SQL that makes NAME an operator (names and key checked first: nothing here is quoted from outside)."""
    name = checked_name(name)
    statements = [
        f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{name}') THEN "
        f'CREATE ROLE "{name}" LOGIN; END IF; END $$',
        f'GRANT {OPERATORS_ROLE} TO "{name}"',
    ]
    if public_key is not None:
        statements.append(
            f"INSERT INTO operator_keys (role, public_key) VALUES ('{name}', '{checked_key(public_key)}')"
            " ON CONFLICT DO NOTHING"
        )
    return statements


def remove_statements(name: str) -> list[str]:
    return [f'REVOKE {OPERATORS_ROLE} FROM "{checked_name(name)}"']


def run(database: TeamDatabase, statements: list[str]) -> None:
    """The statements in one transaction, as the configured login."""
    with _said(database), database.connect() as connection, connection.transaction():
        for statement in statements:
            connection.execute(statement.encode())  # bytes: a literal statement, no placeholders


def rewrites_history(connection: psycopg.Connection[Any]) -> bool:
    """Whether this login owns the team's tables (or is a superuser): it can then rewrite them."""
    row = connection.execute(
        "SELECT r.rolsuper OR pg_has_role(session_user, t.tableowner, 'MEMBER') FROM pg_tables t"
        " JOIN pg_roles r ON r.rolname = session_user WHERE t.schemaname = current_schema() AND t.tablename = 'audit'"
    ).fetchone()
    return bool(row and row[0])


def is_operator(connection: psycopg.Connection[Any]) -> bool:
    row = connection.execute(
        "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = %s) AND pg_has_role(session_user, %s, 'MEMBER')",
        (OPERATORS_ROLE, OPERATORS_ROLE),
    ).fetchone()
    return bool(row and row[0])


def login_warnings(database: TeamDatabase) -> list[str]:
    """What `giftdesk team check` warns of about the login it connects as."""
    try:
        with _said(database), database.connect() as connection:
            owner, operator, login = (
                rewrites_history(connection),
                is_operator(connection),
                connection.execute("SELECT session_user").fetchone(),
            )
    except TeamDatabaseError:
        return []
    who = login[0] if login else "?"
    if owner:
        return [
            f"this login ({who}) owns the team's tables: this login can rewrite history. Use it only to run the "
            "database (`giftdesk team init`, `giftdesk team operator add NAME`); each operator connects with "
            "their own login (docs/team.md)"
        ]
    if not operator:
        return [f"this login ({who}) is not a giftdesk operator: ask for `giftdesk team operator add {who}`"]
    return []
