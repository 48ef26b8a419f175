"""The team's audit log: tui.local.storage's AuditStore on PostgreSQL, one chain for the whole team.

Each row holds the entry as the local file would (one line of JSON, masked
by `tui.local.storage.new_entry`, plus who wrote it and from which host), the
hash of it chained to the row before (`tui.local.storage.chain_hash`), and its
operator's Ed25519 signature of that hash (tui.team.signing). Operators append
only through `giftdesk_audit_append` (tui.team.database, migration 4), which
stamps the login that wrote it and refuses an entry whose "who" is another's.
`first_break` names an entry forged, unsigned, rewritten, removed or
re-ordered, by whoever did it: without its operator's key a changed entry's
signature no longer holds. A malformed row is skipped (`unreadable`) and
named, and hides nothing else. A record that cannot reach the database, or
cannot be signed, raises an OSError: the money action it was for is not sent.
No Textual.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import psycopg
from pydantic import ValidationError

from tui.local.fileio import atomic_write, data_dir, ensure_private_dir
from tui.local.storage import (
    GENESIS,
    AuditEntry,
    chain_hash,
    entry_json,
    mark_unsettled,
    new_entry,
    tail_missing,
)
from tui.team.database import TeamDatabaseError, TeamUnreachable
from tui.team.link import TeamLink
from tui.team.signing import Signer, signed_by

log = logging.getLogger("giftdesk.team")

_APPEND_LOCK = 0x61756474  # pg_advisory_xact_lock key: one append at a time keeps one chain (giftdesk_audit_append's)


class TeamAuditLog:
    """Append and read the team's audit entries (every profile's, as the local file holds every profile's)."""

    def __init__(self, link: TeamLink, signer: Signer | None = None, *, throwaway: bool = False) -> None:
        """`throwaway`: the demo's database (its signing key may live for this run only: tui.team.signing)."""
        self.link = link
        self._signer = signer
        self._throwaway = throwaway
        self._key_registered = False
        self._last_read: list[AuditEntry] = []  # what reads fall back to while the database is away
        self.unreadable: list[int] = []  # ids of the rows the last read skipped (malformed)

    @property
    def where(self) -> str:
        return f"the team database {self.link.database.shown}"

    @property
    def unwritable_hint(self) -> str:
        return "Check that the team database answers (`giftdesk team check`); then send the write again."

    @property
    def signer(self) -> Signer:
        if self._signer is None:
            self._signer = Signer(self.link.login, throwaway=self._throwaway)
        return self._signer

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
            who=self.link.login,
            host=self.link.host,
        )
        self.append(profile, environment, entry_json(entry))
        return entry

    def append(self, profile: str, environment: str, text: str) -> int:
        """Signs the entry's text chained to the head and appends it (giftdesk_audit_append); its id."""
        signer = self.signer
        try:
            with self.link.connection() as connection, connection.transaction():
                self._register_key(connection, signer)
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (_APPEND_LOCK,))
                head = connection.execute("SELECT hash FROM audit_head").fetchone()
                hashed = chain_hash(head[0] if head else GENESIS, text)
                row = connection.execute(
                    "SELECT giftdesk_audit_append(%s, %s, %s, %s, %s)",
                    (profile, environment, text, hashed, signer.sign(hashed)),
                ).fetchone()
        except psycopg.Error as error:  # refused by the database (not an operator, a forged "who"): said, not sent
            raise TeamDatabaseError(f"team database {self.link.database.shown}: {str(error).strip()}") from None
        entry_id = int(row[0]) if row else 0
        _remember(self.link.database.shown, entry_id, hashed)
        return entry_id

    def _register_key(self, connection: psycopg.Connection[Any], signer: Signer) -> None:
        """This login's key registered on its first signed write; a login whose registered keys are all
        another machine's writes nothing (its entries would not verify)."""
        if self._key_registered:
            return
        mine = signer.public_key
        keys = {row[0] for row in connection.execute("SELECT public_key FROM operator_keys WHERE role = session_user")}
        if not keys:
            connection.execute("SELECT giftdesk_register_key(%s)", (mine,))
        elif mine not in keys:
            raise TeamDatabaseError(
                f"the signing key of this machine is not registered for {signer.login} in the team database: "
                f"ask whoever runs it for `giftdesk team operator add {signer.login} --public-key {mine}`"
            )
        self._key_registered = True

    def entries(self, filter_text: str | None = None, action: str | None = None) -> list[AuditEntry]:
        """Newest first, as the local log's; the last entries read when the database is away. A malformed
        row is skipped (its id in `unreadable`); every other entry is still read."""
        try:
            with self.link.connection() as connection:
                rows = connection.execute("SELECT id, entry FROM audit ORDER BY id").fetchall()
            readable: list[AuditEntry] = []
            unreadable: list[int] = []
            for row_id, text in rows:
                entry = _entry(text)
                if entry is None:
                    unreadable.append(int(row_id))
                else:
                    readable.append(entry)
            if unreadable:
                log.warning("team audit log: skipped unreadable entries %s", unreadable)
            # An attempt no outcome followed reads as outcome unknown, as in the local log.
            self._last_read, self.unreadable = mark_unsettled(readable)[::-1], unreadable
        except TeamUnreachable:
            pass
        return [
            entry
            for entry in self._last_read
            if (action is None or entry.action == action) and (not filter_text or entry.matches(filter_text))
        ]

    def first_break(self) -> tuple[int, str | None]:
        """(entries read, the first broken one said for a person or None): `giftdesk audit verify`.

        Each entry: its chain hash, then (from the first entry of schema 4 on) its signature by a key
        registered for the login that wrote it, then whether it reads as an audit entry; then the chain's
        end against the head (moved in each append's transaction)."""
        with self.link.connection() as connection, connection.transaction():
            connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")  # the rows and the head of one moment
            rows = connection.execute("SELECT id, entry, hash, operator, signature FROM audit ORDER BY id").fetchall()
            head = connection.execute("SELECT last_id, hash, entries, signed_from FROM audit_head").fetchone()
            keys: dict[str, set[str]] = {}
            for role, public_key in connection.execute("SELECT role, public_key FROM operator_keys"):
                keys.setdefault(str(role), set()).add(public_key)
        signed_from = head[3] if head else 1
        previous = GENESIS
        for row_id, text, stored, operator, signature in rows:
            broken = _link_broken(f"entry {row_id}", previous, text, stored)
            if broken is None and row_id >= signed_from:
                broken = _signature_broken(f"entry {row_id}", text, stored, operator, signature, keys)
            if broken is None and _entry(text) is None:
                broken = f"entry {row_id}: unreadable (not an audit entry giftdesk can show); the others are shown"
            if broken is not None:
                return len(rows), broken
            previous = stored
        last = (rows[-1][0], rows[-1][2]) if rows else None
        broken = _against_head(last, len(rows), head[:3] if head else None)
        mine = _remembered(self.link.database.shown)
        if broken is None and mine is not None and (mine["id"], mine["hash"]) not in {(row[0], row[2]) for row in rows}:
            broken = (
                f"entry {mine['id']}: appended from this machine, is not in the log any more: the last entries were cut "
                "off and the head moved back, behind giftdesk's back (only the tables' owner can)"
            )
        return len(rows), broken


