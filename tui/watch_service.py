"""Wiring: the active session's watch list, followed by the shared scheduler (no Textual).

Joins the store (`tui.local.watchlist`), the scheduler (`tui.core.watching`)
and the session's client, for as long as the session lives (it stops with
`session.when_closed`). Items of other profiles stay in the file, paused.
Whoever shows things (the app) is told through `on_change` and `on_error`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.api.limits import limits_table
from tui.core.endings import NEEDS_ATTENTION
from tui.core.polling import Backoff
from tui.core.watching import (
    DEFAULT_BACKOFF,
    Budget,
    Observation,
    Pasted,
    Watched,
    WatchScheduler,
    budget_for,
    client_fetch,
)
from tui.local.watchlist import WatchedItem, WatchList

if TYPE_CHECKING:
    from tui.api.errors import ServiceError
    from tui.listener import CallbackAccepted
    from tui.session import Session

log = logging.getLogger("giftdesk.watch")

OnChange = Callable[[WatchedItem, bool], None]  # the item as stored now; True when it just went final
OnError = Callable[[WatchedItem, "ServiceError"], None]


class WatchService:
    def __init__(
        self,
        session: Session,
        *,
        store: WatchList | None = None,
        on_change: OnChange | None = None,
        on_error: OnError | None = None,
        budget: Budget | None = None,
        backoff: Backoff = DEFAULT_BACKOFF,
    ) -> None:
        """`budget`: by default the one the profile's table of the provider's limits allows (tui.api.limits)."""
        self.session = session
        self.profile = session.profile.name
        self.store = store or WatchList()
        self.on_change = on_change
        self.on_error = on_error
        self.scheduler = WatchScheduler(client_fetch(session.client), self._changed, on_error=self._failed,
                                        budget=budget or budget_for(limits_table(session.profile.limits)),
                                        backoff=backoff, active_profile=self.profile)
        self._task: asyncio.Task[None] | None = None
        self._closed = False
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
        item = self.store.add(self.profile, pasted.kind, pasted.reference)
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

    def counts(self) -> tuple[int, int]:
        """(items not final yet, items that ended badly): the header's `watching N · K need attention`."""
        return (0, 0) if self._closed else self.store.counts(self.profile, NEEDS_ATTENTION)

    def settle_callback(self, event: CallbackAccepted) -> None:
        """An order callback (the listener): its order ends at once and is not polled again."""
        self.scheduler.settle("order", event.request_id, event.status, detail="from the callback")

    # --- running ------------------------------------------------------------------------

    def start(self) -> None:
        """In the running loop, until the session ends."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.scheduler.run(), name=f"watch-{self.profile}")
            self.session.when_closed(self.stop)

    def stop(self) -> None:
        """The session ended: no more looks, and an answer still on its way is dropped."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self.store.close()

    # --- between the scheduler and the store ----------------------------------------------

    def _follow(self, item: WatchedItem) -> None:
        self.scheduler.add(Watched(item.id, "payout" if item.kind == "payout" else "order", item.reference,
                                   item.profile, item.status, item.final))

    def _changed(self, watched: Watched, observation: Observation) -> None:
        assert isinstance(watched.key, int)
        if self._closed:
            return
        stored = self.store.record(watched.key, observation.status, observation.final, observation.detail)
        if stored is not None:
            log.log(logging.INFO if stored.final else logging.DEBUG, "watch: %s %s is %s%s",
                    stored.kind, stored.label, stored.status, " (final)" if stored.final else "")
            if self.on_change is not None:
                self.on_change(stored, observation.final)

    def _failed(self, watched: Watched, error: ServiceError) -> None:
        assert isinstance(watched.key, int)
        if self._closed:
            return
        stored = self.store.get(watched.key)
        if stored is not None and self.on_error is not None:
            self.on_error(stored, error)
