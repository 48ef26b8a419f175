"""The receiver's inbox in team mode: tui.local.inbox.InboxStore on PostgreSQL, one table for every profile and environment.

A delivery is committed (PostgreSQL's commit is durable) before `keep`
returns, so the receiver's 2xx promises only what a crash cannot take back;
the event id is kept once per profile and environment. Each kept or processed delivery is
announced (NOTIFY), so every giftdesk of the profile hears of a callback at
once. What is stored is what `Delivery` holds: payloads already masked.
No Textual.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg_pool import PoolTimeout

from tui.local.inbox import _COLUMNS, Delivery, _delivery, _row, _time
from tui.team.link import TeamLink
from tui.team.rows import readable


class TeamInbox:
    """One profile's inbox (of one environment) in the team database."""

    def __init__(self, link: TeamLink, profile: str, environment: str) -> None:
        self.link = link
        self.profile = profile
        self.environment = environment

    def close(self) -> None:
        """The link is the team's, closed by whoever opened it."""

    def __enter__(self) -> TeamInbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def keep(self, delivery: Delivery) -> bool:
        return self.keep_all([delivery])[0]

    def keep_all(self, deliveries: Sequence[Delivery]) -> list[bool]:
        kept: list[bool] = []
        marks = ", ".join(["%s"] * (2 + len(_COLUMNS.split(","))))
        with self.link.connection() as connection, connection.transaction():
            # The 2xx promises the delivery survives a crash, whatever the server's default (an asynchronous
            # commit is lost by a crash).
            connection.execute("SET LOCAL synchronous_commit = on")
            for delivery in deliveries:
                row = connection.execute(  # giftdesk_inbox_keep: operators write through the database's functions
                    f"SELECT giftdesk_inbox_keep({marks})", (self.profile, self.environment, *_row(delivery))
                ).fetchone()
                kept.append(bool(row and row[0]))
                if kept[-1]:
                    self._announce(connection, delivery.event_id)
        return kept

    def mark(self, event_id: str, outcome: str) -> None:
        with self.link.connection() as connection, connection.transaction():
            connection.execute(
                "SELECT giftdesk_inbox_mark(%s, %s, %s, %s, %s)",
                (self.profile, self.environment, event_id, outcome, _time(datetime.now(UTC))),
            )
            self._announce(connection, event_id)

    def since(self, when: datetime | None = None) -> list[Delivery]:
        with self.link.connection() as connection:
            rows = connection.execute(
                f"SELECT {_COLUMNS} FROM inbox WHERE profile = %s AND environment = %s AND received_at >= %s"
                " ORDER BY seq",
                (self.profile, self.environment, "" if when is None else _time(when)),
            ).fetchall()
        return readable(rows, _delivery, "inbox")

    def unprocessed(self) -> list[Delivery]:
        with self.link.connection() as connection:
            rows = connection.execute(
                f"SELECT {_COLUMNS} FROM inbox WHERE profile = %s AND environment = %s AND verdict = 'accepted'"
                " AND processed_at IS NULL ORDER BY seq",
                (self.profile, self.environment),
            ).fetchall()
        return readable(rows, _delivery, "inbox")

    @contextmanager
    def claimed(self, event_id: str) -> Iterator[bool]:
        """Several receivers share the inbox: a session advisory lock on the delivery says which one works on
        it; a receiver killed mid-way lets go of it with its connection, and another takes it up."""
        key = f"giftdesk-inbox/{self.profile}/{self.environment}/{event_id}"
        with self.link.connection() as connection:
            locked = connection.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (key,)).fetchone()
            if not (locked and locked[0]):
                yield False
                return
            try:
                row = connection.execute(
                    "SELECT processed_at IS NULL FROM inbox WHERE profile = %s AND environment = %s AND event_id = %s",
                    (self.profile, self.environment, event_id),
                ).fetchone()
                yield bool(row and row[0])
            finally:
                connection.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (key,))

    def prune_refused(self, before: datetime) -> int:
        with self.link.connection() as connection:
            row = connection.execute(
                "SELECT giftdesk_inbox_prune_refused(%s, %s, %s)", (self.profile, self.environment, _time(before))
            ).fetchone()
        return int(row[0]) if row else 0

    def check(self) -> None:
        """The pool itself, past the link's "unreachable" mark: a receiver has no live listener to lift it."""
        try:
            with self.link.pool.connection() as connection:
                connection.execute("SELECT 1")
        except (PoolTimeout, psycopg.OperationalError) as error:
            raise self.link.database.unreachable(error) from None
        self.link.mark(True)

    def _announce(self, connection: psycopg.Connection[Any], event_id: str) -> None:
        self.link.notify(
            connection,
            json.dumps(
                {"what": "inbox", "profile": self.profile, "environment": self.environment, "eventId": event_id}
            ),
        )
