"""Local state under the user data dir: the audit log, recent orders, chosen accounts.

No Textual here (a test checks it). GIFTDESK_DATA_DIR overrides the directory.
Every file is mode 0600; the JSON files are replaced atomically, the audit log
only ever grows by whole lines.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from tui.api.redact import MASK, mask_recipient, mask_text
from tui.local.fileio import append_line, atomic_write, data_dir

log = logging.getLogger(__name__)

AUDIT_FILE = "audit.jsonl"
RECENT_ORDERS_FILE = "recent_orders.json"
CHOSEN_ACCOUNTS_FILE = "chosen_accounts.json"
RECENT_ORDERS_LIMIT = 50

# Audit actions the app records; other names are accepted (a newer version may add some).
REDEEM = "redeem"
TEST_ORDER = "test-order"
NOTIFICATION_CHANGE = "notification-change"
CARD_REVEAL = "card-reveal"
CARD_COPY = "card-copy"
AUDIT_ACTIONS = (REDEEM, TEST_ORDER, NOTIFICATION_CHANGE, CARD_REVEAL, CARD_COPY)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


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
                time=_now(),
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
        """Stored events, newest first; `filter_text` matches any field, case-insensitively."""
        found = [
            entry
            for entry in self._read()
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


# --- small JSON state files ---------------------------------------------------------------


class _JsonState:
    """A small JSON document replaced atomically on every change.

    Re-read before each change, so the TUI and a CLI command in another
    terminal do not undo each other. These files are conveniences: an
    unreadable one is logged and treated as empty, not fatal.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("%s: unreadable (%s); starting afresh", self.path, type(exc).__name__)
            return {}
        if not isinstance(data, dict):
            log.warning("%s: unexpected content; starting afresh", self.path)
            return {}
        return data

    def write(self, data: dict[str, Any]) -> None:
        atomic_write(self.path, json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"))


@dataclass(frozen=True)
class RecentOrder:
    request_id: str
    status: str | None  # at the last look
    time: str  # of the last look, ISO 8601 UTC


class RecentOrders:
    """The last 50 RequestIds looked up, per profile, newest first."""

    def __init__(self, path: Path | str | None = None, limit: int = RECENT_ORDERS_LIMIT) -> None:
        self._state = _JsonState(Path(path) if path is not None else data_dir() / RECENT_ORDERS_FILE)
        self.limit = limit

    @property
    def path(self) -> Path:
        return self._state.path

    def record(self, profile_name: str, request_id: str, status: str | None) -> None:
        """Notes a look at an order: it moves to the top with its status now."""
        data = self._state.read()
        orders = [o for o in self._parse(data.get(profile_name)) if o.request_id != request_id]
        orders.insert(0, RecentOrder(request_id, status, _now()))
        data[profile_name] = [asdict(o) for o in orders[: self.limit]]
        self._state.write(data)

    def entries(self, profile_name: str) -> list[RecentOrder]:
        return self._parse(self._state.read().get(profile_name))

    def request_ids(self) -> list[str]:
        """Every profile's recent RequestIds, newest first, each once (for shell completion)."""
        orders = [order for items in self._state.read().values() for order in self._parse(items)]
        newest = sorted(orders, key=lambda order: order.time, reverse=True)
        return list(dict.fromkeys(order.request_id for order in newest))

    @staticmethod
    def _parse(items: Any) -> list[RecentOrder]:
        if not isinstance(items, list):
            return []
        return [
            RecentOrder(item["request_id"], item.get("status"), item.get("time", ""))
            for item in items
            if isinstance(item, dict) and isinstance(item.get("request_id"), str)
        ]


class ChosenAccounts:
    """The account chosen per profile, tied to the environment it was chosen in.

    A profile whose environment changed (edited, or removed and re-added) gets
    no account back: sandbox and production account ids must never mix.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self._state = _JsonState(Path(path) if path is not None else data_dir() / CHOSEN_ACCOUNTS_FILE)

    @property
    def path(self) -> Path:
        return self._state.path

    def get(self, profile_name: str, environment: str) -> int | None:
        chosen = self._state.read().get(profile_name)
        if not isinstance(chosen, dict) or chosen.get("environment") != environment:
            return None
        account_id = chosen.get("account_id")
        return account_id if type(account_id) is int else None

    def set(self, profile_name: str, environment: str, account_id: int) -> None:
        data = self._state.read()
        data[profile_name] = {"account_id": account_id, "environment": environment, "time": _now()}
        self._state.write(data)

    def clear(self, profile_name: str) -> None:
        data = self._state.read()
        if data.pop(profile_name, None) is not None:
            self._state.write(data)