# What a signature cannot show: the owner cutting the last entries off and moving the head back. Each
# machine remembers the last entry it appended to each team database; `first_break` looks for it.
WITNESS_FILE = "team-audit-witness.json"


def _witnessed() -> dict[str, Any]:
    try:
        data = json.loads((data_dir() / WITNESS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _remembered(database: str) -> dict[str, Any] | None:
    mine = _witnessed().get(database)
    return (
        mine
        if isinstance(mine, dict) and isinstance(mine.get("id"), int) and isinstance(mine.get("hash"), str)
        else None
    )


def _remember(database: str, entry_id: int, hashed: str) -> None:
    witnessed = _witnessed()
    witnessed[database] = {"id": entry_id, "hash": hashed}
    try:
        ensure_private_dir(data_dir())
        atomic_write(data_dir() / WITNESS_FILE, json.dumps(witnessed).encode())
    except OSError as error:  # the entry is written; only this machine's check of the log's end is weaker
        log.warning("team audit log: the last entry appended here not remembered: %s", error)


def _entry(text: str) -> AuditEntry | None:
    try:
        return AuditEntry.model_validate(json.loads(text))
    except (ValueError, ValidationError):
        return None


def _link_broken(name: str, previous: str, text: str, stored: str | None) -> str | None:
    if stored is None:
        return f"{name}: has no hash (added by hand, or by something other than giftdesk)"
    if chain_hash(previous, text) != stored:
        return f"{name}: does not match its hash (it was edited, or an entry before it was removed or changed)"
    return None


def _signature_broken(
    name: str, text: str, stored: str, operator: str | None, signature: str | None, keys: dict[str, set[str]]
) -> str | None:
    """Whether the entry is signed, by a key registered for the login that wrote it, which it names as its writer."""
    if not signature or not operator:
        return f"{name}: is not signed (added behind giftdesk's back: only giftdesk_audit_append writes signed entries)"
    claimed = _claimed_writer(text)
    if claimed != operator:
        return f"{name}: says it was written by {claimed!r}, but the login that wrote it was {operator!r} (forged)"
    if not any(signed_by(key, stored, signature) for key in keys.get(operator, ())):
        return (
            f"{name}: its signature is not {operator}'s (forged, or rewritten by someone without {operator}'s key: "
            "the entry, or one before it, was changed, removed or re-ordered)"
        )
    return None


def _claimed_writer(text: str) -> str | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    who = data.get("who") if isinstance(data, dict) else None
    return who if isinstance(who, str) else None


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
