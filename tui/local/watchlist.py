"""The watch list on disk: orders and payouts followed until final, per profile (SQLite).

One file, `<data dir>/watchlist.sqlite3` (WAL, schema versioned, 0600 in a
0700 folder: `tui.local.database`), shared by the TUI and `giftdesk watch`.
A row keeps what is needed to look the item up again: an order's RequestId
(`reference`); a payout's weblink token is a secret (DESIGN rule 6), so its
row keeps a digest of it (`reference`, to find it by) and the token sealed
(`sealed`: Fernet, the key in the system keyring, tui.local.sealed), never
the token in clear; without a keyring the token is kept in memory for this
run only, and once the payout is final (or the item removed) it is dropped.
`label`, the masked form, is all that is ever shown, logged or exported.
Removed items keep their row (`removed_at`) so a late answer cannot bring
them back by accident; adding one again restores it. No Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tui.api.redact import mask_weblink
from tui.api.weblink import weblink_token
from tui.local.database import open_database, transaction
from tui.local.fileio import data_dir
from tui.local.sealed import Sealer, digest

FILE_NAME = "watchlist.sqlite3"

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE items (
        id INTEGER PRIMARY KEY,
        profile TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('order', 'payout')),
        reference TEXT NOT NULL,
        label TEXT NOT NULL,
        status TEXT,
        final INTEGER NOT NULL DEFAULT 0,
        detail TEXT NOT NULL DEFAULT '',
        added_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        changed_at TEXT,
        removed_at TEXT,
        UNIQUE (profile, kind, reference)
    );
    CREATE INDEX items_by_profile ON items (profile, removed_at);
    """,
    # A payout's token sealed beside a digest of it (tui.local.sealed); clear tokens of version 1 are sealed on opening.
    """
    ALTER TABLE items ADD COLUMN sealed TEXT;
    """,
)

NOT_KEPT = "weblink not kept (no system keyring, or final): paste it again to watch it"

_COLUMNS = (
    "id, profile, kind, reference, label, status, final, detail, added_at, updated_at, changed_at, removed_at, sealed"
)


class NotWatched(ValueError):
    """The watch list would not take an item (the team's: a payout, or the database away); the message says why."""


@dataclass(frozen=True)
class WatchedItem:
    id: int
    profile: str
    kind: str  # "order" | "payout"
    reference: str  # RequestId, or the weblink token ("" when not kept): never shown (use `label`)
    label: str  # what a person sees: the RequestId, or the masked weblink
    status: str | None
    final: bool
    detail: str
    added_at: str
    updated_at: str  # last look
    changed_at: str | None  # last change of status
    removed_at: str | None
    pinned_by: str = ""  # who pinned it (the team's watch list; "" on this machine's)

    def __repr__(self) -> str:  # the reference may be a secret: never in a traceback or a log
        return f"WatchedItem(id={self.id}, profile={self.profile!r}, kind={self.kind!r}, label={self.label!r}, status={self.status!r}, final={self.final})"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _is_digest(reference: str) -> bool:
    return reference.startswith("sha256:")


def reference_and_label(kind: str, pasted: str) -> tuple[str, str]:
    """What is stored to poll, and what is shown: a RequestId is both; a payout's token is masked."""
    text = pasted.strip()
    if kind == "payout":
        token = weblink_token(text)
        return token, mask_weblink(token)
    return text, text


