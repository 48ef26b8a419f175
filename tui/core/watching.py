"""The watch list's rules and its one shared scheduler (no Textual, no files).

Many orders and payouts are followed at once until each is final. The
scheduler is the only thing that asks the service about them:

- a global request budget (a token bucket: `Budget.per_second`, bursts of
  `Budget.burst`) drawn from the provider's limits of Get order and payout
  status (`budget_for`), so 500 watched items never exceed them;
- at most `Budget.concurrency` requests in flight, and never two for the same
  item (SPEC Limits: a second request for the same resource may get 429);
- each item looks again on the shared `Backoff` (1 s growing to 30 s while
  nothing moves), the least recently looked-at first when many are due;
- items of a profile that is not active are paused, as are those `paused_by` says
  (a team giftdesk that does not lead holds the orders another polls);
- `settle()` (an order callback from the listener) ends an item at once and
  stops its polling; an answer already on its way for it is dropped;
- a payout the service does not know yet (its card sold, not redeemed) is
  "Issued, not redeemed": not final, looked at on a slow backoff (up to
  minutes) until the redeem makes it known.

The clock and the sleep are injected, so tests drive it in virtual time
against the real simulator.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tui.api.errors import RateLimitedError, RefusedError, ServiceError
from tui.api.limits import DEFAULT_LIMITS, GET_ORDER, PAYOUT_STATUS, Limit
from tui.api.statuses import is_order_final, is_payout_final
from tui.api.weblink import is_payout_url
from tui.core.endings import REFUSED, ended_badly
from tui.core.order_watch import card_summary
from tui.core.polling import Backoff

if TYPE_CHECKING:
    from tui.api.client import ServiceClient

Kind = Literal["order", "payout"]


def is_final(kind: Kind, status: str | None) -> bool:
    return is_order_final(status) if kind == "order" else is_payout_final(status)


# --- what a pasted line is ------------------------------------------------------------------


@dataclass(frozen=True)
class Pasted:
    kind: Kind
    reference: str  # a RequestId as typed, or the card code / weblink as pasted


def classify(line: str) -> Pasted | None:
    """One pasted line: a payout URL or a weblink token (URL-safe base64 ending in its padding,
    `%3D` or `=`) is a payout; anything else is a RequestId. Blank lines and `#` comments: None."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    if is_payout_url(text) or text.endswith(("%3D", "%3d", "=")):
        return Pasted("payout", text)
    return Pasted("order", text)


def classify_lines(text: str) -> list[Pasted]:
    """Every line of a paste or a file, classified; repeats dropped (first one kept)."""
    seen: set[Pasted] = set()
    result = []
    for line in text.splitlines():
        pasted = classify(line)
        if pasted is not None and pasted not in seen:
            seen.add(pasted)
            result.append(pasted)
    return result


# --- the scheduler ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Budget:
    """What the scheduler may ask of the service (docs/decisions.md gives the reasons)."""

    per_second: float = 2.0  # Get order's and payout status's 120/min (tui.api.limits)
    burst: int = 4
    concurrency: int = 4


def budget_for(limits: Mapping[str, Limit]) -> Budget:
    """The budget a table of the provider's limits allows: one budget serves both kinds, so it keeps the
    smaller of Get order's and payout status's rates (never more than either endpoint allows)."""
    rates = [limit.per_second for limit in (limits.get(GET_ORDER), limits.get(PAYOUT_STATUS)) if limit is not None]
    return Budget(per_second=min(rates)) if rates else Budget()


DEFAULT_BUDGET = budget_for(DEFAULT_LIMITS)
_EPSILON = 1e-9
DEFAULT_BACKOFF = Backoff()
# A payout not redeemed yet may stay so for days (the card sits in a customer's inbox): looked at slowly.
NOT_REDEEMED = "Issued, not redeemed"
NOT_REDEEMED_BACKOFF = Backoff(first=5.0, factor=2.0, cap=600.0)
NOT_REDEEMED_DETAIL = "the service knows no payout for this weblink yet: looked at again, slowly, until it is redeemed"


def looked_again_within(watching: int, budget: Budget, backoff: Backoff) -> float:
    """At most how long until each of `watching` items is looked at again: its backoff's longest wait,
    or, when they are more than the budget covers in that time, one round of them all at the budget
    (200 orders at Get order's 120/min: 100 s)."""
    return max(backoff.cap, watching / budget.per_second)


@dataclass(frozen=True)
class Observation:
    """One look at an item: its status, whether that is final, a line for a person, wire extras, and how
    to look again when it is not final (None: the scheduler's backoff)."""

    status: str
    final: bool
    detail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    backoff: Backoff | None = None

    @property
    def bad(self) -> bool:
        return self.final and ended_badly(self.status)


