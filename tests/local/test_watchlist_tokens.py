"""Payout weblink tokens pinned on the watch list (issue 24, item 10; DESIGN rule 6): sealed at rest with the
key in the system keyring, or not kept at all; dropped once the payout is final; never in clear in the
database file or its WAL (their raw bytes are read)."""

from __future__ import annotations

import sqlite3

import keyring
import keyring.backends.fail
import pytest

from tui.api.redact import mask_weblink
from tui.local.watchlist import FILE_NAME, MIGRATIONS, NOT_KEPT, WatchList

SECRET_PART = "c2VjcmV0LXdlYmxpbmstdG9rZW4tOTg3NjU0MzIx"
TOKEN = SECRET_PART + "%3D"
CARD_CODE = f"https://payouts.example.test/redeem/{TOKEN}"


def raw_bytes(path) -> bytes:
    """The database and its WAL as they lie on disk, read while the store is open."""
    return b"".join(part.read_bytes() for part in (path, path.with_name(path.name + "-wal")) if part.exists())


def assert_no_token_on_disk(path) -> None:
    assert SECRET_PART.encode() not in raw_bytes(path)


def test_a_token_is_sealed_at_rest_and_opens_after_a_restart(tmp_path, memory_keyring):
    path = tmp_path / FILE_NAME
    store = WatchList(path)
    item = store.add("sandbox", "payout", CARD_CODE)
    store.record(item.id, "Pending", False, "submitted")
    assert item.reference == TOKEN
    assert_no_token_on_disk(path)
    store.close()

    again = WatchList(path)
    [resumed] = again.items("sandbox")
    assert resumed.reference == TOKEN  # polled again after the restart
    assert_no_token_on_disk(path)


def test_a_final_payout_no_longer_keeps_its_token(tmp_path, memory_keyring):
    path = tmp_path / FILE_NAME
    store = WatchList(path)
    item = store.add("sandbox", "payout", CARD_CODE)
    store.record(item.id, "Completed", True)
    assert store.get(item.id).reference == ""
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT sealed FROM items WHERE id = ?", (item.id,)).fetchone() == (None,)
    store.close()
    [final] = WatchList(path).items("sandbox")
    assert (final.reference, final.status, final.final, final.label) == ("", "Completed", True, mask_weblink(TOKEN))


def test_a_removed_payout_no_longer_keeps_its_token(tmp_path, memory_keyring):
    path = tmp_path / FILE_NAME
    store = WatchList(path)
    item = store.add("sandbox", "payout", CARD_CODE)
    store.remove(item.id)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT sealed FROM items").fetchall() == [(None,)]


@pytest.fixture
def no_keyring():
    """A machine without a usable system keyring (keyring's own "fail" backend)."""
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield
    keyring.set_keyring(previous)


def test_without_a_keyring_the_token_lives_for_this_run_only(tmp_path, no_keyring):
    path = tmp_path / FILE_NAME
    store = WatchList(path)
    item = store.add("sandbox", "payout", CARD_CODE)
    assert store.get(item.id).reference == TOKEN  # this run still polls it
    assert_no_token_on_disk(path)
    store.close()

    [later] = WatchList(path).items("sandbox")
    assert later.reference == "" and later.detail == NOT_KEPT


def test_a_version_1_file_with_a_clear_token_is_sealed_on_opening(tmp_path, memory_keyring):
    path = tmp_path / FILE_NAME
    with sqlite3.connect(path) as db:
        db.executescript(MIGRATIONS[0])
        db.execute("PRAGMA user_version = 1")
        db.execute(
            "INSERT INTO items (profile, kind, reference, label, added_at, updated_at)"
            " VALUES ('sandbox', 'payout', ?, ?, '2026-01-01', '2026-01-01')",
            (TOKEN, mask_weblink(TOKEN)),
        )
    assert SECRET_PART.encode() in raw_bytes(path)

    store = WatchList(path)
    assert [item.reference for item in store.items("sandbox")] == [TOKEN]
    assert_no_token_on_disk(path)


@pytest.mark.parametrize("keyring_fixture", ["memory_keyring", "no_keyring"])
def test_adding_the_same_weblink_again_finds_its_row(tmp_path, request, keyring_fixture):
    request.getfixturevalue(keyring_fixture)
    store = WatchList(tmp_path / FILE_NAME)
    first = store.add("sandbox", "payout", CARD_CODE)
    second = store.add("sandbox", "payout", TOKEN)
    assert first.id == second.id and len(store.items("sandbox")) == 1
