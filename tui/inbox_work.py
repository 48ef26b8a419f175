"""Wiring: what the receiver's deliveries do, done from the inbox after they were answered (no Textual).

`InboxWork.run()` takes every accepted delivery not yet marked (those of a run
that crashed first, then each new one as the receiver says it was kept) and:

- an order event (a callback, or a webhook whose type names an order): Get
  order for each RequestId the payload carries (SPEC Events rule 4; DESIGN: the
  payloads' fields are not published, so ids are read where present), or, when
  it carries none, for every order of the profile's watch list not yet final,
  looked at once; each watched one is settled with what Get order says;
- a product event: an incremental mirror sync, coalesced (`CoalescedSync`: the
  events of a minute make one sync, the next at least a minute after the last);
- anything else: marked as not acted on.

A delivery is marked (`InboxStore.mark`) once its work is done; work that fails
for a reason that may pass (the service unreachable, 5xx, 429) is left
unmarked and tried again on a growing delay, so nothing is lost. Several
receivers may share a team inbox: each delivery is worked on by the one that
claims it (`InboxStore.claimed`), and each looks again every `sweep_seconds`
for what another left (a receiver killed mid-way).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from tui.api.errors import RefusedError, ServiceError
from tui.api.redact import mask_text
from tui.api.statuses import is_order_final
from tui.core.polling import Backoff
from tui.core.tasks import said_task
from tui.local.inbox import CALLBACK, Delivery, InboxStore

if TYPE_CHECKING:
    from tui.api.client import ServiceClient
    from tui.local.watchlist import WatchList
    from tui.team.watchlist import TeamWatchList

log = logging.getLogger("giftdesk.receiver.work")

SYNC_WINDOW_SECONDS = 60.0  # at most one product-event sync a minute
SYNC_GATHER_SECONDS = 2.0  # a first event waits this long for the rest of its burst
_ID_KEYS = {"requestid", "clientreferencenumber"}
_MAX_DEPTH = 8

ClientGetter = Callable[[], Awaitable["ServiceClient"]]


def is_order_event(kind: str) -> bool:
    return kind == CALLBACK or kind.lower().startswith("order")


def is_product_event(kind: str) -> bool:
    return kind.lower().startswith("product")


def request_ids_in(payload: Mapping[str, Any] | None) -> list[str]:
    """RequestIds named anywhere in a payload (`requestId`, `RequestId`, `clientReferenceNumber`), in order, once each."""
    found: list[str] = []

    def walk(value: Any, depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        if isinstance(value, Mapping):
            for key, inner in value.items():
                if (
                    str(key).lower() in _ID_KEYS
                    and isinstance(inner, str)
                    and inner.strip()
                    and inner.strip() not in found
                ):
                    found.append(inner.strip())
                else:
                    walk(inner, depth + 1)
        elif isinstance(value, list):
            for inner in value:
                walk(inner, depth + 1)

    walk(payload, 0)
    return found


class OrderWatch(Protocol):
    """The watch list as event processing sees it."""

    def watched_orders(self) -> list[str]:
        """RequestIds of the profile's watched orders not final yet."""

    def settle_order(self, request_id: str, status: str, detail: str) -> bool:
        """Record Get order's answer for a watched order; False when it is not watched."""


class StoredWatch:
    """The watch list file itself (`giftdesk listen`): a TUI following the same list picks the change up."""

    def __init__(self, store: WatchList | TeamWatchList, profile: str) -> None:
        self.store = store
        self.profile = profile

    def watched_orders(self) -> list[str]:
        return [item.reference for item in self.store.items(self.profile) if item.kind == "order" and not item.final]

    def settle_order(self, request_id: str, status: str, detail: str) -> bool:
        item = next(
            (i for i in self.store.items(self.profile) if i.kind == "order" and i.reference == request_id), None
        )
        if item is None or item.final:  # not watched, or already settled (by a look, or an earlier event)
            return False
        return self.store.record(item.id, status, is_order_final(status), detail) is not None


