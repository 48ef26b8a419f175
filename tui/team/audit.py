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

from tui.local.storage import (
    GENESIS,
    AuditEntry,
    chain_hash,
    entry_json,
    first_break,
    mark_unsettled,
    new_entry,
    tail_missing,
)
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

    @property
    def unwritable_hint(self) -> str:
        return "Check that the team database answers (`giftdesk team check`); then send the write again."

    def record(
        self,
        *,
        profile: str,
        environment: str,
        action: str,
        subject: str,
        outcome: str,
        wallet: str | None = None,
        recipient: str | None = None,
        detail: str | None = None,
    ) -> AuditEntry:
        entry = new_entry(
            profile=profile,
            environment=environment,
            action=action,
            subject=subject,
            outcome=outcome,
            wallet=wallet,
            recipient=recipient,
            detail=detail,
            who=self.link.user,
            host=self.link.host,
        )
        text = entry_json(entry)
        with self.link.connection() as connection, connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (_APPEND_LOCK,))
            last = connection.execute("SELECT hash FROM audit ORDER BY id DESC LIMIT 1").fetchone()
            hashed = chain_hash(last[0] if last else "", text)
            row = connection.execute(
                "INSERT INTO audit (profile, environment, entry, hash) VALUES (%s, %s, %s, %s) RETURNING id",
                (profile, environment, text, hashed),
            ).fetchone()
            connection.execute(
                "UPDATE audit_head SET last_id = %s, hash = %s, entries = entries + 1", (row[0] if row else 0, hashed)
            )
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
        return [
            entry
            for entry in self._last_read
            if (action is None or entry.action == action) and (not filter_text or entry.matches(filter_text))
        ]

    def first_break(self) -> tuple[int, str | None]:
        """(entries read, the first broken one said for a person or None): `giftdesk audit verify`.

        The chain, then its end against the head (moved in each append's transaction): the last entry
        must be the head's, and as many entries must be there as were appended."""
        with self.link.connection() as connection, connection.transaction():
            connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")  # the rows and the head of one moment
            rows = connection.execute("SELECT id, entry, hash FROM audit ORDER BY id").fetchall()
            head = connection.execute("SELECT last_id, hash, entries FROM audit_head").fetchone()
        broken = first_break((f"entry {row_id}", text, stored) for row_id, text, stored in rows)
        if broken is None:
            broken = _against_head((rows[-1][0], rows[-1][2]) if rows else None, len(rows), head)
        return len(rows), broken


def _against_head(last: tuple[int, str] | None, count: int, head: tuple[int, str, int] | None) -> str | None:
    """Whether the chain (its last entry's id and hash, its length) ends where its head says."""
    if head is None:
        return "the audit log's head is missing (removed behind giftdesk's back): its end cannot be checked"
    head_id, head_hash, appended = head
    if (last or (0, GENESIS)) == (head_id, head_hash) and count == appended:
        return None
    if last is None or last[0] < head_id:
        return tail_missing(
            f"entry {last[0]}" if last else "its start (it is empty)",
            f"entry {head_id} ({appended - count} entries were removed)",
        )
    if last[0] > head_id:
        return f"entry {last[0]}: comes after the log's head (entry {head_id}): added behind giftdesk's back"
    return f"entry {last[0]}: is the head's, but {appended} entries were appended and {count} are there (some were removed)"
