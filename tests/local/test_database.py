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
