"""Syncing the catalog mirror (tui.local.mirror) with the service: this process fetches the pages.

The pages are read and stored by the mirror's writer process
(tui/local/mirror_writer.py), in one transaction it commits at the end.
"""

from __future__ import annotations

import asyncio
import pickle
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.api.bounds import page_count
from tui.api.errors import MalformedResponseError
from tui.local.database import DatabaseError
from tui.local.mirror import Mirror, SyncResult, now_utc
from tui.local.mirror_resume import PageStash
from tui.local.mirror_rows import catalog_rows
from tui.local.mirror_writer import frame

if TYPE_CHECKING:
    from tui.api.client import ServiceClient
    from tui.api.models import CatalogQuery

PAGE_SIZE = 100  # DESIGN: the service's maximum is not published; we cap at 100
SYNC_CONCURRENCY = 4  # pages in flight at once, as `catalog --all` (each waits its turn at the catalog's limit)
# How much the syncing process may hand over before it waits for the writer to catch up.
WRITE_AHEAD_BYTES = 16 * 1024 * 1024
STOP_SECONDS = 5.0  # a writer that does not stop this long after its input closed is killed

Progress = Callable[..., None]  # advance(steps=1, total=None), as tui.commands.progress


def _no_progress(steps: int = 1, total: int | None = None) -> None:
    """Nobody is watching."""


# The writer's failures (mirror_writer `_kind`), each said with what is true and what to do. The mirror
# is always as it was: the writer fails before its commit, which rolls everything back.
_ERRORS: dict[str, Callable[[str], Exception]] = {
    "malformed": MalformedResponseError,
    "locked": lambda said: DatabaseError(
        f"the catalog mirror is being written by another sync ({said}); this sync stored nothing. "
        "Sync again once the other is done."
    ),
    "full": lambda said: DatabaseError(
        f"the catalog mirror could not be written: the disk is full ({said}); the mirror is as it was. "
        "Free some space in giftdesk's data folder and sync again."
    ),
    "readonly": lambda said: DatabaseError(
        f"the catalog mirror cannot be written ({said}); the mirror is as it was. "
        "Make giftdesk's data folder and its catalog files writable and sync again."
    ),
    "database": lambda said: DatabaseError(
        f"the catalog mirror could not be written ({said}); the mirror is as it was."
    ),
}


class WriterStopped(DatabaseError):
    """The writer process ended without saying why (killed): whether its sync was committed is looked up."""


class MirrorWriter:
    """The writer process (tui/local/mirror_writer.py) as the sync sees it: pages handed over and questions asked, in order."""

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
            sys.executable,
            "-P",
            "-m",
            "tui.local.mirror_writer",
            str(path),
            at,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
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
            self.process.stdin.write(frame(message))
            await self.process.stdin.drain()  # waits only past WRITE_AHEAD_BYTES
        except (BrokenPipeError, ConnectionResetError):
            raise await self._failed() from None

    async def _failed(self) -> Exception:
        """What stopped the writer: its own failure, else what it printed as it ended."""
        if self.failure is not None:
            # Said before it stopped; it ends only once its input closes (stop()): waiting for that
            # here was the sync's hang (issue 24 item 4).
            return self.failure
        await self.listening
        if self.failure is not None:
            return self.failure
        assert self.process.stderr is not None
        said = (await self.process.stderr.read()).decode(errors="replace").strip().splitlines()
        return WriterStopped(f"the catalog mirror's writer stopped ({said[-1] if said else 'no message'})")

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