class WatchList:
    """The items of every profile; each call is its own short transaction."""

    def __init__(self, path: Path | None = None, sealer: Sealer | None = None) -> None:
        self.path = path or data_dir() / FILE_NAME
        self._db = open_database(self.path, MIGRATIONS)
        # Every look that changes something is a commit: with WAL, NORMAL syncs at checkpoints only,
        # so the app's loop does not wait for the disk each time (a power cut may lose the last
        # statuses, which the next look finds again; the file stays whole).
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA secure_delete=ON")  # a token's old bytes are zeroed, not left in free pages
        self._sealer = sealer or Sealer()
        self._tokens: dict[int, str] = {}  # payout tokens of this run (item id -> token): the only clear copy
        self._seal_clear_tokens()

    def _seal_clear_tokens(self) -> None:
        """Tokens a version-1 file kept in clear: sealed (or dropped), then the WAL emptied of their old bytes."""
        rows = self._db.execute("SELECT id, reference FROM items WHERE kind = 'payout'").fetchall()
        clear = [(item_id, reference) for item_id, reference in rows if not _is_digest(reference)]
        if not clear:
            return
        with transaction(self._db):
            for item_id, token in clear:
                self._db.execute(
                    "UPDATE items SET reference = ?, sealed = ? WHERE id = ?",
                    (digest(token), self._sealer.seal(token), item_id),
                )
                self._tokens[item_id] = token
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        self._db.close()

    def add(self, profile: str, kind: str, pasted: str) -> WatchedItem:
        """Watch this RequestId or card code (again): a removed one comes back, a known one stays as it is."""
        token, label = reference_and_label(kind, pasted)
        reference, sealed = (digest(token), self._sealer.seal(token)) if kind == "payout" else (token, None)
        now = _now()
        with transaction(self._db):
            self._db.execute(
                "INSERT INTO items (profile, kind, reference, label, sealed, added_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (profile, kind, reference) DO UPDATE SET removed_at = NULL,"
                " sealed = CASE WHEN final THEN NULL ELSE excluded.sealed END,"
                " added_at = CASE WHEN removed_at IS NULL THEN added_at ELSE excluded.added_at END",
                (profile, kind, reference, label, sealed, now, now),
            )
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM items WHERE profile = ? AND kind = ? AND reference = ?",
                (profile, kind, reference),
            ).fetchone()
        item = self._item(row)
        if kind == "payout" and not item.final:
            self._tokens[item.id] = token
            item = self._item(row)
        return item

    def items(self, profile: str | None = None) -> list[WatchedItem]:
        """Items not removed, oldest first; one profile's, or every profile's."""
        where, args = (
            ("WHERE removed_at IS NULL AND profile = ?", (profile,))
            if profile is not None
            else ("WHERE removed_at IS NULL", ())
        )
        return [self._item(row) for row in self._db.execute(f"SELECT {_COLUMNS} FROM items {where} ORDER BY id", args)]

    def counts(self, profile: str, bad_statuses: frozenset[str]) -> tuple[int, int]:
        """(items not final, final items whose status, lower case, is in `bad_statuses`) of one profile."""
        marks = ", ".join("?" * len(bad_statuses))
        row = self._db.execute(
            f"SELECT COALESCE(SUM(final = 0), 0), COALESCE(SUM(final = 1 AND lower(status) IN ({marks})), 0)"
            " FROM items WHERE removed_at IS NULL AND profile = ?",
            (*sorted(bad_statuses), profile),
        ).fetchone()
        return int(row[0]), int(row[1])

    def get(self, item_id: int) -> WatchedItem | None:
        row = self._db.execute(f"SELECT {_COLUMNS} FROM items WHERE id = ?", (item_id,)).fetchone()
        return self._item(row) if row else None

    def record(self, item_id: int, status: str, final: bool, detail: str = "") -> WatchedItem | None:
        """A look's result; `changed_at` moves only when the status or finality changed. None if removed.
        A payout that is final no longer keeps its token."""
        now = _now()
        with transaction(self._db):
            self._db.execute(
                "UPDATE items SET changed_at = CASE WHEN status IS ? AND final = ? THEN changed_at ELSE ? END,"
                " status = ?, final = ?, detail = ?, updated_at = ?, sealed = CASE WHEN ? THEN NULL ELSE sealed END"
                " WHERE id = ? AND removed_at IS NULL",
                (status, int(final), now, status, int(final), detail, now, int(final), item_id),
            )
        if final:
            self._tokens.pop(item_id, None)
        item = self.get(item_id)
        return item if item is not None and item.removed_at is None else None

    def settle_order(
        self, profile: str, request_id: str, status: str, detail: str = "from the callback"
    ) -> WatchedItem | None:
        """An order's final status from outside (the receiver's callback): recorded on its item, if watched."""
        row = self._db.execute(
            "SELECT id FROM items WHERE profile = ? AND kind = 'order' AND reference = ? AND removed_at IS NULL",
            (profile, request_id.strip()),
        ).fetchone()
        return self.record(row[0], status, True, detail) if row else None

    def remove(self, item_id: int) -> None:
        """Stop watching it; a payout's token is dropped (adding it again takes the weblink again)."""
        with transaction(self._db):
            self._db.execute(
                "UPDATE items SET removed_at = ?, sealed = NULL WHERE id = ? AND removed_at IS NULL", (_now(), item_id)
            )
        self._tokens.pop(item_id, None)

    def _item(self, row: Any) -> WatchedItem:
        (item_id, profile, kind, reference, label, status, final, detail, added, updated, changed, removed, sealed) = (
            row
        )
        if kind == "payout":  # the token, when this run has it or can open its seal; else "" (not kept)
            token = self._tokens.get(item_id) or self._sealer.open(sealed)
            if token is not None:
                self._tokens[item_id] = token
            reference = token or ""
            if not reference and not final and not detail:
                detail = NOT_KEPT
        return WatchedItem(
            item_id, profile, kind, reference, label, status, bool(final), detail, added, updated, changed, removed
        )
