"""The limiter's bookings in SQLite, shared by every giftdesk process of a profile (DESIGN rule 11).

`SqliteLimitStore` implements tui.api.limiter.LimitStore: a TUI and a runbook's
`for` loop of `giftdesk order show` on the same profile book their turns in
the same table, each booking in one `BEGIN IMMEDIATE` transaction, so two
processes can never take the same turn. A turn booked in several windows
(Place order's spacing and its per-product window) is one row per window,
the rows sharing the turn's id. WAL: readers never wait for a writer,
and a commit needs no fsync (a booking lost in a power cut costs nothing).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tui.api.limiter import IN_FLIGHT_FORGOTTEN, Limiter, Window, earliest
from tui.api.limits import Limit, LimitSyntaxError, limits_table
from tui.local.database import DatabaseError, use_wal, what_to_do
from tui.local.fileio import NotPrivateFile, data_dir, ensure_private_file

if TYPE_CHECKING:
    from tui.local.config import Profile

# `turns` replaced `bookings` (one row per turn) when a turn could take several windows; an older file's
# `bookings` holds nothing that counts after its hour.
SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (id INTEGER PRIMARY KEY, turn INTEGER, key TEXT NOT NULL, at REAL NOT NULL,
                                  answered INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS turns_by_key ON turns (key, at);
CREATE INDEX IF NOT EXISTS turns_by_turn ON turns (turn);
CREATE TABLE IF NOT EXISTS holds (key TEXT PRIMARY KEY, until REAL NOT NULL);
"""
BUSY_TIMEOUT_SECONDS = 10.0  # another process's booking takes well under a millisecond


def profile_database(profile_name: str, environment: str) -> Path:
    """What giftdesk keeps for one profile and environment besides its mirror: the limiter's
    bookings and the copies of the scarce reports (tui.local.report_copies)."""
    return data_dir() / "profiles" / f"{profile_name}-{environment}.sqlite3"


def open_database(path: Path) -> sqlite3.Connection:
    """The profile's database, WAL, private; autocommit (each store begins its own transactions)."""
    try:
        ensure_private_file(path)
    except NotPrivateFile as error:
        raise DatabaseError(str(error)) from None
    try:
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False)
        use_wal(connection)
        connection.execute("PRAGMA synchronous=OFF")  # bookings and copies: a power cut loses nothing that matters
    except sqlite3.DatabaseError as error:
        raise DatabaseError(f"{path}: {error}. {what_to_do(error, path)}") from error
    return connection


class SqliteLimitStore:
    def __init__(self, path: Path) -> None:
        self._db = open_database(path)
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()  # one connection, used from the event loop and from worker threads

    def reserve(self, windows: Sequence[Window], now: float, latest: float) -> tuple[float, int | None]:
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            at = max(self._earliest(key, limit, now) for key, limit in windows)
            if at > latest:
                return at, None
            turn: int | None = None
            for key, _ in windows:
                cursor = self._db.execute("INSERT INTO turns (turn, key, at) VALUES (?, ?, ?)", (turn, key, at))
                turn = turn or cursor.lastrowid
            self._db.execute("UPDATE turns SET turn = ? WHERE id = ?", (turn, turn))
            return at, turn

    def _earliest(self, key: str, limit: Limit | None, now: float) -> float:
        horizon = now - (limit.seconds if limit is not None else 0.0)
        self._db.execute(
            "DELETE FROM turns WHERE key = ? AND at <= ? - (1 - answered) * ?", (key, horizon, IN_FLIGHT_FORGOTTEN)
        )
        count = limit.requests if limit is not None else 0
        # A request still in flight counts as arriving now at the earliest (tui.api.limiter).
        newest = [
            at
            for (at,) in self._db.execute(
                "SELECT CASE WHEN answered THEN at ELSE max(at, ?) END AS counted FROM turns WHERE key = ? "
                "ORDER BY counted DESC LIMIT ?",
                (now, key, count),
            )
        ]
        held = self._db.execute("SELECT until FROM holds WHERE key = ?", (key,)).fetchone()
        return earliest(newest, limit, now, held[0] if held else 0.0)

    def answered(self, booking: int, at: float) -> None:
        with self._lock, self._db:
            self._db.execute("UPDATE turns SET at = max(at, ?), answered = 1 WHERE turn = ?", (at, booking))

    def hold(self, key: str, until: float) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO holds (key, until) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET until = max(until, excluded.until)",
                (key, until),
            )

    def held_until(self, key: str) -> float:
        with self._lock:
            held = self._db.execute("SELECT until FROM holds WHERE key = ?", (key,)).fetchone()
        return held[0] if held else 0.0

    def cancel(self, booking: int) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM turns WHERE turn = ?", (booking,))

    def close(self) -> None:
        self._db.close()


def profile_limiter(profile: Profile) -> Limiter:
    """The limiter of a profile: its table (DESIGN's, with the profile's overrides) and the bookings
    every process of the profile shares, kept per credential (two profiles of one credential share it too)."""
    from tui.local.config import ConfigError

    try:
        table = limits_table(profile.limits)
    except LimitSyntaxError as exc:  # $GIFTDESK_LIMITS (a stored profile's own are checked when it loads)
        raise ConfigError(str(exc)) from None
    return Limiter(table, SqliteLimitStore(profile_database(profile.name, profile.environment)), key=profile.client_id)
