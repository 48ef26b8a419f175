"""Local state under the user data dir: the audit log, recent orders, chosen accounts.

No Textual here (a test checks it). GIFTDESK_DATA_DIR overrides the directory.
Every file is mode 0600; the JSON files are replaced atomically, the audit log
only ever grows by whole lines. Recent orders and chosen accounts live in
`tui.local.state_files` (no pydantic: the TUI reads the chosen account as it
starts) and are named here too.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from tui.api.bounds import Bounds, depth_exceeds
from tui.api.redact import MASK, mask_recipient, mask_text
from tui.local.fileio import AUDIT_FILE, NotPrivateFile, append_chained, atomic_write, data_dir, read_private
from tui.local.state_files import ChosenAccounts, RecentOrder, RecentOrders, now_iso

__all__ = [
    "ATTEMPT",
    "AUDIT_ACTIONS",
    "CARD_COPY",
    "CARD_REVEAL",
    "NOTIFICATION_CHANGE",
    "REDEEM",
    "TEST_ORDER",
    "AuditEntry",
    "AuditLog",
    "AuditStore",
    "ChosenAccounts",
    "RecentOrder",
    "RecentOrders",
    "audit_log",
    "chain_hash",
    "first_break",
    "mark_unsettled",
    "new_entry",
    "record_checked",
    "unknown_outcomes",
    "use_audit_store",
]

log = logging.getLogger(__name__)

# Audit actions the app records; other names are accepted (a newer version may add some).
REDEEM = "redeem"
TEST_ORDER = "new-order"
NOTIFICATION_CHANGE = "notification-change"
CARD_REVEAL = "card-reveal"
CARD_COPY = "card-copy"
AUDIT_ACTIONS = (REDEEM, TEST_ORDER, NOTIFICATION_CHANGE, CARD_REVEAL, CARD_COPY)

# A write's first line, written before it is sent (tui.money); its outcome follows in a later line
# with the same profile, action and subject. Its detail names the command that checks it.
ATTEMPT = "attempt"
UNSETTLED = "outcome unknown: no outcome recorded (still waiting, or giftdesk ended while it waited)"


# --- audit log --------------------------------------------------------------------------


class AuditEntry(BaseModel):
    """One audited event. Values are masked before they are stored; unknown fields are kept."""

    # defer_build: its schema is built on first use, not by every start that imports this module (issue 16).
    model_config = ConfigDict(frozen=True, extra="allow", defer_build=True)

    time: str
    profile: str
    environment: str
    action: str
    subject: str  # masked weblink or order RequestId
    outcome: str
    wallet: str | None = None
    recipient: str | None = None  # masked
    detail: str | None = None

    def matches(self, text: str) -> bool:
        needle = text.casefold()
        return any(needle in value.casefold() for value in self.model_dump().values() if isinstance(value, str))


def _redacted(entry: AuditEntry) -> AuditEntry:
    """Masks again whatever the caller should have masked already: never a secret on disk."""
    values = {key: mask_text(value) if isinstance(value, str) else value for key, value in entry.model_dump().items()}
    recipient = values.get("recipient")
    if recipient and MASK not in recipient:  # a phone or handle in clear has no shape mask_text knows
        values["recipient"] = mask_recipient(recipient)
    return AuditEntry(**values)


def new_entry(**fields: str | None) -> AuditEntry:
    """An entry made now (UTC) from the record's fields, masked; the one way both audit stores make them."""
    if not fields.get("action"):
        raise ValueError("an audit entry needs an action")
    return _redacted(AuditEntry(time=now_iso(), **fields))


def entry_json(entry: AuditEntry) -> str:
    """The entry as stored and hashed: one line of JSON, its fields in order, without empty ones."""
    return json.dumps(entry.model_dump(exclude_none=True), ensure_ascii=False)


# --- the chain: each entry's hash covers the one before it -------------------------------
# An edited entry no longer matches its hash; a removed one breaks the next entry's.

GENESIS = ""  # what the first entry's hash follows
HASH_FIELD = "hash"  # in a local line, beside the entry's fields (not part of what is hashed)
HEAD_SUFFIX = ".head"  # the local log's head: `audit.jsonl.head`


def chain_hash(previous_hash: str, entry_text: str) -> str:
    return hashlib.sha256(f"{previous_hash}\n{entry_text}".encode()).hexdigest()


