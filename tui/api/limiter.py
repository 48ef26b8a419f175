"""The one limiter every request of the client goes through (DESIGN rule 11).

A sliding window per endpoint: a request gets the earliest moment at which
no `Limit.seconds`-long window holds more than `Limit.requests` of them, and
that moment is booked at once, so requests made side by side queue up
instead of racing. The service counts a request when it arrives, somewhere
between its sending and its answer: so a request still in flight counts as
arriving now (it may still be queued for a connection), and when its answer
comes its booking moves to that moment. Never an undercount, however long a
request waited or travelled.
A Retry-After (or a rate-limit header saying none are left) holds the
endpoint back until the moment it names, whatever the table says.
A turn may also need room in further windows (Place order's 500 ms spacing
and its 6 orders of a product a minute): it is booked in all of them at once,
at the first moment each has room. Only a request that reached the service
counts: a turn whose request never left (connection refused, DNS failure,
connect timeout) is cancelled.

The bookings live in a `LimitStore`: `MemoryLimitStore` for one process, or
the profile's shared SQLite store (tui.local.limit_store) injected by the
wiring, so that every giftdesk process of a profile shares one budget.
Times are wall-clock seconds (time.time): the only clock processes share.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from tui.api.limits import Limit, limits_table

Window = tuple[str, Limit | None]  # a key of the store, and its limit (None: only holds apply)


class LimitStore(Protocol):
    """Where the bookings live. Each method is atomic (across processes, for a shared store)."""

    def reserve(self, windows: Sequence[Window], now: float, latest: float) -> tuple[float, int | None]:
        """The earliest moment from `now` at which every window has room for one more request (and no hold
        is on), with the booking's id (one booking, counted in every window); nothing is booked (id None)
        when that moment is later than `latest`."""
        ...

    def answered(self, booking: int, at: float) -> None:
        """The request's answer came at `at`: count the booking from then."""
        ...

    def hold(self, key: str, until: float) -> None:
        """No request before `until` (a Retry-After); an earlier hold is extended, never shortened."""
        ...

    def held_until(self, key: str) -> float:
        """The end of the key's hold (0 without one)."""
        ...

    def cancel(self, booking: int) -> None:
        """The booking was not used (its turn moved): it no longer counts."""
        ...


IN_FLIGHT_FORGOTTEN = 600.0  # seconds: a booking never answered (its process died) stops counting after this


@dataclass
class _Window:
    bookings: dict[int, float] = field(default_factory=dict)
    answered: set[int] = field(default_factory=set)
    held_until: float = 0.0


class MemoryLimitStore:
    """The bookings of one process."""

    def __init__(self) -> None:
        self._windows: dict[str, _Window] = {}
        self._keys: dict[int, list[str]] = {}
        self._next_id = 0

    def reserve(self, windows: Sequence[Window], now: float, latest: float) -> tuple[float, int | None]:
        at = max(self._earliest(key, limit, now) for key, limit in windows)
        if at > latest:
            return at, None
        self._next_id += 1
        for key, _ in windows:
            self._windows[key].bookings[self._next_id] = at
        self._keys[self._next_id] = [key for key, _ in windows]
        return at, self._next_id

    def _earliest(self, key: str, limit: Limit | None, now: float) -> float:
        window = self._windows.setdefault(key, _Window())
        horizon = now - (limit.seconds if limit is not None else 0.0)
        for booking, at in list(window.bookings.items()):  # answered a window ago, or lost: no longer counted
            if at <= (horizon if booking in window.answered else horizon - IN_FLIGHT_FORGOTTEN):
                del window.bookings[booking]
                window.answered.discard(booking)
        counted = [at if booking in window.answered else max(at, now) for booking, at in window.bookings.items()]
        return earliest(sorted(counted, reverse=True), limit, now, window.held_until)

    def answered(self, booking: int, at: float) -> None:
        for key in self._keys.get(booking, ()):
            window = self._windows[key]
            if booking in window.bookings:
                window.bookings[booking] = max(window.bookings[booking], at)
                window.answered.add(booking)

    def hold(self, key: str, until: float) -> None:
        window = self._windows.setdefault(key, _Window())
        window.held_until = max(window.held_until, until)

    def held_until(self, key: str) -> float:
        window = self._windows.get(key)
        return window.held_until if window is not None else 0.0

    def cancel(self, booking: int) -> None:
        for key in self._keys.pop(booking, ()):
            window = self._windows[key]
            window.bookings.pop(booking, None)
            window.answered.discard(booking)


