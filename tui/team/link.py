"""One process's link to the team database: a pool of connections, and whether the database answers.

Every store borrows its connections here. A failure to reach the database
marks the link down (the header says "team database unreachable, retrying")
and is raised as TeamUnreachable; while it is down, calls fail at once rather
than each waiting out the connect timeout, and the live listener
(tui.team.live), which retries every second, marks it up again. Stores keep
what they last read, so reads fall back to it; writes are refused.
No Textual.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from tui.team.database import CHANNEL, CONNECT_TIMEOUT_SECONDS, TeamDatabase, TeamDatabaseError, TeamUnreachable

log = logging.getLogger("giftdesk.team")
# The pool says each failed attempt to connect (a warning holding libpq's lines); a store's call that fails says it
# once (TeamUnreachable). A command has no log file without --debug, so Python's last resort would print them
# on stderr: a handler that drops them keeps them off it (they still reach the log file when there is one).
logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())

POOL_SIZE = 4


class TeamLink:
    """The pool, who is using it (its database login; `user` is a display name only), and whether the database
    is reachable now."""

    def __init__(self, database: TeamDatabase, *, user: str, host: str | None = None) -> None:
        self.database = database
        self.user = user
        self._login: str | None = None
        self.host = host or socket.gethostname()
        self.pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            database.url,
            kwargs=database.pool_options(),
            min_size=1,
            max_size=POOL_SIZE,
            open=False,
            timeout=CONNECT_TIMEOUT_SECONDS,
            check=ConnectionPool.check_connection,
            name="giftdesk-team",
        )
        self.pool.open(wait=False)
        self._reachable = True
        self._lock = threading.Lock()
        self._watchers: list[Callable[[bool], None]] = []

    @property
    def login(self) -> str:
        """Who this giftdesk is to the team: its database login (session_user), which the database stamps on
        everything it writes (DESIGN rule 13), whatever the config's `user` says."""
        if self._login is None:
            with self.connection() as connection:
                row = connection.execute("SELECT session_user").fetchone()
            self._login = str(row[0]) if row else ""
        return self._login

    @property
    def reachable(self) -> bool:
        return self._reachable

    def on_reachable(self, watcher: Callable[[bool], None]) -> None:
        """`watcher(reachable)` on every change (from whichever thread saw it)."""
        self._watchers.append(watcher)

    def mark(self, reachable: bool) -> None:
        with self._lock:
            changed, self._reachable = self._reachable != reachable, reachable
        if changed:
            # Said in the header (TUI) or in the error (commands): in the log only, not on a command's stderr.
            log.info("team database %s %s", self.database.shown, "reachable again" if reachable else "unreachable")
            for watcher in list(self._watchers):
                watcher(reachable)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection of the pool (autocommit; `with connection.transaction()` for more than one statement)."""
        if not self._reachable:
            raise TeamUnreachable(f"team database {self.database.shown} unreachable, retrying")
        try:
            with self.pool.connection() as connection:
                yield connection
        except (PoolTimeout, psycopg.OperationalError) as error:
            self.mark(False)
            raise self.database.unreachable(error) from None
        except psycopg.errors.InsufficientPrivilege as error:  # a login that is no operator: said, with what to do
            raise TeamDatabaseError(
                f"team database {self.database.shown}: {str(error).strip()}: this login is not a giftdesk operator "
                "(`giftdesk team operator add NAME`, docs/team.md)"
            ) from None

    def notify(self, connection: psycopg.Connection[Any], payload: str) -> None:
        """Announce a change (in the caller's transaction: heard when it commits)."""
        connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))

    def close(self) -> None:
        self.pool.close()