class CoalescedSync:
    """Many requests, few syncs: a request waits `gather` seconds for others, and a sync starts at
    least `window` seconds after the previous one started. Requests made while a sync runs make the
    next one. `run_sync` says what it did; the ids of the requests it covered are handed to `done`."""

    def __init__(
        self,
        run_sync: Callable[[], Awaitable[str]],
        done: Callable[[list[str], str], None],
        *,
        window: float = SYNC_WINDOW_SECONDS,
        gather: float = SYNC_GATHER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._run_sync = run_sync
        self._done = done
        self.window = window
        self.gather = gather
        self._clock = clock
        self._pending: list[str] = []
        self._last_start: float | None = None
        self._task: asyncio.Task[None] | None = None
        self.syncs = 0  # syncs started, for tests and logs

    def request(self, event_id: str) -> None:
        if event_id not in self._pending:
            self._pending.append(event_id)
        if self._task is None or self._task.done():
            self._task = said_task(
                self._syncs(),
                "giftdesk-coalesced-sync",
                lambda error: log.error("the catalog syncs for product events stopped: %s", error),
            )

    async def _syncs(self) -> None:
        while self._pending:
            now = self._clock()
            start = (
                now + self.gather
                if self._last_start is None
                else max(now + self.gather, self._last_start + self.window)
            )
            await asyncio.sleep(start - now)
            covered, self._pending = self._pending, []
            self._last_start = self._clock()
            self.syncs += 1
            try:
                outcome = await self._run_sync()
            except Exception as error:  # left pending (whatever went wrong): the next window tries again
                log.warning("product events: the mirror sync failed (%s); trying again in %.0f s", error, self.window)
                self._pending = covered + [e for e in self._pending if e not in covered]
                continue
            self._done(covered, outcome)

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()


def mirror_syncer(profile_name: str, environment: str, client: ClientGetter) -> Callable[[], Awaitable[str]]:
    """An incremental sync of the profile's catalog mirror (a full one the first time)."""

    async def run() -> str:
        from tui.local.mirror import Mirror
        from tui.local.mirror_sync import sync

        with Mirror.for_profile(profile_name, environment) as mirror:
            result = await sync(mirror, await client())
        return f"mirror synced ({result.record.kind}): {result.changes} change(s)"

    return run


class WorkMetrics(Protocol):
    """Where the work's figures go (the receiver's /metrics)."""

    def processing_failed(self) -> None: ...

    def lag(self, seconds: float) -> None: ...


class InboxWork:
    def __init__(
        self,
        inbox: InboxStore,
        client: ClientGetter,
        watch: OrderWatch,
        sync_catalog: Callable[[], Awaitable[str]] | None,
        *,
        on_done: Callable[[str, str], None] | None = None,
        backoff: Backoff | None = None,
        sync_window: float = SYNC_WINDOW_SECONDS,
        sync_gather: float = SYNC_GATHER_SECONDS,
        sweep_seconds: float | None = None,
        metrics: WorkMetrics | None = None,
    ) -> None:
        self.inbox = inbox
        self._sweep_seconds = sweep_seconds  # None: only woken (one receiver owns the inbox)
        self._metrics = metrics
        self._client = client
        self.watch = watch
        self.on_done = on_done  # (event id, outcome): whoever shows it
        self._backoff = backoff or Backoff()
        self._failures = 0
        self._wake = asyncio.Event()
        self._syncing: set[str] = set()  # product events handed to the coalesced sync
        self._sync = (
            CoalescedSync(sync_catalog, self._synced, window=sync_window, gather=sync_gather) if sync_catalog else None
        )

    def wake(self) -> None:
        """A delivery was kept (call on this loop's thread)."""
        self._wake.set()

    async def run(self) -> None:
        """Until cancelled: what the inbox still owes, then each new delivery."""
        try:
            while True:
                self._wake.clear()
                try:
                    done = await self.process_pending()
                except Exception:  # the inbox itself failed (its file, the team database): said, then tried again
                    log.exception("the inbox could not be read or marked")
                    self._failures += 1
                    done = False
                delay = self._sweep_seconds if done else self._backoff.delay(self._failures)
                with contextlib.suppress(TimeoutError):  # the retry's delay passed
                    await asyncio.wait_for(self._wake.wait(), delay)
        finally:
            if self._sync is not None:
                self._sync.cancel()

    async def process_pending(self) -> bool:
        """Work through every unmarked delivery; False when one failed for a reason that may pass."""
        pending = self.inbox.unprocessed()
        self._say_lag(pending)
        for delivery in pending:
            if delivery.event_id in self._syncing:
                continue
            with self.inbox.claimed(delivery.event_id) as ours:
                if not ours:  # another receiver is on it, or has done it
                    continue
                try:
                    outcome = await self._process(delivery)
                except ServiceError as error:
                    self._failed()
                    log.warning("event %s: %s; trying again later", delivery.event_id, error)
                    return False
                except Exception as error:  # a bug or a payload we cannot handle: said, and not tried forever
                    self._failed()
                    log.exception("event %s could not be processed", delivery.event_id)
                    outcome = f"not processed: {type(error).__name__}: {mask_text(str(error))}"
                if outcome is not None:
                    self._mark(delivery.event_id, outcome)
        self._failures = 0
        if self._metrics is not None:
            self._metrics.lag(0.0)
        return True

    def _failed(self) -> None:
        self._failures += 1
        if self._metrics is not None:
            self._metrics.processing_failed()

    def _say_lag(self, pending: list[Delivery]) -> None:
        if self._metrics is not None and pending:
            self._metrics.lag(max(0.0, (datetime.now(UTC) - pending[0].received_at).total_seconds()))

    async def _process(self, delivery: Delivery) -> str | None:
        """The outcome line, or None when the work goes on elsewhere (a coalesced sync)."""
        if is_order_event(delivery.kind):
            return await self._settle_orders(delivery)
        if is_product_event(delivery.kind):
            if self._sync is None:
                return "product event: no catalog mirror is kept here"
            self._syncing.add(delivery.event_id)
            self._sync.request(delivery.event_id)
            return None
        return f"not acted on: giftdesk does not know event type {delivery.kind!r}"

    async def _settle_orders(self, delivery: Delivery) -> str:
        named = request_ids_in(delivery.payload)
        request_ids = named or self.watch.watched_orders()
        if not request_ids:
            return "order event without a RequestId, and no watched order to look at"
        client = await self._client()
        lines = []
        for request_id in request_ids:
            try:
                order = await client.get_order(request_id)
            except RefusedError as error:  # the service does not know it: asking again will not help
                lines.append(f"order {request_id}: {error.message}")
                continue
            settled = self.watch.settle_order(request_id, order.status, f"settled by event {delivery.event_id}")
            lines.append(f"order {request_id} {order.status}" + ("; settled on the watch list" if settled else ""))
        return "; ".join(lines)

    def _synced(self, event_ids: list[str], outcome: str) -> None:
        for event_id in event_ids:
            self._syncing.discard(event_id)
            self._mark(event_id, outcome)

    def _mark(self, event_id: str, outcome: str) -> None:
        self.inbox.mark(event_id, outcome)
        log.info("event %s: %s", event_id, outcome)
        if self.on_done is not None:
            self.on_done(event_id, outcome)
