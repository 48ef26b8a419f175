"""The receiver's keeping (tui.listener): one writer thread owns the inbox's writes, and deliveries waiting together
are committed in one transaction (group commit), so the fsync each 2xx needs is shared under load. No Textual."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from tui.core.safe_text import visible
from tui.local.inbox import Delivery, InboxStore

log = logging.getLogger("giftdesk.receiver")

GROUP_COMMIT_MAX = 256  # deliveries in one transaction at most
PROBE_SECONDS = 1.0  # while the inbox cannot be written, it is tried this often
PRUNE_SECONDS = 3600.0
RESAID_AFTER_SECONDS = 60.0  # the inbox failing again within this of the last time it was said: not said again
STOP_TIMEOUT_SECONDS = 5.0  # the writer finishes what it holds within this on stop

OpenInbox = Callable[[], InboxStore]


class InboxWriter:
    """Owns the inbox's writes in one thread; deliveries waiting together are committed together.

    When a commit fails (the disk full, the team database away) it says so once, answers
    what waits with the error (503), and tries the inbox every `PROBE_SECONDS` until it
    can write again, which it says once too. Unable to for `give_up_seconds`, it calls
    `on_give_up` (the receiver stops, and its exit tells a service manager to restart it).
    Refused samples older than `refused_kept_days` are pruned hourly."""

    def __init__(
        self,
        open_inbox: OpenInbox,
        *,
        give_up_seconds: float = 300.0,
        refused_kept_days: float = 7.0,
        on_give_up: Callable[[], None] = lambda: None,
    ) -> None:
        self._open_inbox = open_inbox
        self._give_up_seconds = give_up_seconds
        self._refused_kept = timedelta(days=refused_kept_days)
        self._on_give_up = on_give_up
        self._queue: queue.SimpleQueue[tuple[Delivery, asyncio.AbstractEventLoop, asyncio.Future[bool]] | None] = (
            queue.SimpleQueue()
        )
        self._opened = threading.Event()
        self._failure: BaseException | None = None
        self.trouble = ""  # why the inbox cannot be written now; "" while it can
        self._troubled_since = 0.0
        self._said_troubled_at = -RESAID_AFTER_SECONDS
        self.gave_up = False
        self._thread = threading.Thread(target=self._run, name="giftdesk-inbox-writer", daemon=True)
        self._thread.start()
        self._opened.wait()
        if self._failure is not None:
            raise self._failure

    @property
    def healthy(self) -> bool:
        return not self.trouble

    async def keep(self, delivery: Delivery) -> bool:
        """True once it is on disk; False if its event id was kept before. Raises if it cannot be written."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        self._queue.put((delivery, loop, future))
        return await future

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=STOP_TIMEOUT_SECONDS)

    def _run(self) -> None:
        try:
            inbox = self._open_inbox()
        except BaseException as error:
            self._failure = error
            self._opened.set()
            return
        self._opened.set()
        pruned_at = -PRUNE_SECONDS
        try:
            while True:
                try:
                    batch = self._next_batch()
                except queue.Empty:  # nothing came for a while: the house's chores
                    if self.trouble:
                        self._probe(inbox)
                    elif time.monotonic() - pruned_at >= PRUNE_SECONDS:
                        pruned_at = time.monotonic()
                        self._prune(inbox)
                    continue
                if batch is None:
                    return
                if self.trouble:
                    self._probe(inbox)
                self._commit(inbox, batch)
        finally:
            inbox.close()

    def _next_batch(self) -> list[tuple[Delivery, asyncio.AbstractEventLoop, asyncio.Future[bool]]] | None:
        first = self._queue.get(timeout=PROBE_SECONDS)
        if first is None:
            return None
        batch = [first]
        while len(batch) < GROUP_COMMIT_MAX:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._queue.put(None)  # stop after this batch
                break
            batch.append(item)
        return batch

    def _commit(
        self, inbox: InboxStore, batch: list[tuple[Delivery, asyncio.AbstractEventLoop, asyncio.Future[bool]]]
    ) -> None:
        try:
            outcomes: list[bool | BaseException] = list(inbox.keep_all([delivery for delivery, _, _ in batch]))
            self._well()
        except Exception as error:
            self._troubled(error)
            outcomes = [error] * len(batch)
        for (_, loop, future), outcome in zip(batch, outcomes, strict=True):
            loop.call_soon_threadsafe(_settle, future, outcome)

    def _probe(self, inbox: InboxStore) -> None:
        try:
            inbox.check()
        except Exception as error:
            self._troubled(error)
        else:
            self._well()

    def _prune(self, inbox: InboxStore) -> None:
        try:
            gone = inbox.prune_refused(datetime.now(UTC) - self._refused_kept)
        except Exception as error:  # tried again in an hour; keeping deliveries matters more
            log.warning("old refused deliveries could not be pruned: %s", visible(error))
            return
        if gone:
            log.info("pruned %d refused deliveries older than %s", gone, self._refused_kept)

    def _troubled(self, error: BaseException) -> None:
        if not self.trouble:  # said once, not once per delivery
            self._troubled_since = time.monotonic()
            # A database coming back may fail a write again just after the first one passed: one outage, said once.
            if time.monotonic() - self._said_troubled_at > RESAID_AFTER_SECONDS:
                self._said_troubled_at = time.monotonic()
                log.error("the inbox cannot be written (answering 503 until it can): %s", visible(error))
        self.trouble = str(error) or type(error).__name__
        if not self.gave_up and time.monotonic() - self._troubled_since > self._give_up_seconds:
            self.gave_up = True
            log.error("the inbox could not be written for %.0f s: the receiver stops", self._give_up_seconds)
            self._on_give_up()

    def _well(self) -> None:
        if self.trouble:
            log.warning("the inbox can be written again: deliveries are kept and answered")
        self.trouble = ""


def _settle(future: asyncio.Future[bool], outcome: bool | BaseException) -> None:
    if future.done():  # the request went away meanwhile
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
