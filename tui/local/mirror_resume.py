"""The pages of an unfinished full sync of the catalog mirror, kept so that the next one resumes (issue 27).

At the catalog's limit (1 page a second) a 1,000-page catalog takes over a
quarter of an hour; an interruption must not cost it all again. Each page of
a full walk is kept here as it comes, beside the mirror (`<mirror>.resume`),
until the sync that stores them commits: the mirror itself is written in one
transaction, so it stays whole (the previous sync's) until then. The next
full sync takes the pages kept, in the same order and size, and asks the
service only for the rest; it records the first attempt's start as its own,
so the next incremental sync asks for every change since the oldest page.
Pages kept longer than KEPT_FOR are dropped: the catalog is refreshed hourly.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from tui.local.fileio import ensure_private_dir

KEPT_FOR = 3600.0  # seconds
SCHEMA = """
CREATE TABLE IF NOT EXISTS attempt (started TEXT NOT NULL, at REAL NOT NULL, page_size INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS pages (page_index INTEGER PRIMARY KEY, body BLOB NOT NULL);
"""


class PageStash:
    def __init__(self, mirror_path: Path, page_size: int, *, clock: Callable[[], float] = time.time) -> None:
        self.path = mirror_path.with_name(mirror_path.name + ".resume")
        ensure_private_dir(self.path.parent)
        self.path.touch(mode=0o600, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.executescript(SCHEMA)
        attempt = self._db.execute("SELECT started, at, page_size FROM attempt").fetchone()
        if attempt is not None and (attempt[2] != page_size or clock() - attempt[1] > KEPT_FOR):
            self.clear()
            attempt = None
        self.resumed_from: str | None = attempt[0] if attempt else None  # the first attempt's start
        self._page_size, self._clock = page_size, clock

    def begin(self, started: str) -> str:
        """The start the sync records: the first attempt's when it resumes one, else `started`."""
        if self.resumed_from is None:
            self._db.execute("INSERT INTO attempt VALUES (?, ?, ?)", (started, self._clock(), self._page_size))
            return started
        return self.resumed_from

    def page(self, index: int) -> bytes | None:
        row = self._db.execute("SELECT body FROM pages WHERE page_index = ?", (index,)).fetchone()
        return bytes(row[0]) if row else None

    def keep(self, index: int, body: bytes) -> None:
        self._db.execute("INSERT OR REPLACE INTO pages VALUES (?, ?)", (index, body))

    def clear(self) -> None:
        """The sync committed (or the pages are too old): nothing to resume."""
        self._db.executescript("DELETE FROM pages; DELETE FROM attempt;")

    def close(self) -> None:
        self._db.close()
