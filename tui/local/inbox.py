"""The receiver's inbox: every delivery (callback or signed webhook) kept before it is answered.

One SQLite file per profile, `<data dir>/inbox/<profile>.sqlite3` (WAL, 0600 in a
0700 folder: `tui.local.database`), with `synchronous=FULL`: a commit is on the
disk (fsync'd) when `keep` returns, so the receiver's 2xx promises only what a
crash cannot take back. Processing comes after, from the inbox (`unprocessed`,
then `mark`): a crash between the two loses nothing.

An event id is kept once: `keep` says False for an id already kept, which is how
a redelivery (or a replay) is recognised. What is stored is free of secrets
(DESIGN rule 6): `masked_payload` drops the callback's `secretKey` and masks
recipients, card codes and PINs; a refused delivery keeps nothing from its body
at all, only the reason, and an id of its own (its claimed id is not trusted).

`InboxStore` is the interface; `SqliteInbox` the embedded one (the team store has
a PostgreSQL twin). No Textual.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import sqlite3
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from tui.api.redact import MASK, mask_card_code, mask_recipient
from tui.local.database import open_database, transaction
from tui.local.fileio import atomic_write, data_dir, ensure_private_dir

Verdict = Literal["accepted", "refused"]
ACCEPTED: Verdict = "accepted"
REFUSED: Verdict = "refused"

CALLBACK = "callback"  # the kind of a notification callback; a webhook's kind is its event type
WEBHOOK = "webhook"  # the kind of a refused webhook: its event type was not trusted


@dataclass(frozen=True)
class Delivery:
    """One delivery as the inbox keeps it.

    `event_id`: the webhook's `svix-id`, `callback:<requestId>` for a callback (the
    provider sends one per order, and resends the same), `refused:<random>` for a
    refused one. `kind`: "callback", the webhook's event type (`productupdated.v1`,
    ...), or "webhook" when refused. `payload`: the masked body; None when refused.
    `outcome`/`processed_at`: what processing did, None until then.
    """

    event_id: str
    kind: str
    verdict: Verdict
    received_at: datetime  # aware, UTC
    source: str  # the sender's address as the receiver saw it
    payload: Mapping[str, Any] | None = None
    reason: str = ""  # why it was refused; "" when accepted
    outcome: str | None = None
    processed_at: datetime | None = None

    @property
    def accepted(self) -> bool:
        return self.verdict == ACCEPTED

    @classmethod
    def accepted_now(cls, event_id: str, kind: str, payload: Mapping[str, Any], source: str) -> Delivery:
        """An accepted delivery received now; its payload is masked here."""
        return cls(event_id, kind, ACCEPTED, datetime.now(UTC), source, masked_payload(payload))

    @classmethod
    def refused_now(cls, kind: str, reason: str, source: str) -> Delivery:
        """A refused delivery received now: a fresh id, the reason, nothing from its body."""
        return cls(f"refused:{uuid.uuid4().hex}", kind, REFUSED, datetime.now(UTC), source, None, reason)


class InboxStore(Protocol):
    """What the receiver and its readers need of an inbox (one profile's)."""

    profile: str

    def keep(self, delivery: Delivery) -> bool:
        """Store it durably before returning; False (and nothing changed) if its event id is already kept."""

    def keep_all(self, deliveries: Sequence[Delivery]) -> list[bool]:
        """`keep` for several at once, in one durable commit (the receiver's group commit)."""

    def mark(self, event_id: str, outcome: str) -> None:
        """Processing of this delivery is done; `outcome` says what it did (a line for a person)."""

    def since(self, when: datetime | None = None) -> list[Delivery]:
        """Deliveries received at or after `when` (every one if None), oldest first."""

    def unprocessed(self) -> list[Delivery]:
        """Accepted deliveries not marked yet, oldest first: what processing still owes."""

    def claimed(self, event_id: str) -> AbstractContextManager[bool]:
        """True within it when this process, and no other, may process the delivery now (and it is not marked)."""

    def prune_refused(self, before: datetime) -> int:
        """Forget refused deliveries received before `before`; how many went."""

    def check(self) -> None:
        """Raise (saying why) unless a delivery could be kept now: the receiver's probe while it cannot write."""

    def close(self) -> None: ...


# --- what is kept of a payload -----------------------------------------------------------------

_SECRET_KEY = re.compile(r"secret|password|token|signature", re.IGNORECASE)
_RECIPIENT_KEY = re.compile(r"recipient|email|phone|handle", re.IGNORECASE)
_CARD_KEY = re.compile(r"^(card)?code$", re.IGNORECASE)
_PIN_KEY = re.compile(r"^(card)?pin$", re.IGNORECASE)
MAX_DEPTH = 16  # deeper than any payload we know; what lies below is not kept


def masked_payload(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A copy without secrets (dropped), recipients and card codes or PINs (masked)."""
    return _masked_object(payload, 0)


def _masked_object(data: Mapping[str, Any], depth: int) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in data.items():
        name = str(key)
        if _SECRET_KEY.search(name):
            continue
        if isinstance(value, str) and _RECIPIENT_KEY.search(name):
            kept[name] = mask_recipient(value)
        elif isinstance(value, str) and _CARD_KEY.match(name):
            kept[name] = mask_card_code(value)
        elif isinstance(value, str) and _PIN_KEY.match(name):
            kept[name] = MASK
        else:
            kept[name] = _masked_value(value, depth + 1)
    return kept


def _masked_value(value: Any, depth: int) -> Any:
    if depth > MAX_DEPTH:
        return None
    if isinstance(value, Mapping):
        return _masked_object(value, depth)
    if isinstance(value, list):
        return [_masked_value(item, depth + 1) for item in value]
    return value


# --- the embedded store --------------------------------------------------------------------------

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE deliveries (
        seq INTEGER PRIMARY KEY,
        event_id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('accepted', 'refused')),
        reason TEXT NOT NULL DEFAULT '',
        received_at TEXT NOT NULL,
        source TEXT NOT NULL,
        payload TEXT,
        outcome TEXT,
        processed_at TEXT
    );
    CREATE INDEX deliveries_by_time ON deliveries (received_at);
    CREATE INDEX deliveries_to_process ON deliveries (processed_at) WHERE verdict = 'accepted' AND processed_at IS NULL;
    """,
)

ROOM_NEEDED_BYTES = 1024 * 1024  # free space a probe wants before the receiver says it can keep deliveries again

_COLUMNS = "event_id, kind, verdict, reason, received_at, source, payload, outcome, processed_at"


def inbox_path(profile: str) -> Path:
    """The profile's inbox file (profile names are file-safe: tui.local.config)."""
    return data_dir() / "inbox" / f"{profile}.sqlite3"


class SqliteInbox:
    """One profile's inbox in its own SQLite file. Use it from one thread at a time."""

    def __init__(self, profile: str, path: Path | None = None, *, check_same_thread: bool = True) -> None:
        self.profile = profile
        self.path = path or inbox_path(profile)
        self._db = open_database(self.path, MIGRATIONS, check_same_thread=check_same_thread)
        # FULL: with WAL, each commit waits for the log's fsync, so a kept delivery survives a crash
        # or a power cut (NORMAL would sync at checkpoints only).
        self._db.execute("PRAGMA synchronous=FULL")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SqliteInbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def keep(self, delivery: Delivery) -> bool:
        return self.keep_all([delivery])[0]

    def keep_all(self, deliveries: Sequence[Delivery]) -> list[bool]:
        kept: list[bool] = []
        with transaction(self._db):
            for delivery in deliveries:
                cursor = self._db.execute(
                    f"INSERT INTO deliveries ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING",
                    _row(delivery),
                )
                kept.append(cursor.rowcount == 1)
        return kept

    def mark(self, event_id: str, outcome: str) -> None:
        with transaction(self._db):
            self._db.execute(
                "UPDATE deliveries SET outcome = ?, processed_at = ? WHERE event_id = ?",
                (outcome, _time(datetime.now(UTC)), event_id),
            )

    def since(self, when: datetime | None = None) -> list[Delivery]:
        if when is None:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM deliveries ORDER BY seq")
        else:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM deliveries WHERE received_at >= ? ORDER BY seq", (_time(when),)
            )
        return [_delivery(row) for row in rows]

    def unprocessed(self) -> list[Delivery]:
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM deliveries WHERE verdict = 'accepted' AND processed_at IS NULL ORDER BY seq"
        )
        return [_delivery(row) for row in rows]

    @contextmanager
    def claimed(self, event_id: str) -> Iterator[bool]:
        # One process works on a profile's file (the one receiver on its port): nothing to share.
        row = self._db.execute("SELECT processed_at IS NULL FROM deliveries WHERE event_id = ?", (event_id,)).fetchone()
        yield bool(row and row[0])

    def prune_refused(self, before: datetime) -> int:
        with transaction(self._db):
            cursor = self._db.execute(
                "DELETE FROM deliveries WHERE verdict = 'refused' AND received_at < ?", (_time(before),)
            )
        return cursor.rowcount

    def check(self) -> None:
        free = shutil.disk_usage(self.path.parent).free
        if free < ROOM_NEEDED_BYTES:
            raise OSError(f"the disk of {self.path.parent} is full ({free:,} bytes free)")
        self._db.execute("SELECT 1 FROM deliveries LIMIT 1").fetchall()