def first_break(links: Iterable[tuple[str, str, str | None]]) -> str | None:
    """The first broken link of (name, entry text, stored hash) in order, said for a person; None: intact.

    Entries written before the chain existed (no hash, at the start) are passed over.
    """
    previous = GENESIS
    for name, text, stored in links:
        if stored is None:
            if previous == GENESIS:
                continue
            return f"{name}: has no hash (added by hand, or by something other than giftdesk)"
        if chain_hash(previous, text) != stored:
            return f"{name}: does not match its hash (it was edited, or an entry before it was removed or changed)"
        previous = stored
    return None


# A chain alone does not show that its last entries were removed: the log's head (the last entry's hash,
# kept apart and moved with every append) does. `giftdesk audit verify` checks the chain ends at it.


def tail_missing(last: str, head: str) -> str:
    """Said when the chain ends before its head: `last` names the log's last entry, `head` the one the head names."""
    return f"the last entries are missing: the log ends at {last}, but its head (moved with every append) names {head}"


class AuditStore(Protocol):
    """What screens and commands use of an audit log: the local file's, or the team database's (tui.team)."""

    @property
    def where(self) -> str:
        """Where the entries are, for a person: a file, or the team database."""

    @property
    def unwritable_hint(self) -> str:
        """What to do when an entry cannot be written (and the money action it was for was not sent)."""

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
    ) -> AuditEntry: ...

    def entries(self, filter_text: str | None = None, action: str | None = None) -> list[AuditEntry]: ...


_installed: AuditStore | None = None


def use_audit_store(store: AuditStore | None) -> None:
    """Team mode: the wiring installs the team's audit log for this process (None: the local file again)."""
    global _installed
    _installed = store


def audit_log() -> AuditStore:
    """The audit log every money action writes to: the team's in team mode, else this machine's file."""
    return _installed if _installed is not None else AuditLog()


class AuditLog:
    """Append-only JSON lines, one per event, chained (`hash`). A torn last line (crash mid-write) is skipped on read."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else data_dir() / AUDIT_FILE

    @property
    def where(self) -> str:
        return str(self.path)

    @property
    def unwritable_hint(self) -> str:
        return "Free space in, or fix the permissions of, giftdesk's data folder; then send the write again."

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
        """Appends one event (time = now, UTC), chained to the last line, and returns it as stored."""
        entry = new_entry(
            profile=profile,
            environment=environment,
            action=action,
            subject=subject,
            outcome=outcome,
            wallet=wallet,
            recipient=recipient,
            detail=detail,
        )
        text = entry_json(entry)

        hashed: dict[str, str] = {}  # the new entry's hash: the line's field, then the head

        def chained(last_lines: list[bytes]) -> bytes:
            hashed[HASH_FIELD] = chain_hash(_last_hash(last_lines), text)
            stored = {**entry.model_dump(exclude_none=True), **hashed}
            return (json.dumps(stored, ensure_ascii=False) + "\n").encode("utf-8")

        append_chained(self.path, chained, then=lambda: atomic_write(self.head_path, json.dumps(hashed).encode()))
        return entry

    @property
    def head_path(self) -> Path:
        """The chain's head beside the log: the last entry's hash, rewritten after every append."""
        return self.path.with_name(self.path.name + HEAD_SUFFIX)

    def first_break(self) -> tuple[int, str | None]:
        """(entries read, the first broken one said for a person or None): `giftdesk audit verify`.

        The head must name an entry of the chain: one cut off the end is not there any more. A head
        behind the end (a crash between the line and its head) is whole; a log without a head (written
        before giftdesk kept one) is checked by its chain alone. A log (or head) replaced by a symbolic
        link or another user's file is named, unread."""
        try:
            raw, head = read_private(self.path), self._head()
        except NotPrivateFile as replaced:
            return 0, str(replaced)
        lines = [_link(number, line) for number, line in enumerate(raw.splitlines(), start=1) if line.strip()]
        links = [link for link in lines if link is not None]  # a torn line is passed over, as on read
        broken = first_break(links)
        if broken is None and head is not None and head not in {stored for _, _, stored in links}:
            last = links[-1][0] if links else "its start (it is empty)"
            broken = tail_missing(last, f"a later entry (hash {head[:16]}…, kept in {self.head_path.name})")
        return len(lines), broken

    def _head(self) -> str | None:
        raw = read_private(self.head_path)
        if not raw and not self.head_path.exists():
            return None
        data = _json_object(raw)
        stored = data.get(HASH_FIELD) if data is not None else None
        return stored if isinstance(stored, str) else ""  # a head made unreadable names no entry: found as missing

    def entries(self, filter_text: str | None = None, action: str | None = None) -> list[AuditEntry]:
        """Stored events, newest first; `filter_text` matches any field, case-insensitively.

        An attempt that no outcome followed reads as outcome unknown (`mark_unsettled`).
        """
        found = [
            entry
            for entry in mark_unsettled(self._read())
            if (action is None or entry.action == action) and (not filter_text or entry.matches(filter_text))
        ]
        found.reverse()
        return found

    def _read(self) -> list[AuditEntry]:  # the hash is not an entry's field: it is dropped here
        raw = read_private(self.path)  # NotPrivateFile when it was replaced: never read through a link
        entries = []
        for number, line in enumerate(raw.splitlines(), start=1):
            if not line.strip():
                continue
            data = _json_object(line)
            try:
                if data is None:
                    raise ValueError("not a JSON object")
                data.pop(HASH_FIELD, None)
                entries.append(AuditEntry.model_validate(data))
            except (ValueError, ValidationError):
                log.warning("%s: skipped unreadable line %d", self.path, number)
        return entries


