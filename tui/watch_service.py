"""Wiring: the active session's watch list, followed by the shared scheduler (no Textual).

Joins the store (`tui.local.watchlist`), the scheduler (`tui.core.watching`)
and the session's client, for as long as the session lives (it stops with
`session.when_closed`). Items of other profiles stay in the file, paused.
Whoever shows things (the app) is told through `on_change` and `on_error`.

In team mode the store is the team's (tui.team.watchlist): one giftdesk per
profile leads and polls, the others follow what it records, heard through
`shared_change` (the app's team listener); a follower tries to lead every
few seconds, so one takes over when the leader goes. A payout is looked up
by the giftdesks holding its weblink (a secret the database never has).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tui.api.limits import limits_table
from tui.core.endings import NEEDS_ATTENTION
from tui.core.polling import Backoff
from tui.core.tasks import said_task
from tui.core.watching import (
    DEFAULT_BACKOFF,
    Budget,
    Observation,
    Pasted,
    Watched,
    WatchScheduler,
    budget_for,
    client_fetch,
    looked_again_within,
)
from tui.local.watchlist import WatchedItem, WatchList

if TYPE_CHECKING:
    from tui.api.errors import ServiceError
    from tui.session import Session
    from tui.team.watchlist import TeamWatchList

log = logging.getLogger("giftdesk.watch")

PICK_UP_SECONDS = 2.0  # how often the file is read for items another process settled (`giftdesk listen`)
LEAD_RETRY_SECONDS = 3.0  # how often a follower tries to take the lead (the leader's lock goes with its process)

OnChange = Callable[[WatchedItem, bool], None]  # the item as stored now; True when it just went final
OnError = Callable[[WatchedItem, "ServiceError"], None]
OnStopped = Callable[[BaseException], None]  # the following stopped for good (its store failed, a bug)


class WatchService:
    def __init__(
        self,
        session: Session,
        *,
        store: WatchList | TeamWatchList | None = None,
        on_change: OnChange | None = None,
        on_error: OnError | None = None,
        on_stopped: OnStopped | None = None,
        budget: Budget | None = None,
        backoff: Backoff = DEFAULT_BACKOFF,
    ) -> None:
        """`budget`: by default the one the profile's table of the provider's limits allows (tui.api.limits)."""
        self.session = session
        self.profile = session.profile.name
        self.store: WatchList | TeamWatchList = store or WatchList()
        self.on_change = on_change
        self.on_error = on_error
        self.on_stopped = on_stopped
        self.scheduler = WatchScheduler(
            client_fetch(session.client),
            self._changed,
            on_error=self._failed,
            budget=budget or budget_for(limits_table(session.profile.limits)),
            backoff=backoff,
            active_profile=self.profile,
        )
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._reading = asyncio.Lock()  # team mode: the rows notifications name, read back one at a time
        self.leading = isinstance(self.store, WatchList)  # a local list is this process's alone
        for item in self.store.items(self.profile):
            self._follow(item)

    # --- what the screens call ------------------------------------------------------------

    def add_order(self, request_id: str) -> WatchedItem:
        """Pin an order by its RequestId (the Order screen's and the Orders board's `w`)."""
        return self.add(Pasted("order", request_id))

    def add_payout(self, weblink_or_card_code: str) -> WatchedItem:
        """Pin a payout by its card code or weblink token (stored to poll, shown masked)."""
        return self.add(Pasted("payout", weblink_or_card_code))

    def add(self, pasted: Pasted) -> WatchedItem:
        item = self.store.add(self.profile, pasted.kind, pasted.reference)  # NotWatched: the store would not take it
        self._follow(item)
        if self.on_change is not None:
            self.on_change(item, False)
        return item

    def remove(self, item_id: int) -> None:
        """Stop following it; `on_change` hears of it (with `removed_at` set) so counts follow."""
        self.store.remove(item_id)
        self.scheduler.discard(item_id)
        removed = self.store.get(item_id)
        if removed is not None and self.on_change is not None:
            self.on_change(removed, False)

    # A redraw timer may fire after the session ended (quitting, switching profiles): a stopped
    # service follows nothing, and its closed store is not read.

    def items(self) -> list[WatchedItem]:
        return [] if self._closed else self.store.items(self.profile)

    def looked_again_within(self) -> float | None:
        """At most how long until each item still watched is looked at again (None: none is)."""
        watching = sum(not item.final for item in self.items())
        scheduler = self.scheduler
        return looked_again_within(watching, scheduler.budget, scheduler.backoff) if watching else None

    def counts(self) -> tuple[int, int]:
        """(items not final yet, items that ended badly): the header's `watching N · K need attention`."""
        return (0, 0) if self._closed else self.store.counts(self.profile, NEEDS_ATTENTION)

    # --- events (tui.inbox_work.OrderWatch) -----------------------------------------------

    def watched_orders(self) -> list[str]:
        """RequestIds of the profile's watched orders not final yet."""
        return (
            []
            if self._closed
            else [i.reference for i in self.store.items(self.profile) if i.kind == "order" and not i.final]
        )

    def settle_order(self, request_id: str, status: str, detail: str) -> bool:
        """Get order's answer after an order event: a final one ends the item at once (no more polling)."""
        return not self._closed and self.scheduler.settle("order", request_id, status, detail=detail) is not None

    def pick_up_settled(self) -> None:
        """Items the file says are final (settled by another process's receiver) end here too."""
        if self._closed:
            return
        for item in self.store.items(self.profile):
            if item.final and item.status is not None:
                self.scheduler.settle(
                    "payout" if item.kind == "payout" else "order", item.reference, item.status, detail=item.detail
                )

    # --- running ------------------------------------------------------------------------

    def start(self) -> None:
        """In the running loop, until the session ends."""
        if self._task is None:
            # A local list is this process's to poll; the team's tells its changes itself (NOTIFY: shared_change).
            work = self._polling_and_picking_up() if isinstance(self.store, WatchList) else self._lead_then_poll()
            self._task = said_task(work, f"watch-{self.profile}", self._stopped)
            self.session.when_closed(self.stop)

    def _stopped(self, error: BaseException) -> None:
        log.error(
            "watch: following profile %s's items stopped: %s",
            self.profile,
            error,
            exc_info=(type(error), error, error.__traceback__),
        )
        if self.on_stopped is not None:
            self.on_stopped(error)

    async def _polling_and_picking_up(self) -> None:
        """The scheduler, and every PICK_UP_SECONDS what another process settled in the file (`pick_up_settled`)."""
        task = asyncio.create_task(self.scheduler.run())
        try:
            while not task.done():
                await asyncio.wait([task], timeout=PICK_UP_SECONDS)
                self.pick_up_settled()
            await task
        finally:
            task.cancel()

    async def _lead_then_poll(self) -> None:
        """Team mode: the payouts whose weblink this giftdesk holds are looked up at once (nobody else can);
        the orders are held until this process leads the profile, then looked up for everybody."""
        store = self.store
        assert not isinstance(store, WatchList)
        self.scheduler.pause_by(lambda watched: watched.kind == "order")
        polling = asyncio.create_task(self.scheduler.run())
        try:
            while not polling.done() and not await asyncio.to_thread(store.lead, self.profile):
                await asyncio.wait([polling], timeout=LEAD_RETRY_SECONDS)
            if not polling.done():
                self.leading = True
                self.scheduler.pause_by(None)
                log.info("watch: this giftdesk polls profile %s's shared watch list", self.profile)
            await polling
        finally:
            polling.cancel()

    def shared_change(self, change: Mapping[str, Any]) -> None:
        """Team mode: a notification names an item that changed. It is a hint (anyone may send one, DESIGN
        rule 13): the row is read again with this login's rights, in a thread, and followed as it is."""
        if self._closed or isinstance(self.store, WatchList):
            return
        said_task(self._read_shared(change), f"watch-heard-{self.profile}", self._stopped)

    async def _read_shared(self, change: Mapping[str, Any]) -> None:
        assert not isinstance(self.store, WatchList)
        async with self._reading:  # one at a time, in the order heard: the last read is the row as it is now
            item = await asyncio.to_thread(self.store.heard, change)
            if item is not None and item.profile == self.profile and not self._closed:
                self._take_shared(item)

    def resync(self) -> None:
        """Team mode, the database back: what changed meanwhile was not heard, so read the whole list again."""
        if self._closed:
            return
        items = {item.id: item for item in self.store.items(self.profile)}
        for gone in [watched.key for watched in self.scheduler.items if watched.key not in items]:
            self.scheduler.discard(gone)
        for item in items.values():
            self._take_shared(item)

    def _take_shared(self, item: WatchedItem) -> None:
        known = next((watched for watched in self.scheduler.items if watched.key == item.id), None)
        if item.removed_at is not None:
            self.scheduler.discard(item.id)
        elif known is None or (known.status, known.final) != (item.status, item.final):
            self.scheduler.discard(item.id)  # its own looks, if any, were of an older state
            self._follow(item)
        else:
            return  # as this process knows it already (its own change, heard back)
        if self.on_change is not None:
            self.on_change(item, item.final and (known is None or not known.final))

    def stop(self) -> None:
        """The session ended: no more looks, and an answer still on its way is dropped."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self.store.close()

    # --- between the scheduler and the store ----------------------------------------------

    def _follow(self, item: WatchedItem) -> None:
        if not item.reference:  # a payout whose weblink was not kept (tui.local.watchlist.NOT_KEPT): nothing to poll
            return
        self.scheduler.add(
            Watched(
                item.id,
                "payout" if item.kind == "payout" else "order",
                item.reference,
                item.profile,
                item.status,
                item.final,
            )
        )

    def _changed(self, watched: Watched, observation: Observation) -> None:
        assert isinstance(watched.key, int)
        if self._closed:
            return
        try:
            stored = self.store.record(watched.key, observation.status, observation.final, observation.detail)
        except OSError as error:  # the team database away (said in the header): `resync` looks again when it is back
            log.warning(
                "watch: %s not recorded: %s", watched.reference if watched.kind == "order" else "a payout", error
            )
            return
        if stored is not None:
            log.log(
                logging.INFO if stored.final else logging.DEBUG,
                "watch: %s %s is %s%s",
                stored.kind,
                stored.label,
                stored.status,
                " (final)" if stored.final else "",
            )
            if self.on_change is not None:
                self.on_change(stored, observation.final)

    def _failed(self, watched: Watched, error: ServiceError) -> None:
        assert isinstance(watched.key, int)
        if self._closed:
            return
        stored = self.store.get(watched.key)
        if stored is not None and self.on_error is not None:
            self.on_error(stored, error)
