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
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import psycopg

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

    def _announce(self, connection: psycopg.Connection[Any], event_id: str) -> None:
        self.link.notify(
            connection,
            json.dumps(
                {"what": "inbox", "profile": self.profile, "environment": self.environment, "eventId": event_id}
            ),
        )
