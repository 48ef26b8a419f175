"""The watch list on disk (real SQLite files in a temp dir): restart and resume, the schema
version, and payout weblinks never in clear in any column (tests/local/test_watchlist_tokens.py: sealed)."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest

from tui.local.database import DatabaseError
from tui.local.watchlist import FILE_NAME, MIGRATIONS, WatchList

CARD_CODE = "https://payout.example.test/redeem/Zm9vYmFyYmF6cXV4MTIzNDU2%3D"
TOKEN = "Zm9vYmFyYmF6cXV4MTIzNDU2%3D"


def test_items_survive_a_restart_with_their_status(tmp_path):
    path = tmp_path / "data" / FILE_NAME
    first = WatchList(path)
    order = first.add("sandbox", "order", "REQ-1")
    payout = first.add("sandbox", "payout", CARD_CODE)
    first.add("production", "order", "REQ-9")
    first.record(order.id, "Processing", False, "0 of 1 card sold")
    first.record(payout.id, "Unclaimed", True)
    first.close()

    again = WatchList(path)
    items = again.items("sandbox")
    assert [(i.kind, i.label, i.status, i.final) for i in items] == [
        ("order", "REQ-1", "Processing", False),
        ("payout", "****NDU2", "Unclaimed", True),
    ]
    assert items[1].reference == ""  # a final payout's token is not kept (test_watchlist_tokens.py)
    assert [i.reference for i in again.items("production")] == ["REQ-9"]
    assert len(again.items()) == 3


def test_changed_at_moves_only_on_a_change_and_removed_items_stay_removed(tmp_path):
    store = WatchList(tmp_path / FILE_NAME)
    item = store.add("p", "order", "REQ-2")
    first = store.record(item.id, "Created", False)
    assert first is not None and first.changed_at is not None
    same = store.record(item.id, "Created", False)
    assert same is not None and same.changed_at == first.changed_at
    store.remove(item.id)
    assert store.items("p") == []
    assert store.record(item.id, "Succeeded", True) is None  # a late answer does not bring it back
    back = store.add("p", "order", "REQ-2")
    assert back.id == item.id and store.items("p") == [back]
    assert store.add("p", "order", " REQ-2 ").id == item.id  # a known one is not added twice


def test_the_file_is_private_and_the_weblink_is_never_in_clear(tmp_path):
    path = tmp_path / "data" / FILE_NAME
    store = WatchList(path)
    item = store.add("p", "payout", CARD_CODE)
    store.record(item.id, "Pending", False)
    store.close()

    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert TOKEN not in repr(item) and "Zm9vYmFy" not in item.label and item.label.endswith("NDU2")
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT * FROM items").fetchall()
        names = [d[0] for d in db.execute("SELECT * FROM items").description]
    for row in rows:
        for name, value in zip(names, row, strict=True):
            assert "Zm9vYmFy" not in str(value), name


def test_schema_version_and_a_newer_file_is_refused(tmp_path):
    path = tmp_path / FILE_NAME
    WatchList(path).close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(DatabaseError, match="newer giftdesk"):
        WatchList(path)


def test_a_file_from_an_empty_schema_is_brought_up_to_date(tmp_path):
    path = tmp_path / FILE_NAME
    sqlite3.connect(path).close()  # version 0: e.g. created by hand, or by a crash before the first migration
    store = WatchList(path)
    assert store.add("p", "order", "REQ-3").status is None