def _last_hash(lines: list[bytes]) -> str:
    """The hash the last whole entry carries: what the next one follows (a torn line is passed over, as on read)."""
    for line in reversed(lines):
        data = _json_object(line)
        if data is not None:
            stored = data.get(HASH_FIELD)
            return stored if isinstance(stored, str) else GENESIS
    return GENESIS


def _json_object(line: bytes) -> dict[str, object] | None:
    if depth_exceeds(line, Bounds.depth):  # no entry nests; parsed, it would exhaust the recursion
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _link(number: int, line: bytes) -> tuple[str, str, str | None] | None:
    """A line as a link of the chain; None for a torn line (a crash mid-write), passed over as on read."""
    data = _json_object(line)
    if data is None:
        return None
    stored = data.pop(HASH_FIELD, None)
    return f"line {number}", json.dumps(data, ensure_ascii=False), stored if isinstance(stored, str) else None


def mark_unsettled(entries: list[AuditEntry]) -> list[AuditEntry]:
    """Entries oldest first, each attempt that no later line of the same write settled shown as outcome unknown.

    Such an attempt is the trace of a write cut off while it waited (kill -9, a power cut):
    its detail keeps the command that checks what became of it.
    """
    open_attempts: dict[tuple[str, str, str], int] = {}
    for index, entry in enumerate(entries):
        key = (entry.profile, entry.action, entry.subject)
        if entry.outcome == ATTEMPT:
            open_attempts[key] = index
        else:
            open_attempts.pop(key, None)
    marked = list(entries)
    for index in open_attempts.values():
        marked[index] = marked[index].model_copy(update={"outcome": UNSETTLED})
    return marked


UNKNOWN = "outcome unknown"  # how the outcome of a write cut off or unanswered begins (tui.money)
CHECKED = "checked"  # how a line that settles such a write begins: someone looked the thing up
_CHECK = re.compile(r"check: (.+)$")


def unknown_outcomes(entries: Iterable[AuditEntry]) -> list[AuditEntry]:
    """The writes (profile, action, subject) whose last line says their outcome is unknown, oldest first:
    what a new start lists until someone checks them (DESIGN rule 12). `entries` newest first, as read."""
    last: dict[tuple[str, str, str], AuditEntry] = {}
    for entry in reversed(list(entries)):
        last[(entry.profile, entry.action, entry.subject)] = entry
    return [entry for entry in last.values() if entry.outcome.startswith(UNKNOWN)]


def check_command(entry: AuditEntry) -> str | None:
    """The command that checks what became of a write, as its lines name it (tui.money writes it)."""
    for text in (entry.outcome, entry.detail or ""):
        found = _CHECK.search(text)
        if found:
            return found.group(1)
    return None


def record_checked(audit: AuditStore, subject: str, found: str) -> None:
    """`subject` (a RequestId, a masked weblink) was looked up and `found` says what it is: each write of it
    whose outcome was unknown gets a line saying so, and is no longer listed as pending. A log that cannot
    be read or written is passed over: a read never fails for it."""
    try:
        for entry in unknown_outcomes(audit.entries(filter_text=subject)):
            if entry.subject == subject:
                audit.record(
                    profile=entry.profile,
                    environment=entry.environment,
                    action=entry.action,
                    subject=subject,
                    outcome=f"{CHECKED}: {found}",
                    wallet=entry.wallet,
                    recipient=entry.recipient,
                )
    except Exception as error:  # any store's failure (a full disk, the team database away)
        log.warning("the audit log could not settle %s: %s", mask_text(subject), error)
