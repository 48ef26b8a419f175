"""The catalog mirror's writer: a process of its own that reads a sync's pages and stores them.

A first sync reads ~100,000 products (Python) and writes them with SQLite. In the
syncing process both compete for the interpreter's lock with the fetching of the
pages (and in the TUI with the drawing): the fetching waited for them, and they
for it. Here they run beside it: the syncing process fetches and hands each page's
body over as it comes; in the writer one thread reads the pages (`catalog_rows`)
while the other stores the rows read before (SQLite lets go of the lock while it
writes). Measured on 2 CPUs: a first sync of 99,981 products, 2.6 s -> 2.1 s.

The other end is giftdesk's own sync (tui/local/mirror_sync.py `MirrorWriter`), so
the pipes carry pickled tuples, each framed by its length (4 bytes, big-endian, `frame`):
- to the writer: ("page", body, whole, counted), ("remove_unseen",), ("counts",),
  ("finish", kind, requests);
- from it: ("stored", steps) as pages are stored, and in order one answer to each
  other request: ("removed",), ("counts", brands, products), ("done", changes), or
  ("failed", kind, message), after which it stops (kind: malformed, locked, full, readonly or database).
The writer takes the mirror's write lock (BEGIN IMMEDIATE) as it starts and commits
on "finish". Its input closing before that (the sync cancelled, failed or killed)
rolls the whole sync back: the previous mirror stays as it was.
"""

from __future__ import annotations

import gc
import pickle
import queue
import sqlite3
import sys
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from tui.api.errors import MalformedResponseError
from tui.local.database import DatabaseError, failure_kind, transaction
from tui.local.mirror import Mirror, now_utc, store_rows
from tui.local.mirror_rows import CatalogRows, catalog_rows

# The writer's two threads hand the interpreter's lock over after this long rather than 5 ms:
# the storing thread lets go of it for every statement SQLite runs and waits for it after.
SWITCH_INTERVAL_SECONDS = 0.001


class WriterStopped(Exception):
    """The writer's input closed before "finish": nothing is committed."""


# --- framing ----------------------------------------------------------------------------------


def frame(message: tuple[Any, ...]) -> bytes:
    """A message as it goes down a pipe, either way."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(4, "big") + data


def _read_frame(stream: IO[bytes]) -> tuple[Any, ...] | None:
    """The next message; None at the end, a frame cut short (its writer killed mid-write) included."""
    head = stream.read(4)
    if len(head) < 4:
        return None
    size = int.from_bytes(head, "big")
    data = stream.read(size)
    if len(data) < size:
        return None
    message: tuple[Any, ...] = pickle.loads(data)
    return message


# --- the writer process -----------------------------------------------------------------------


def _read_requests(stream: IO[bytes], requests: queue.SimpleQueue[Any], closed: threading.Event) -> None:
    """The reading thread: requests in order, pages read into rows (or the reason they cannot be); None
    and `closed` at the end."""
    try:
        while (message := _read_frame(stream)) is not None:
            if message[0] == "page":
                _, body, whole, counted = message
                try:
                    message = ("page", catalog_rows(body), whole, counted)
                except MalformedResponseError as error:
                    message = ("unreadable", error)
            requests.put(message)
    finally:  # whatever ended the reading, the storing thread must learn of it
        closed.set()
        requests.put(None)


class _Requests:
    """The requests as the storing thread takes them: pages that waited together come as one."""

    def __init__(self, incoming: queue.SimpleQueue[Any], closed: threading.Event) -> None:
        self.incoming, self.closed = incoming, closed
        self.held: deque[Any] = deque()  # taken while gathering pages, not yet served

    def next(self) -> tuple[Any, ...]:
        """The next request; WriterStopped once the input closed (what waits is not stored: it is all
        rolled back, and the sooner the lock is free the better)."""
        message = self.held.popleft() if self.held else self.incoming.get()
        if message is None or self.closed.is_set():
            raise WriterStopped
        if message[0] == "unreadable":
            raise message[1]
        if message[0] == "page":
            return self._gathered(message)
        return tuple(message)

    def _gathered(self, first: tuple[Any, ...]) -> tuple[Any, ...]:
        """`first` and the pages waiting right after it alike (`whole`, no brand twice), as one page."""
        _, rows, whole, counted = first
        steps = int(counted)
        seen = set(rows.brand_ids)
        while not self.held:
            try:
                message = self.incoming.get_nowait()
            except queue.Empty:
                break
            if (
                message is None
                or message[0] != "page"
                or message[2] != whole
                or not seen.isdisjoint(message[1].brand_ids)
            ):
                self.held.append(message)
                break
            rows = rows.joined(message[1])
            seen.update(message[1].brand_ids)
            steps += message[3]
        return "page", rows, whole, steps


def _serve(mirror: Mirror, at: str, requests: _Requests, say: Callable[[tuple[Any, ...]], None]) -> int:
    """Store and answer until "finish" (inside the sync's transaction); the number of changes recorded."""
    storing = store_rows(mirror, at)
    while True:
        request = requests.next()
        match request:
            case ("page", CatalogRows() as rows, bool(whole), int(steps)):
                storing.page(rows, whole=whole)
                if steps:
                    say(("stored", steps))
            case ("remove_unseen",):
                storing.remove_unseen()
                say(("removed",))
            case ("counts",):
                say(("counts", *mirror.counts()))
            case ("finish", str(kind), int(fetched)):
                storing.record(kind, fetched, now_utc().isoformat(timespec="seconds"), *mirror.counts())
                return storing.changes
            case _:
                raise ValueError(f"unknown request {request[0]!r}")


def main(path: str, at: str) -> int:
    gc.disable()  # it lives for one sync, and its rows are acyclic: reference counting frees them
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    out = sys.stdout.buffer

    def say(message: tuple[Any, ...]) -> None:
        out.write(frame(message))
        out.flush()

    incoming: queue.SimpleQueue[Any] = queue.SimpleQueue()
    closed = threading.Event()
    reading = threading.Thread(target=_read_requests, args=(sys.stdin.buffer, incoming, closed), name="pages")
    reading.start()
    try:
        with Mirror(Path(path)) as mirror, transaction(mirror.db):
            changes = _serve(mirror, at, _Requests(incoming, closed), say)
        say(("done", changes))
    except WriterStopped:
        return 0  # rolled back: the sync gave up
    except MalformedResponseError as error:
        say(("failed", "malformed", error.message))
    except (DatabaseError, sqlite3.DatabaseError) as error:
        say(("failed", failure_kind(error), str(error)))
    # The syncing side closes the input once answered (or it is gone): the reading ends there. Left
    # reading, it would hold stdin's lock, and the interpreter's exit would wait a second for it.
    reading.join()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
