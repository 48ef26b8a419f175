"""The team's notes on orders: tui.local.notes.NoteStore on PostgreSQL, per profile and environment, announced
with NOTIFY. No Textual."""

from __future__ import annotations

import json

from tui.local.notes import COLUMNS, Note, checked_body, note_from
from tui.team.database import TeamUnreachable
from tui.team.link import TeamLink
from tui.team.rows import readable


class TeamNotes:
    """One environment's notes, every profile's, shared; each signed by the login that wrote it (the database
    stamps it: giftdesk_note_add)."""

    def __init__(self, link: TeamLink, environment: str) -> None:
        self.link = link
        self.environment = environment
        self._last_read: dict[tuple[str, str], list[Note]] = {}  # what reads fall back to while the database is away
        self._last_noted: dict[str, dict[str, int]] = {}

    def close(self) -> None:
        """The link is the team's, closed by whoever opened it."""

    def add(self, profile: str, request_id: str, body: str) -> Note:
        text = checked_body(body)
        with self.link.connection() as connection, connection.transaction():
            row = connection.execute(
                f"SELECT {COLUMNS} FROM giftdesk_note_add(%s, %s, %s, %s)",
                (profile, self.environment, request_id.strip(), text),
            ).fetchone()
            note = note_from(row)
            self.link.notify(
                connection,
                json.dumps(
                    {
                        "what": "note",
                        "profile": profile,
                        "environment": self.environment,
                        "id": note.id,
                        "requestId": note.request_id,
                    }
                ),
            )
        return note

    def for_order(self, profile: str, request_id: str) -> list[Note]:
        key = (profile, request_id.strip())
        try:
            with self.link.connection() as connection:
                rows = connection.execute(
                    f"SELECT {COLUMNS} FROM notes WHERE profile = %s AND environment = %s AND request_id = %s"
                    " ORDER BY id",
                    (profile, self.environment, key[1]),
                ).fetchall()
            self._last_read[key] = readable(rows, note_from, "notes")
        except TeamUnreachable:
            pass
        return self._last_read.get(key, [])

    def noted_orders(self, profile: str) -> dict[str, int]:
        try:
            with self.link.connection() as connection:
                rows = connection.execute(
                    "SELECT request_id, COUNT(*) FROM notes WHERE profile = %s AND environment = %s"
                    " GROUP BY request_id",
                    (profile, self.environment),
                ).fetchall()
            self._last_noted[profile] = {request_id: int(count) for request_id, count in rows}
        except TeamUnreachable:
            pass
        return self._last_noted.get(profile, {})
