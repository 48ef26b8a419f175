"""SQLite databases giftdesk keeps (watch list, catalog mirror): one way to open them.

WAL so a reader (the TUI) and a writer (a CLI command) do not block each
other; the schema version in `PRAGMA user_version`, raised one forward
migration at a time, each in its own transaction, so a crash mid-migration
leaves the previous version whole. Files are private (0600 in a 0700 folder).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from tui.local.fileio import NotPrivateFile, ensure_private_file


class DatabaseError(Exception):
    """A database giftdesk cannot use; the message says which file and what to do."""


def open_database(path: Path, migrations: Sequence[str], *, check_same_thread: bool = True) -> sqlite3.Connection:
    """Open (creating if needed) `path` and bring its schema up to `len(migrations)`.

    `migrations[i]` is the SQL script that takes the schema from version i to
    i + 1. A file from a newer giftdesk (a higher version) is refused, not
    guessed at. `check_same_thread=False` lets one thread at a time other than
    the opener's use it (the caller serialises).
    """
    try:
        ensure_private_file(path)  # created private before SQLite writes anything into it; never a symlink
    except NotPrivateFile as error:
        raise DatabaseError(str(error)) from None
    try:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=check_same_thread)
        use_wal(connection)
        connection.execute("PRAGMA foreign_keys=ON")
        connection.execute("PRAGMA busy_timeout=5000")
        _migrate(connection, migrations, path)
    except sqlite3.DatabaseError as error:
        raise DatabaseError(f"{path}: {error}. {what_to_do(error, path)}") from error
    return connection


WAL_WAIT_SECONDS = 10.0  # another process's open of the same new file takes milliseconds


def use_wal(connection: sqlite3.Connection, wait_seconds: float = WAL_WAIT_SECONDS) -> None:
    """PRAGMA journal_mode=WAL, waited for: while another connection opens the same new file (two
    shells' loops starting together), SQLite refuses the change at once, busy timeout or not."""
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if failure_kind(error) != "locked" or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


# SQLite's primary result codes (the low byte of an extended one) that giftdesk tells apart.
_KINDS = {
    sqlite3.SQLITE_BUSY: "locked",
    sqlite3.SQLITE_LOCKED: "locked",
    sqlite3.SQLITE_FULL: "full",
    sqlite3.SQLITE_READONLY: "readonly",
    sqlite3.SQLITE_PERM: "readonly",
}
# Only a file that is not a database (or a broken one) is worth moving aside: the others are good files.
_OPEN_HINTS = {
    "locked": "Another giftdesk is writing it; try again when it is done.",
    "full": "The disk is full; free some space and try again.",
    "readonly": "It cannot be written here; make the file and its folder writable and try again.",
    "database": "Move the file aside and giftdesk will start a new one.",
}


def failure_kind(error: BaseException) -> str:
    """What kind of SQLite failure `error` is (or wraps): "locked", "full", "readonly" or "database"."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None and isinstance(error.__cause__, sqlite3.Error):  # a DatabaseError raised by open_database
        code = getattr(error.__cause__, "sqlite_errorcode", None)
    return _KINDS.get((code or 0) & 0xFF, "database")


def what_to_do(error: BaseException, path: Path) -> str:
    """The hint for a database `error` on the file at `path`, true to its kind."""
    kind = failure_kind(error)
    # A read-only folder or file system is "unable to open" to SQLite, as a folder in the file's place is.
    if kind == "database" and path.is_file() and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        kind = "readonly"
    return _OPEN_HINTS[kind]


def _migrate(connection: sqlite3.Connection, migrations: Sequence[str], path: Path) -> None:
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version > len(migrations):
        connection.close()
        raise DatabaseError(
            f"{path} was written by a newer giftdesk (schema {version}, this one knows {len(migrations)}): upgrade giftdesk"
        )
    for number in range(version, len(migrations)):
        with transaction(connection):
            if connection.execute("PRAGMA user_version").fetchone()[0] > number:
                continue  # another process opening the same file took this step while this one waited
            for statement in _statements(migrations[number]):
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {number + 1}")


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (executescript would commit mid-way)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements


@contextlib.contextmanager
def transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error (autocommit connections)."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield connection
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
