"""The catalog mirror's writer: a process of its own that reads a sync's pages and stores them.

A first sync reads ~100,000 products (Python) and writes them with SQLite. In the
syncing process both compete for the interpreter's lock with the fetching of the
pages (and in the TUI with the drawing): the fetching waited for them, and they
for it. Here they run beside it: the syncing process fetches and hands each page's
body over as it comes; in the writer one thread reads the pages (`catalog_rows`)
while the other stores the rows read before (SQLite lets go of the lock while it
writes). Measured on 2 CPUs: a first sync of 99,981 products, 2.6 s -> 2.1 s.

Both ends are this module, so the pipes carry pickled tuples, each framed by its
length (4 bytes, big-endian):
- to the writer: ("page", body, whole, counted), ("remove_unseen",), ("counts",),
  ("finish", kind, requests);
- from it: ("stored", steps) as pages are stored, and in order one answer to each
  other request: ("removed",), ("counts", brands, products), ("done", changes), or
  ("failed", kind, message), after which it stops.
The writer takes the mirror's write lock (BEGIN IMMEDIATE) as it starts and commits
on "finish". Its input closing before that (the sync cancelled, failed or killed)
rolls the whole sync back: the previous mirror stays as it was.
"""

from __future__ import annotations

import asyncio
import gc
import pickle
import queue
import sqlite3
import sys
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

from tui.api.errors import MalformedResponseError
from tui.local.database import DatabaseError, transaction
from tui.local.mirror import Mirror, now_utc, store_rows
from tui.local.mirror_rows import CatalogRows, catalog_rows

# How much the syncing process may hand over before it waits for the writer to catch up.
WRITE_AHEAD_BYTES = 16 * 1024 * 1024
# The writer's two threads hand the interpreter's lock over after this long rather than 5 ms:
# the storing thread lets go of it for every statement SQLite runs and waits for it after.
SWITCH_INTERVAL_SECONDS = 0.001
STOP_SECONDS = 5.0  # a writer that does not stop this long after its input closed is killed

Progress = Callable[..., None]


class WriterStopped(Exception):
    """The writer's input closed before "finish": nothing is committed."""


# --- framing ----------------------------------------------------------------------------------


def _frame(message: tuple[Any, ...]) -> bytes:
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


# --- the syncing process's side -------------------------------------------------------------


_ERRORS: dict[str, Callable[[str], Exception]] = {
    "malformed": MalformedResponseError,
    "locked": sqlite3.OperationalError,
    "database": DatabaseError,
}


class MirrorWriter:
    """The writer process as the sync sees it: pages handed over and questions asked, in order."""

    def __init__(self, process: asyncio.subprocess.Process, advance: Progress) -> None:
        self.process, self.advance = process, advance
        self.answers: asyncio.Queue[tuple[Any, ...] | None] = asyncio.Queue()
        self.failure: Exception | None = None
        self.listening = asyncio.ensure_future(self._listen())

    @classmethod
    @asynccontextmanager
    async def started(cls, path: Path, at: str, advance: Progress) -> AsyncIterator[MirrorWriter]:
        """The writer for the mirror at `path` (the sync's time `at`); stopped on leaving, rolled back
        unless `finish` was answered."""
        process = await asyncio.create_subprocess_exec(
            # -P: the current directory is not put on the path, so no folder there can pass for tui.
            sys.executable, "-P", "-m", "tui.local.mirror_writer", str(path), at,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # the terminal's Ctrl-C reaches the sync, which stops its writer
        )
        assert process.stdin is not None
        process.stdin.transport.set_write_buffer_limits(high=WRITE_AHEAD_BYTES)
        writer = cls(process, advance)
        try:
            yield writer
        finally:
            await writer.stop()

    async def _listen(self) -> None:
        """Progress as it is stored; the answers, in order; the writer's failure, kept."""
        assert self.process.stdout is not None
        try:
            while True:
                head = await self.process.stdout.readexactly(4)
                message = pickle.loads(await self.process.stdout.readexactly(int.from_bytes(head, "big")))
                if message[0] == "stored":
                    self.advance(message[1])
                    continue
                if message[0] == "failed":
                    self.failure = _ERRORS.get(message[1], RuntimeError)(message[2])
                await self.answers.put(message)
        except asyncio.IncompleteReadError:
            pass  # it stopped: what it said before is in the queue
        finally:
            await self.answers.put(None)

    async def page(self, body: bytes, *, whole: bool, counted: bool = True) -> None:
        """Hand a page's body over (`whole`: all its brands' products); `counted`: a progress step once stored."""
        await self._send(("page", body, whole, counted))

    async def ask(self, *request: Any) -> tuple[Any, ...]:
        """The answer to a request, once every page handed over before it is stored."""
        await self._send(request)
        answer = await self.answers.get()
        if answer is None or answer[0] == "failed":
            raise await self._failed()
        return answer

    async def finish(self, kind: str, requests: int) -> int:
        """Record the sync and commit it; the number of changes recorded."""
        changes: int = (await self.ask("finish", kind, requests))[1]
        return changes

    async def _send(self, message: tuple[Any, ...]) -> None:
        if self.failure is not None:
            raise self.failure
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(_frame(message))
            await self.process.stdin.drain()  # waits only past WRITE_AHEAD_BYTES
        except (BrokenPipeError, ConnectionResetError):
            raise await self._failed() from None

    async def _failed(self) -> Exception:
        """What stopped the writer: its own failure, else what it printed as it ended."""
        await self.listening
        if self.failure is not None:
            return self.failure
        assert self.process.stderr is not None
        said = (await self.process.stderr.read()).decode(errors="replace").strip().splitlines()
        return RuntimeError(f"the catalog mirror's writer stopped ({said[-1] if said else 'no message'}); "
                            "the mirror is as it was: sync again")

    async def stop(self) -> None:
        """Close its input (uncommitted work is rolled back) and wait for it to end; killed if it lingers.

        Waited for even when the sync is cancelled: the mirror's write lock is free once this returns."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), STOP_SECONDS)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
        except asyncio.CancelledError:
            self.process.kill()
            await asyncio.shield(self.process.wait())
            raise
        finally:
            self.listening.cancel()


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
            if message is None or message[0] != "page" or message[2] != whole or not seen.isdisjoint(message[1].brand_ids):
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
        out.write(_frame(message))
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
    except sqlite3.OperationalError as error:
        say(("failed", "locked", str(error)))
    except (DatabaseError, sqlite3.DatabaseError) as error:
        say(("failed", "database", str(error)))
    # The syncing side closes the input once answered (or it is gone): the reading ends there. Left
    # reading, it would hold stdin's lock, and the interpreter's exit would wait a second for it.
    reading.join()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