def _time(moment: datetime) -> str:
    """ISO 8601 in UTC with microseconds: sorts as text, which `since` relies on."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _row(delivery: Delivery) -> tuple[object, ...]:
    payload = None if delivery.payload is None else json.dumps(delivery.payload, ensure_ascii=False, default=str)
    processed = None if delivery.processed_at is None else _time(delivery.processed_at)
    return (
        delivery.event_id,
        delivery.kind,
        delivery.verdict,
        delivery.reason,
        _time(delivery.received_at),
        delivery.source,
        payload,
        delivery.outcome,
        processed,
    )


def _delivery(row: sqlite3.Row | tuple[Any, ...]) -> Delivery:
    event_id, kind, verdict, reason, received, source, payload, outcome, processed = row
    return Delivery(
        event_id,
        kind,
        ACCEPTED if verdict == ACCEPTED else REFUSED,
        datetime.fromisoformat(received),
        source,
        None if payload is None else json.loads(payload),
        reason,
        outcome,
        None if processed is None else datetime.fromisoformat(processed),
    )


# --- the receiver's heartbeat ------------------------------------------------------------------------

HEARTBEAT_FRESH_SECONDS = 15.0  # a heartbeat older than this is a receiver gone (killed, the machine off)


@dataclass(frozen=True)
class Heartbeat:
    """A receiver at work on a profile's inbox: which program, where it listens, on which machine, since when."""

    who: str
    url: str
    host: str
    pid: int
    at: datetime