class _Walker:
    """Fetches every page of one query, a few at a time, handing the pages over in order as they come.
    With a `stash` (a full walk), the pages an interrupted walk kept are taken from it (tui.local.mirror_resume)."""

    def __init__(self, client: ServiceClient, advance: Progress, concurrency: int, stash: PageStash | None = None):
        self.client, self.advance, self.stash = client, advance, stash
        self.limit = asyncio.Semaphore(concurrency)
        self.requests = 0

    async def page(self, query: CatalogQuery) -> bytes:
        """One page's body as the service sent it (ServiceClient.catalog_body)."""
        stash = self.stash if self.stash is not None and _page_of_the_whole_catalog(query) else None
        if stash is not None and (kept := stash.page(query.page_index or 0)) is not None:
            return kept
        async with self.limit:
            body = await self.client.catalog_body(query)
        self.requests += 1
        if stash is not None:
            stash.keep(query.page_index or 0, body)
        return body

    async def walk(self, query: CatalogQuery, on_page: Callable[[bytes], Awaitable[None]]) -> None:
        """Every page, in the service's order (ties rank alike every sync); the progress's total is their number."""
        first = await self.page(replace(query, page_index=0, page_size=PAGE_SIZE))
        pages = page_count(catalog_rows(first).count, PAGE_SIZE)  # an absurd count is refused, not scheduled
        await on_page(first)
        self.advance(0, total=pages)
        tasks = [
            asyncio.ensure_future(self.page(replace(query, page_index=i, page_size=PAGE_SIZE))) for i in range(1, pages)
        ]
        try:
            for task in tasks:
                await on_page(await task)
        finally:
            for task in tasks:
                task.cancel()


def _page_of_the_whole_catalog(query: CatalogQuery) -> bool:
    """A page of the full walk (no filter, the walk's page size): what an interrupted sync keeps."""
    from tui.api.models import CatalogQuery

    return replace(query, page_index=None) == CatalogQuery(page_size=PAGE_SIZE)


async def sync(
    mirror: Mirror,
    client: ServiceClient,
    *,
    advance: Progress = _no_progress,
    concurrency: int = SYNC_CONCURRENCY,
    full: bool = False,
) -> SyncResult:
    """Bring the mirror up to the service: a full walk the first time (or when `full`), else the changes."""

    started = now_utc().isoformat(timespec="seconds")
    # Read without the lock: the writer decides what it records under it. Another sync committing
    # meanwhile only makes this one ask for more than it needs.
    watermark = mirror.watermark()
    kind = "full" if full or mirror.last_sync() is None or watermark is None else "incremental"
    stash = PageStash(mirror.path, PAGE_SIZE) if kind == "full" else None
    try:
        if stash is not None:
            started = stash.begin(started)
        try:
            result = await _sync(
                mirror, _Walker(client, advance, concurrency, stash), advance, started, watermark, kind
            )
        except WriterStopped as stopped:
            raise DatabaseError(_after_stop(mirror, started, str(stopped))) from None
        if stash is not None:
            stash.clear()
        return result
    finally:
        if stash is not None:
            stash.close()


def _after_stop(mirror: Mirror, started: str, stopped: str) -> str:
    """What is true of the mirror once its writer stopped unannounced: its sync committed, or not."""
    record = mirror.last_sync()
    if record is not None and record.started == started:
        return f"{stopped} after storing the sync: the mirror holds it ({record.brands:,} brands)"
    return f"{stopped} before storing the sync: the mirror is as it was; sync again"


async def _sync(
    mirror: Mirror, walker: _Walker, advance: Progress, started: str, watermark: str | None, kind: str
) -> SyncResult:
    from tui.api.models import CatalogQuery

    async with MirrorWriter.started(mirror.path, started, advance) as writer:

        async def store_whole(body: bytes) -> None:
            await writer.page(body, whole=True)

        async def full_walk() -> None:
            await walker.walk(CatalogQuery(), store_whole)
            await writer.ask("remove_unseen")

        if kind == "full":
            await full_walk()
        else:
            suspects: list[str] = []

            async def changed_page(body: bytes) -> None:
                # A brand that moved beyond its products lost one: it is re-read whole below.
                suspects.extend(catalog_rows(body).moved_brands())
                await writer.page(body, whole=False)

            await walker.walk(CatalogQuery(modified_date=watermark), changed_page)
            for brand_id in suspects:
                if brand_id.isdigit():
                    await writer.page(
                        await walker.page(CatalogQuery(brand_id=int(brand_id), page_size=PAGE_SIZE)),
                        whole=True,
                        counted=False,
                    )
            total = catalog_rows(await walker.page(CatalogQuery(page_size=1, page_index=0))).count
            if total != (await writer.ask("counts"))[1]:
                kind = "full"  # brands came or went without a change we could see
                await full_walk()
        changes = await writer.finish(kind, walker.requests)
    record = mirror.last_sync()
    assert record is not None
    return SyncResult(record, changes)
