"""Notes on orders: free text a support engineer leaves on a RequestId ("customer called 10:42, code re-sent").

`NoteStore` is the interface; `SqliteNotes` keeps them on this machine
(`<data dir>/notes.sqlite3`, 0600), the team store has a PostgreSQL twin that
every giftdesk of the team sees (tui.team.notes). A note's body is masked
like the audit log's values before it is stored (a pasted card code or
recipient never lands on disk in clear) and is outside text when shown
(DESIGN rule 8). No Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from tui.api.redact import MASK, mask_card_code, mask_phone, mask_text
from tui.local.database import open_database, transaction
from tui.local.fileio import data_dir

FILE_NAME = "notes.sqlite3"
MAX_NOTE_CHARS = 2000  # a note is a line or a paragraph, not a document

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE notes (
        id INTEGER PRIMARY KEY,
        profile TEXT NOT NULL,
        request_id TEXT NOT NULL,
        author TEXT NOT NULL,
        written_at TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX notes_by_order ON notes (profile, request_id, id);
    """,
)

COLUMNS = "id, profile, request_id, author, written_at, body"


@dataclass(frozen=True)
class Note:
    id: int
    profile: str
    request_id: str
    author: str
    written_at: str  # ISO 8601, UTC
    body: str  # masked; outside text: show it with tui.core.safe_text / widgets.safe_text


class NoteStore(Protocol):
    def add(self, profile: str, request_id: str, body: str) -> Note:
        """Keep a note (its body checked and masked); ValueError says what is wrong with it."""

    def for_order(self, profile: str, request_id: str) -> list[Note]:
        """The order's notes, oldest first."""

    def noted_orders(self, profile: str) -> dict[str, int]:
        """RequestId -> how many notes it has: the Orders board's mark."""

    def close(self) -> None: ...


# Beyond mask_text's shapes (weblinks, emails, registered secrets), what a person pastes into a note:
# a card code (dash-separated groups of letters and digits, or a long run of digits; a RequestId's GUID is kept),
# a phone number, a PIN said as such.
_GUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_CODE_LIKE = re.compile(r"\b(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]{4,}(?:-[A-Za-z0-9]{4,}){2,}\b|\b\d{10,}\b")
_PHONE = re.compile(r"\+\d[\d ()-]{6,}\d")
_PIN = re.compile(r"(\bpin\b\W{0,3})(\d{3,8})\b", re.IGNORECASE)


def mask_note(text: str) -> str:
    text = mask_text(text)
    text = _PHONE.sub(lambda match: mask_phone(match.group()), text)
    text = _CODE_LIKE.sub(
        lambda match: match.group() if _GUID.fullmatch(match.group()) else mask_card_code(match.group()), text
    )
    return _PIN.sub(lambda match: match.group(1) + MASK, text)


def checked_body(body: str) -> str:
    """The body as stored: stripped, not empty, bounded, masked (`mask_note`)."""
    text = body.strip()
    if not text:
        raise ValueError("a note needs some text")
    if len(text) > MAX_NOTE_CHARS:
        raise ValueError(f"a note is at most {MAX_NOTE_CHARS} characters (this one has {len(text)})")
    return mask_note(text)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def note_from(row: Any) -> Note:
    note_id, profile, request_id, author, written_at, body = row
    return Note(int(note_id), profile, request_id, author, written_at, body)


class SqliteNotes:
    """This machine's notes (every profile's); `author` signs the notes added here."""

    def __init__(self, author: str, path: Path | None = None) -> None:
        self.author = author
        self._db = open_database(path or data_dir() / FILE_NAME, MIGRATIONS)

    def close(self) -> None:
        self._db.close()

    def add(self, profile: str, request_id: str, body: str) -> Note:
        text = checked_body(body)
        with transaction(self._db):
            cursor = self._db.execute(
                "INSERT INTO notes (profile, request_id, author, written_at, body) VALUES (?, ?, ?, ?, ?)",
                (profile, request_id.strip(), self.author, now_iso(), text),
            )
            row = self._db.execute(f"SELECT {COLUMNS} FROM notes WHERE id = ?", (cursor.lastrowid,)).fetchone()
        return note_from(row)

    def for_order(self, profile: str, request_id: str) -> list[Note]:
        rows = self._db.execute(
            f"SELECT {COLUMNS} FROM notes WHERE profile = ? AND request_id = ? ORDER BY id",
            (profile, request_id.strip()),
        )
        return [note_from(row) for row in rows]

    def noted_orders(self, profile: str) -> dict[str, int]:
        rows = self._db.execute(
            "SELECT request_id, COUNT(*) FROM notes WHERE profile = ? GROUP BY request_id", (profile,)
        )
        return {request_id: int(count) for request_id, count in rows}