def heartbeat_path(profile: str) -> Path:
    return data_dir() / "inbox" / f"{profile}.receiver.json"


def write_heartbeat(profile: str, url: str, who: str) -> None:
    """Say (every few seconds) that this process receives into the profile's inbox."""
    path = heartbeat_path(profile)
    ensure_private_dir(path.parent)
    beat = {"who": who, "url": url, "host": socket.gethostname(), "pid": os.getpid(), "at": _time(datetime.now(UTC))}
    atomic_write(path, json.dumps(beat).encode())


def forget_heartbeat(profile: str) -> None:
    """This process stopped receiving (only its own heartbeat is removed)."""
    beat = read_heartbeat(profile, others_only=False)
    if beat is not None and beat.pid == os.getpid() and beat.host == socket.gethostname():
        heartbeat_path(profile).unlink(missing_ok=True)


def read_heartbeat(profile: str, *, others_only: bool = True) -> Heartbeat | None:
    """The fresh heartbeat of a receiver on the profile's inbox (another process's, unless `others_only` is
    False); None when there is none, it is stale, or its process on this machine is gone."""
    try:
        data = json.loads(heartbeat_path(profile).read_bytes())
        beat = Heartbeat(
            str(data["who"]), str(data["url"]), str(data["host"]), int(data["pid"]), datetime.fromisoformat(data["at"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if (datetime.now(UTC) - beat.at).total_seconds() > HEARTBEAT_FRESH_SECONDS:
        return None
    if beat.host == socket.gethostname():
        if others_only and beat.pid == os.getpid():
            return None
        try:
            os.kill(beat.pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:  # alive, another user's
            pass
    return beat
