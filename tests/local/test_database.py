"""tui.local.database: private files, WAL, forward migrations that never leave half a schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tui.local.database import DatabaseError, open_database, transaction

V1 = "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
V2 = "ALTER TABLE item ADD COLUMN note TEXT;\nCREATE INDEX item_name ON item(name);"


def test_a_new_database_is_private_in_wal_mode_at_the_latest_version(tmp_path: Path):
    path = tmp_path / "private" / "watch.sqlite3"
    connection = open_database(path, [V1, V2])
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 2
    connection.execute("INSERT INTO item (name, note) VALUES ('a', 'b')")


def test_migrations_run_forward_from_the_stored_version_and_keep_the_rows(tmp_path: Path):
    path = tmp_path / "db.sqlite3"
    open_database(path, [V1]).execute("INSERT INTO item (name) VALUES ('kept')")
    connection = open_database(path, [V1, V2])
    assert connection.execute("SELECT name, note FROM item").fetchall() == [("kept", None)]


def test_a_failing_migration_leaves_the_previous_version_whole(tmp_path: Path):
    path = tmp_path / "db.sqlite3"
    open_database(path, [V1]).execute("INSERT INTO item (name) VALUES ('kept')")
    broken = "ALTER TABLE item ADD COLUMN note TEXT;\nCREATE TABLE item (x);"  # second statement fails
    with pytest.raises(DatabaseError, match="Move the file aside"):
        open_database(path, [V1, broken])
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 1
    assert [row[1] for row in connection.execute("PRAGMA table_info(item)")] == ["id", "name"]


def test_a_newer_schema_is_refused_with_what_to_do(tmp_path: Path):
    path = tmp_path / "db.sqlite3"
    open_database(path, [V1, V2])
    with pytest.raises(DatabaseError, match="newer giftdesk"):
        open_database(path, [V1])


def test_a_file_that_is_not_a_database_says_which_file(tmp_path: Path):
    path = tmp_path / "db.sqlite3"
    path.write_bytes(b"not a database at all, just some text" * 100)
    with pytest.raises(DatabaseError, match=str(path)):
        open_database(path, [V1])


def test_transaction_rolls_back_on_error(tmp_path: Path):
    connection = open_database(tmp_path / "db.sqlite3", [V1])
    with pytest.raises(RuntimeError), transaction(connection):
        connection.execute("INSERT INTO item (name) VALUES ('lost')")
        raise RuntimeError("interrupted")
    assert connection.execute("SELECT count(*) FROM item").fetchone()[0] == 0


def _new_schema_database(path: Path) -> sqlite3.Connection:
    return open_database(path, ["CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)"])


def _open_at_once(open_it, path: str, start: float) -> str:
    """In a process of its own: wait for the common start, open `path`, say how it went."""
    import time

    time.sleep(max(0.0, start - time.time()))
    try:
        open_it(Path(path)).close()
    except Exception as error:  # what the test reports
        return f"{type(error).__name__}: {error}"
    return "ok"


@pytest.mark.parametrize("opener", ["limiter", "migrated"])
def test_processes_opening_a_new_database_at_once_all_open_it(tmp_path: Path, opener: str):
    """Two shells' `for` loops start together on a new profile: turning a new file to WAL is refused
    at once (not waited for) while another connection does the same; each open waits its turn."""
    import time
    from concurrent.futures import ProcessPoolExecutor

    from tui.local.limit_store import SqliteLimitStore

    open_it = SqliteLimitStore if opener == "limiter" else _new_schema_database
    with ProcessPoolExecutor(6) as pool:
        for trial in range(6):
            path, start = tmp_path / f"new-{trial}.sqlite3", time.time() + 0.3
            outcomes = list(pool.map(_open_at_once, [open_it] * 6, [str(path)] * 6, [start] * 6))
            assert outcomes == ["ok"] * 6, outcomes
