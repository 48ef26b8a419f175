"""Local state under the user data dir: the audit log, recent orders, chosen accounts.

No Textual here (a test checks it). GIFTDESK_DATA_DIR overrides the directory.
Every file is mode 0600; the JSON files are replaced atomically, the audit log
only ever grows by whole lines. Recent orders and chosen accounts live in
`tui.local.state_files` (no pydantic: the TUI reads the chosen account as it
starts) and are named here too.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from tui.api.redact import MASK, mask_recipient, mask_text
from tui.local.fileio import append_line, data_dir
from tui.local.state_files import ChosenAccounts, RecentOrder, RecentOrders, now_iso

__all__ = [
    "ATTEMPT", "AUDIT_ACTIONS", "CARD_COPY", "CARD_REVEAL", "NOTIFICATION_CHANGE", "REDEEM", "TEST_ORDER",
    "AuditEntry", "AuditLog", "ChosenAccounts", "RecentOrder", "RecentOrders", "mark_unsettled",
]

log = logging.getLogger(__name__)

AUDIT_FILE = "audit.jsonl"

# Audit actions the app records; other names are accepted (a newer version may add some).
REDEEM = "redeem"
TEST_ORDER = "test-order"
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
        return any(
            needle in value.casefold()
            for value in self.model_dump().values()
            if isinstance(value, str)
        )


def _redacted(entry: AuditEntry) -> AuditEntry:
    """Masks again whatever the caller should have masked already: never a secret on disk."""
    values = {
        key: mask_text(value) if isinstance(value, str) else value
        for key, value in entry.model_dump().items()
    }
    recipient = values.get("recipient")
    if recipient and MASK not in recipient:  # a phone or handle in clear has no shape mask_text knows
        values["recipient"] = mask_recipient(recipient)
    return AuditEntry(**values)


class AuditLog:
    """Append-only JSON lines, one per event. A torn last line (crash mid-write) is skipped on read."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else data_dir() / AUDIT_FILE

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
        """Appends one event (time = now, UTC) and returns it as stored."""
        if not action:
            raise ValueError("an audit entry needs an action")
        entry = _redacted(
            AuditEntry(
                time=now_iso(),
                profile=profile,
                environment=environment,
                action=action,
                subject=subject,
                outcome=outcome,
                wallet=wallet,
                recipient=recipient,
                detail=detail,
            )
        )
        line = json.dumps(entry.model_dump(exclude_none=True), ensure_ascii=False) + "\n"
        append_line(self.path, line.encode("utf-8"))
        return entry

    def entries(self, filter_text: str | None = None, action: str | None = None) -> list[AuditEntry]:
        """Stored events, newest first; `filter_text` matches any field, case-insensitively.

        An attempt that no outcome followed reads as outcome unknown (`mark_unsettled`).
        """
        found = [
            entry
            for entry in mark_unsettled(self._read())
            if (action is None or entry.action == action)
            and (not filter_text or entry.matches(filter_text))
        ]
        found.reverse()
        return found

    def _read(self) -> list[AuditEntry]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        entries = []
        for number, line in enumerate(raw.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                entries.append(AuditEntry.model_validate(json.loads(line)))
            except (ValueError, ValidationError):  # json's errors are ValueErrors too
                log.warning("%s: skipped unreadable line %d", self.path, number)
        return entries


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