def earliest(newest_first: list[float], limit: Limit | None, now: float, held_until: float) -> float:
    """The first moment from `now`, after any hold, at which one more request keeps `limit`,
    given the counted moments newest first (one in flight counts as `now` at the earliest).
    Shared by every store, so they agree."""
    at = max(now, held_until)
    if limit is not None and len(newest_first) >= limit.requests:
        at = max(at, newest_first[limit.requests - 1] + limit.seconds + margin(limit))
    return at


def margin(limit: Limit) -> float:
    """Kept beyond each window: requests booked a window apart do not arrive exactly so (one opens a
    connection, the next reuses it), and the service counts arrivals. 1% of the window, 50 ms to 2 s."""
    return min(2.0, max(0.05, limit.seconds / 100))


@dataclass(frozen=True)
class Turn:
    """A request's booked moment: `wait` seconds from when it was asked for."""

    endpoint: str
    at: float
    wait: float
    booking: int | None  # None: not booked, the wait is longer than the caller accepts
    also: tuple[str, ...] = ()  # the further windows it is booked in: a limit's name, then what it counts by


class Limiter:
    """The client's limiter: the table of limits, and the store holding the bookings."""

    def __init__(
        self,
        limits: Mapping[str, Limit] | None = None,
        store: LimitStore | None = None,
        *,
        key: str = "",
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`limits`: by default DESIGN's table (with $GIFTDESK_LIMITS); `key` names whose budget this is
        (the credential): one shared store serves many."""
        self.limits = dict(limits if limits is not None else limits_table())
        self.store: LimitStore = store or MemoryLimitStore()
        self.key = key
        self.clock = clock

    def turn(self, endpoint: str, *, max_wait: float = float("inf"), also: tuple[str, ...] = ()) -> Turn:
        """Book the endpoint's next turn, unless it is more than `max_wait` seconds away. `also`: further
        windows the request needs room in, each a limit's name then what it counts by
        ("place_order_product 201": that product's orders), booked with it."""
        now = self.clock()
        at, booking = self.store.reserve(self._windows(endpoint, also), now, now + max_wait)
        return Turn(endpoint, at, max(0.0, at - now), booking, also)

    def recheck(self, turn: Turn, *, max_wait: float = float("inf")) -> Turn:
        """When a booked turn comes: a hold set since it was booked (a 429's Retry-After, in this process or
        another) that reaches past it moves it to the endpoint's next turn after the hold. Otherwise the
        turn stands, with nothing left to wait."""
        windows = self._windows(turn.endpoint, turn.also)
        if turn.booking is None or max(self.store.held_until(key) for key, _ in windows) <= turn.at:
            return replace(turn, wait=0.0)
        self.store.cancel(turn.booking)
        return self.turn(turn.endpoint, max_wait=max_wait, also=turn.also)

    def answered(self, turn: Turn) -> None:
        if turn.booking is not None:
            self.store.answered(turn.booking, self.clock())

    def cancel(self, turn: Turn) -> None:
        """The turn's request never reached the service (DESIGN rule 11): it does not count."""
        if turn.booking is not None:
            self.store.cancel(turn.booking)

    def hold(self, endpoint: str, seconds: float) -> None:
        """The service asked for a pause (Retry-After, or no requests left until a reset)."""
        self.store.hold(self._key(endpoint), self.clock() + seconds)

    def pause_after_refusal(self, endpoint: str) -> float:
        """A 429 without a Retry-After: the limit's own spacing (1 s for an endpoint without a figure)."""
        limit = self.limits.get(endpoint)
        return limit.interval if limit is not None else 1.0

    def _windows(self, endpoint: str, also: tuple[str, ...]) -> list[Window]:
        return [(self._key(name), self.limits.get(name.split()[0])) for name in (endpoint, *also)]

    def _key(self, endpoint: str) -> str:
        return f"{self.key} {endpoint}" if self.key else endpoint
