"""Pacing of Place order calls: the provider's documented limits, kept by the client.

The provider's SDK documentation (DESIGN.md, "Facts"): at least 500 ms
between two Place order calls, and at most 6 orders for the same product
within one minute. `PlacePacer.reserve` gives each call the earliest moment
that keeps both, and books it at once, so calls made side by side queue up
instead of racing; `done` moves the booking to when the answer came, so the
next call keeps its distance from when the service saw this one, however
long the request took to arrive. One pacer per client: a one-shot command starts afresh
(the service's 429 and the client's retry cover a burst of commands).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class PlaceLimits:
    min_interval: float = 0.5  # seconds between two Place order calls
    per_product: int = 6  # orders of one product ...
    window: float = 60.0  # ... within this many seconds


class PlacePacer:
    def __init__(self, limits: PlaceLimits = PlaceLimits(), clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._last: float | None = None
        self._by_product: dict[int, deque[float]] = {}

    def reserve(self, product_ids: Iterable[int]) -> float:
        """Seconds to wait before sending a Place order for these products; the slot is booked."""
        now = self.clock()
        limits = self.limits
        products = set(product_ids)
        at = now if self._last is None else max(now, self._last + limits.min_interval)
        for product in products:
            booked = self._by_product.setdefault(product, deque())
            while booked and booked[0] <= now - limits.window:
                booked.popleft()
            if len(booked) >= limits.per_product:
                at = max(at, booked[-limits.per_product] + limits.window)
        self._last = at
        for product in products:
            self._by_product[product].append(at)
        return at - now

    def done(self, product_ids: Iterable[int]) -> None:
        """The call's answer came (or it failed): count it from now."""
        now = self.clock()
        self._last = now if self._last is None else max(self._last, now)
        for product in set(product_ids):
            booked = self._by_product.get(product)
            if booked:
                booked[-1] = max(booked[-1], now)
