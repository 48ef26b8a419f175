"""The team's audit log: tui.local.storage's AuditStore on PostgreSQL, one chain for the whole team.

Each row holds the entry as the local file would (one line of JSON, masked
by `tui.local.storage.new_entry`, plus who wrote it and from which host) and
the hash of it chained to the row before (`tui.local.storage.chain_hash`).
Rows are appended under an advisory lock, so the chain has one order; a
trigger refuses UPDATE and DELETE, and `first_break` finds a row changed or
removed behind the trigger's back. A record that cannot reach the database
raises TeamUnreachable: the money action it was for is not sent.
No Textual.
"""

from __future__ import annotations

import json

from tui.local.storage import AuditEntry, chain_hash, entry_json, first_break, mark_unsettled, new_entry
from tui.team.database import TeamUnreachable
from tui.team.link import TeamLink

_APPEND_LOCK = 0x61756474  # pg_advisory_xact_lock key: one append at a time keeps one chain


class TeamAuditLog:
    """Append and read the team's audit entries (every profile's, as the local file holds every profile's)."""

    def __init__(self, link: TeamLink) -> None:
        self.link = link
        self._last_read: list[AuditEntry] = []  # what reads fall back to while the database is away

    @property
    def where(self) -> str:
        return f"the team database {self.link.database.shown}"

    def record(self, *, profile: str, environment: str, action: str, subject: str, outcome: str,
               wallet: str | None = None, recipient: str | None = None, detail: str | None = None) -> AuditEntry:
        entry = new_entry(profile=profile, environment=environment, action=action, subject=subject, outcome=outcome,
                          wallet=wallet, recipient=recipient, detail=detail, who=self.link.user, host=self.link.host)
        text = entry_json(entry)
        with self.link.connection() as connection, connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (_APPEND_LOCK,))
            last = connection.execute("SELECT hash FROM audit ORDER BY id DESC LIMIT 1").fetchone()
            connection.execute("INSERT INTO audit (profile, environment, entry, hash) VALUES (%s, %s, %s, %s)",
                               (profile, environment, text, chain_hash(last[0] if last else "", text)))
        return entry

    def entries(self, filter_text: str | None = None, action: str | None = None) -> list[AuditEntry]:
        """Newest first, as the local log's; the last entries read when the database is away."""
        try:
            with self.link.connection() as connection:
                rows = connection.execute("SELECT entry FROM audit ORDER BY id").fetchall()
            # An attempt no outcome followed reads as outcome unknown, as in the local log.
            self._last_read = mark_unsettled([AuditEntry.model_validate(json.loads(row[0])) for row in rows])[::-1]
        except TeamUnreachable:
            pass
        return [entry for entry in self._last_read
                if (action is None or entry.action == action) and (not filter_text or entry.matches(filter_text))]

    def first_break(self) -> tuple[int, str | None]:
        """(entries read, the first broken one said for a person or None): `giftdesk audit verify`."""
        with self.link.connection() as connection:
            rows = connection.execute("SELECT id, entry, hash FROM audit ORDER BY id").fetchall()
        return len(rows), first_break((f"entry {row_id}", text, stored) for row_id, text, stored in rows)
