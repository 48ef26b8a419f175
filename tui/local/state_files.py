"""Small JSON state files under the user data dir: recent orders, chosen accounts.

No Textual, no pydantic: the TUI reads the chosen account as it starts (issue 16).
Each file is mode 0600 and replaced atomically; `tui.local.storage` names these too.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tui.local.fileio import atomic_write, data_dir

log = logging.getLogger("tui.local.storage")  # the name these files always logged under

RECENT_ORDERS_FILE = "recent_orders.json"
CHOSEN_ACCOUNTS_FILE = "chosen_accounts.json"
RECENT_ORDERS_LIMIT = 50


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --- small JSON state files ---------------------------------------------------------------


class _JsonState:
    """A small JSON document replaced atomically on every change.

    Re-read before each change, so the TUI and a CLI command in another
    terminal do not undo each other. These files are conveniences: one that
    cannot be read is treated as empty, not fatal; one whose content is
    corrupt is first moved aside (`set_aside` names where), never overwritten.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.set_aside: Path | None = None  # where a corrupt file was moved, this run

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except OSError as exc:
            log.warning("%s: unreadable (%s); starting afresh", self.path, type(exc).__name__)
            return {}
        except ValueError:
            data = None
        if not isinstance(data, dict):
            self._move_aside()
            return {}
        return data

    def _move_aside(self) -> None:
        """Keep the corrupt file beside the new one: what it held may still be read by a person."""
        aside = self.path.with_name(f"{self.path.name}.corrupt-{datetime.now(UTC):%Y%m%dT%H%M%S%f}")
        try:
            self.path.rename(aside)
        except OSError as exc:
            log.warning("%s: corrupt, and it could not be moved aside (%s)", self.path, exc.strerror)
            return
        self.set_aside = aside
        log.warning("%s: corrupt; kept aside as %s, starting afresh", self.path, aside.name)

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

    @property
    def set_aside(self) -> Path | None:
        """Where a corrupt file was moved (it is never overwritten), once a read found it so."""
        return self._state.set_aside

    def record(self, profile_name: str, request_id: str, status: str | None) -> None:
        """Notes a look at an order: it moves to the top with its status now."""
        data = self._state.read()
        orders = [o for o in self._parse(data.get(profile_name)) if o.request_id != request_id]
        orders.insert(0, RecentOrder(request_id, status, now_iso()))
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
        data[profile_name] = {"account_id": account_id, "environment": environment, "time": now_iso()}
        self._state.write(data)

    def clear(self, profile_name: str) -> None:
        data = self._state.read()
        if data.pop(profile_name, None) is not None:
            self._state.write(data)