@dataclass(eq=False)
class Watched:
    """One item the scheduler follows. `reference` is the RequestId or the weblink token."""

    key: Hashable
    kind: Kind
    reference: str
    profile: str
    status: str | None = None
    final: bool = False
    # The scheduler's own bookkeeping.
    unchanged: int = 0
    due: float = 0.0
    in_flight: bool = False
    removed: bool = False


Fetch = Callable[[Watched], Awaitable[Observation]]
OnChange = Callable[[Watched, Observation], None]
OnError = Callable[[Watched, ServiceError], None]
Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


class WatchScheduler:
    def __init__(
        self,
        fetch: Fetch,
        on_change: OnChange,
        *,
        on_error: OnError | None = None,
        budget: Budget = DEFAULT_BUDGET,
        backoff: Backoff = DEFAULT_BACKOFF,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        active_profile: str | None = None,
    ) -> None:
        self._fetch = fetch
        self._on_change = on_change
        self._on_error = on_error
        self.budget = budget
        self.backoff = backoff
        self._clock = clock
        self._sleep = sleep
        self.active_profile = active_profile  # None: every profile is active
        self.paused_by: Callable[[Watched], bool] | None = None  # items held but not looked at; None: none
        self._items: dict[Hashable, Watched] = {}
        self._due: list[tuple[float, int, Hashable]] = []  # heap of (due, tie, key)
        self._tie = 0
        self._tokens = float(budget.burst)
        self._refilled = clock()
        self._in_flight: set[asyncio.Task[None]] = set()
        self._wake: asyncio.Event | None = None
        self._stopped: BaseException | None = None

    # --- what is watched ------------------------------------------------------------------

    @property
    def items(self) -> list[Watched]:
        return list(self._items.values())

    def add(self, item: Watched) -> Watched:
        """Follow `item` (looked at at once unless final). Adding a known key keeps the known one."""
        known = self._items.get(item.key)
        if known is not None:
            return known
        self._items[item.key] = item
        if not item.final:
            self._schedule(item, self._clock())
        return item

    def discard(self, key: Hashable) -> None:
        item = self._items.pop(key, None)
        if item is not None:
            item.removed = True  # an answer on its way for it is dropped

    def set_active_profile(self, profile: str | None) -> None:
        """Items of other profiles pause (they keep their place); None makes every profile active."""
        self.active_profile = profile
        self._poke()

    def pause_by(self, paused: Callable[[Watched], bool] | None) -> None:
        """Items `paused(item)` says are held, not looked at (they keep their place); None looks at all."""
        self.paused_by = paused
        self._poke()

    def settle(self, kind: Kind, reference: str, status: str, *, detail: str = "") -> Watched | None:
        """An authoritative final status from outside (an order callback): the item ends now."""
        item = next(
            (i for i in self._items.values() if i.kind == kind and i.reference == reference and not i.final), None
        )
        if item is None or not is_final(kind, status):
            return None
        self._observed(item, Observation(status, True, detail))
        return item

    def all_final(self) -> bool:
        return all(item.final for item in self._items.values())

    # --- running ------------------------------------------------------------------------

    def stop(self, error: BaseException | None = None) -> None:
        """End `run()`; with `error`, `run()` raises it (e.g. the credentials were refused)."""
        self._stopped = error or asyncio.CancelledError()
        self._poke()

    async def run(self, *, until_final: bool = False) -> None:
        """Dispatch looks until stopped (or, with `until_final`, until every item is final)."""
        self._wake = asyncio.Event()
        try:
            while True:
                if self._stopped is not None:
                    if isinstance(self._stopped, asyncio.CancelledError):
                        return
                    raise self._stopped
                if until_final and self.all_final() and not self._in_flight:
                    return
                await self._dispatch_one()
        finally:
            for task in self._in_flight:
                task.cancel()
            if self._in_flight:
                await asyncio.gather(*self._in_flight, return_exceptions=True)

    async def _dispatch_one(self) -> None:
        if len(self._in_flight) >= self.budget.concurrency:
            await self._wait(None)
            return
        now = self._clock()
        item, due = self._next_eligible()
        if item is None or due > now:
            await self._wait(None if item is None else due - now)
            return
        shortfall = self._take_token(now)
        if shortfall > 0:
            await self._wait(shortfall)
            return
        item.in_flight = True  # its heap entry is now stale, and dropped when reached
        task = asyncio.create_task(self._look(item))
        self._in_flight.add(task)
        task.add_done_callback(self._finished)

    def _next_eligible(self) -> tuple[Watched | None, float]:
        """The earliest due item that may be looked at now; stale heap entries are dropped."""
        paused: list[tuple[float, int, Hashable]] = []
        found: tuple[Watched | None, float] = (None, 0.0)
        while self._due:
            due, _tie, key = self._due[0]
            item = self._items.get(key)
            if item is None or item.final or item.in_flight or item.due != due:
                heapq.heappop(self._due)  # removed, ended, or rescheduled since
                continue
            if (self.active_profile is not None and item.profile != self.active_profile) or (
                self.paused_by is not None and self.paused_by(item)
            ):
                paused.append(heapq.heappop(self._due))
                continue
            found = (item, due)
            break
        for entry in paused:
            heapq.heappush(self._due, entry)
        return found

    def _take_token(self, now: float) -> float:
        """0 when a request may go now (and it is counted); else how long until one may."""
        rate = self.budget.per_second
        self._tokens = min(float(self.budget.burst), self._tokens + (now - self._refilled) * rate)
        self._refilled = now
        if self._tokens >= 1.0 - _EPSILON:  # float rounding must not leave a token forever a hair short
            self._tokens -= 1.0
            return 0.0
        return (1.0 - self._tokens) / rate

    async def _wait(self, seconds: float | None) -> None:
        """Until `seconds` pass or something changes (an item added, a look finished, a callback)."""
        assert self._wake is not None
        self._wake.clear()
        waiters: list[asyncio.Future[Any]] = [asyncio.ensure_future(self._wake.wait())]
        if seconds is not None:
            waiters.append(asyncio.ensure_future(self._sleep(max(seconds, 0.0))))
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._in_flight.discard(task)
        if not task.cancelled() and task.exception() is not None and self._stopped is None:
            # Not a service error (those are reported and looked at again): its item would never be
            # looked at again, and `run()` would wait for it forever. Said, by ending `run()` with it.
            self.stop(task.exception())
        self._poke()

    async def _look(self, item: Watched) -> None:
        try:
            observation = await self._fetch(item)
        except RefusedError as error:  # the service does not know it: asking again will not change that
            observation = Observation(REFUSED, True, error.message)
            self._report(item, error)
        except RateLimitedError as error:
            self._pause_all(error.retry_after or self.backoff.cap)
            self._retry_later(item, error)
            return
        except ServiceError as error:
            self._retry_later(item, error)
            return
        finally:
            item.in_flight = False
        if item.removed or item.final:
            return  # removed meanwhile, or a callback ended it first
        self._observed(item, observation)

    def _observed(self, item: Watched, observation: Observation) -> None:
        changed = observation.status != item.status or observation.final != item.final
        item.status, item.final = observation.status, observation.final
        item.unchanged = 0 if changed else item.unchanged + 1
        if not item.final:
            backoff = observation.backoff or self.backoff
            self._schedule(item, self._clock() + backoff.delay(item.unchanged))
        if changed:
            self._on_change(item, observation)
        self._poke()

    def _retry_later(self, item: Watched, error: ServiceError) -> None:
        self._report(item, error)
        if not item.removed and not item.final:
            item.unchanged += 1
            self._schedule(item, self._clock() + self.backoff.delay(item.unchanged))

    def _report(self, item: Watched, error: ServiceError) -> None:
        if self._on_error is not None:
            self._on_error(item, error)

    def _pause_all(self, seconds: float) -> None:
        """A 429: the service asks everyone to slow down, so the whole budget waits."""
        self._tokens = -seconds * self.budget.per_second

    def _schedule(self, item: Watched, due: float) -> None:
        item.due = due
        self._tie += 1
        heapq.heappush(self._due, (due, self._tie, item.key))
        self._poke()


