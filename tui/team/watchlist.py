"""The team's watch list: tui.local.watchlist.WatchList's twin on PostgreSQL, one list the whole team sees.

Per profile and environment: a `TeamWatchList` is one environment's view
(`environment`), its methods take the profile's name as the local list's do.
Each item says who pinned it: the login that pinned it, stamped by the database.
Operators change rows only through the database's functions (giftdesk_watch_pin,
_record, _remove: tui.team.database, migration 4); a notification only names
the row to read again (`heard`). A final status is kept once: the first look (or
callback) that settles an item settles it for everybody, and later looks do
not change it. Polling is shared: of all the giftdesks on a profile, the one
holding the profile's advisory lock (`lead`) polls its orders; the others hear
each change (NOTIFY, tui.team.live) and follow it.

A payout's weblink token is a secret: the row keeps its digest (to find it
by) and the token sealed with the pinning machine's key (tui.local.sealed),
never the token in clear, and no notification carries it. So a payout is
looked up by the giftdesks that hold its weblink (the one that pinned it, or
one where it was pasted again), leading or not; everybody sees it, masked,
and its end. No Textual.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import zlib
from collections.abc import Mapping
from typing import Any

import psycopg

from tui.local.sealed import Sealer, digest
from tui.local.watchlist import NotWatched, WatchedItem, reference_and_label
from tui.team.database import TeamDatabaseError, TeamUnreachable
from tui.team.link import TeamLink
from tui.team.rows import readable

_COLUMNS = "id, profile, kind, reference, label, status, final, detail, added_at, updated_at, changed_at, removed_at, pinned_by, sealed"
log = logging.getLogger("giftdesk.team")
_LEAD_LOCK_CLASS = (
    0x7761  # pg_try_advisory_lock(class, crc32 of profile and environment): the profile's leading watcher
)


class TeamWatchList:
    """One environment's shared items, every profile's; each call is its own short transaction, announced with NOTIFY."""

    def __init__(self, link: TeamLink, environment: str, sealer: Sealer | None = None) -> None:
        self.link = link
        self.environment = environment
        self._sealer = sealer or Sealer()
        self._tokens: dict[int, str] = {}  # payout tokens this giftdesk holds (pasted here, or its seal opened)
        self._last_read: dict[int, WatchedItem] = {}  # what reads fall back to while the database is away
        self._loaded = False  # whether _last_read holds every item (then `counts` needs no query)
        self._leading: psycopg.Connection[Any] | None = None
        self._lead_lock = threading.Lock()

    def close(self) -> None:
        self.resign()

    def add(self, profile: str, kind: str, pasted: str) -> WatchedItem:
        token, label = reference_and_label(kind, pasted)
        reference, sealed = (digest(token), self._sealer.seal(token)) if kind == "payout" else (token, None)
        try:
            item = self._added(profile, kind, reference, label, sealed)
        except TeamDatabaseError as error:
            raise NotWatched(f"not pinned: {error}") from None
        if kind == "payout" and not item.final:
            self._tokens[item.id] = token
            item = self._last_read[item.id] = dataclasses.replace(item, reference=token)
        return item

    def _added(self, profile: str, kind: str, reference: str, label: str, sealed: str | None) -> WatchedItem:
        with self.link.connection() as connection, connection.transaction():
            row = connection.execute(
                f"SELECT {_COLUMNS} FROM giftdesk_watch_pin(%s, %s, %s, %s, %s, %s)",
                (profile, self.environment, kind, reference, label, sealed),
            ).fetchone()
            item = self._kept(row)
            self._announce(connection, item)
        return item

    def items(self, profile: str | None = None) -> list[WatchedItem]:
        """Items not removed, oldest first; one profile's, or every profile's (the last read while away)."""
        try:
            with self.link.connection() as connection:
                rows = connection.execute(
                    f"SELECT {_COLUMNS} FROM watch_items WHERE environment = %s AND removed_at IS NULL ORDER BY id",
                    (self.environment,),
                ).fetchall()
            self._last_read = {item.id: item for item in readable(rows, self._item, "watch list")}
            self._loaded = True
        except TeamUnreachable:
            pass
        return [
            item for item in self._last_read.values() if item.removed_at is None and profile in (None, item.profile)
        ]

    def counts(self, profile: str, bad_statuses: frozenset[str]) -> tuple[int, int]:
        """From what this process knows (read, written, or heard: `heard`), not a query: the header asks often."""
        if not self._loaded:
            self.items()
        items = [item for item in self._last_read.values() if item.removed_at is None and item.profile == profile]
        return (
            sum(not item.final for item in items),
            sum(item.final and (item.status or "").lower() in bad_statuses for item in items),
        )

    def get(self, item_id: int) -> WatchedItem | None:
        try:
            with self.link.connection() as connection:
                row = connection.execute(f"SELECT {_COLUMNS} FROM watch_items WHERE id = %s", (item_id,)).fetchone()
        except TeamUnreachable:
            return self._last_read.get(item_id)
        return self._kept(row) if row else None

    def record(self, item_id: int, status: str, final: bool, detail: str = "") -> WatchedItem | None:
        """A look's result, unless the item is removed or already final (it settles once). None if removed."""
        with self.link.connection() as connection, connection.transaction():
            row = connection.execute(
                f"SELECT {_COLUMNS} FROM giftdesk_watch_record(%s, %s, %s, %s)", (item_id, status, final, detail)
            ).fetchone()
            if row is not None:
                self._announce(connection, self._kept(row))
        if final:
            self._tokens.pop(item_id, None)  # a payout that ended is not looked up again: its token goes
        item = self.get(item_id)
        return item if item is not None and item.removed_at is None else None

    def settle_order(
        self, profile: str, request_id: str, status: str, detail: str = "from the callback"
    ) -> WatchedItem | None:
        """An order's final status from outside (the receiver's callback): recorded on its item, if watched,
        and heard by every giftdesk of the profile."""
        with self.link.connection() as connection:
            row = connection.execute(
                "SELECT id FROM watch_items WHERE profile = %s AND environment = %s AND kind = 'order'"
                " AND reference = %s AND removed_at IS NULL",
                (profile, self.environment, request_id.strip()),
            ).fetchone()
        return self.record(row[0], status, True, detail) if row else None

    def remove(self, item_id: int) -> None:
        with self.link.connection() as connection, connection.transaction():
            row = connection.execute(f"SELECT {_COLUMNS} FROM giftdesk_watch_remove(%s)", (item_id,)).fetchone()
            if row is not None:
                self._announce(connection, self._kept(row))
        self._tokens.pop(item_id, None)

    # --- one watcher leads ---------------------------------------------------------------

    def lead(self, profile: str) -> bool:
        """Whether this process polls the profile's items: it holds the profile's lock (on a connection
        of its own, released when this process or its connection ends); False: another giftdesk does."""
        with self._lead_lock:
            if self._leading is not None and not self._leading.closed and not self._leading.broken:
                return True
            try:
                connection = self.link.database.connect()
                row = connection.execute(
                    "SELECT pg_try_advisory_lock(%s, %s)", (_LEAD_LOCK_CLASS, _profile_key(profile, self.environment))
                ).fetchone()
            except TeamUnreachable:
                return False
            if row and row[0]:
                self._leading = connection
                return True
            connection.close()
            return False

    def resign(self) -> None:
        with self._lead_lock:
            if self._leading is not None:
                self._leading.close()
                self._leading = None

    # --- inside ----------------------------------------------------------------------------

    def _kept(self, row: Any) -> WatchedItem:
        item = self._item(row)
        self._last_read[item.id] = item
        return item

    def _item(self, row: Any) -> WatchedItem:
        """A row as an item; a payout's reference is its token when this giftdesk holds it, else "" (not looked up here)."""
        (
            item_id,
            profile,
            kind,
            reference,
            label,
            status,
            final,
            detail,
            added,
            updated,
            changed,
            removed,
            pinned_by,
            sealed,
        ) = row
        if kind == "payout":
            token = self._tokens.get(item_id) or self._sealer.open(sealed)
            if token is not None and not final:
                self._tokens[item_id] = token
            reference = token or ""
        return WatchedItem(
            item_id,
            profile,
            kind,
            reference,
            label,
            status,
            bool(final),
            detail,
            added,
            updated,
            changed,
            removed,
            pinned_by,
        )

    def _announce(self, connection: psycopg.Connection[Any], item: WatchedItem) -> None:
        """Which item changed (a hint: whoever hears it reads the row again, `heard`)."""
        self.link.notify(
            connection,
            json.dumps({"what": "watch", "profile": item.profile, "environment": self.environment, "id": item.id}),
        )

    def heard(self, change: Mapping[str, Any]) -> WatchedItem | None:
        """The item a notification names, read back with this login's rights and kept as the latest known
        (DESIGN rule 13: a notification is a hint, never the truth: anyone may send one); None if it names
        no row this giftdesk can read, or another environment's."""
        item_id = change.get("id")
        if change.get("environment") != self.environment or not isinstance(item_id, int) or isinstance(item_id, bool):
            return None
        try:
            with self.link.connection() as connection:
                row = connection.execute(
                    f"SELECT {_COLUMNS} FROM watch_items WHERE id = %s AND environment = %s",
                    (item_id, self.environment),
                ).fetchone()
        except (TeamUnreachable, psycopg.Error) as error:  # away, or not readable by this login: nothing changes
            log.info("team watch list: item %s not read back: %s", item_id, error)
            return None
        return self._kept(row) if row else None


def _profile_key(profile: str, environment: str) -> int:
    return zlib.crc32(f"{profile}\n{environment}".encode()) - 2**31  # the lock's second key is a signed int4