# --- looking at an item through the client ---------------------------------------------------


def client_fetch(client: Callable[[], Awaitable[ServiceClient]]) -> Fetch:
    """The scheduler's `fetch` over the service client (`client` gives it, built on first use)."""

    async def fetch(item: Watched) -> Observation:
        service = await client()
        if item.kind == "order":
            order = await service.get_order(item.reference)
            return order_observation(order.status, [card.status for card in order.cards], order_id=order.order_id)
        try:
            payout = await service.payout_status(item.reference)
        except RefusedError as error:
            if not payout_not_known(error):
                raise
            return Observation(NOT_REDEEMED, False, NOT_REDEEMED_DETAIL, backoff=NOT_REDEEMED_BACKOFF)
        extra = {
            name: value
            for name, value in (("transactionId", payout.transaction_id), ("payoutBatchId", payout.payout_batch_id))
            if value
        }
        return Observation(payout.status, is_payout_final(payout.status), payout.transaction_id or "", extra)

    return fetch


def payout_not_known(error: RefusedError) -> bool:
    """The service has no payout for the weblink (404, or a refusal saying not found): issued, not redeemed yet."""
    return error.status == 404 or "not found" in error.message.lower()


def order_observation(status: str, card_statuses: Iterable[str | None], *, order_id: int | None = None) -> Observation:
    statuses = list(card_statuses)
    counts: dict[str, int] = {}
    for card_status in statuses:
        counts[card_status or ""] = counts.get(card_status or "", 0) + 1
    extra: dict[str, Any] = {"cards": counts}
    if order_id is not None:
        extra["orderId"] = order_id
    return Observation(status, is_order_final(status), card_summary(statuses), extra)
