"""The provider's Place order limits, enforced: 429 for a call that breaks them.

The provider's SDK documentation (DESIGN.md, "Facts"): at least 500 ms
between two Place order calls, and at most 6 orders for the same product
within one minute. Counted per credential, on every call admitted (refused
calls are not counted). The simulator's own copy of the rule: it shares
nothing with the client's (DESIGN rule 3).
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from .orders import _is_int, body_field

MIN_INTERVAL_SECONDS = 0.5
ORDERS_PER_PRODUCT = 6
PRODUCT_WINDOW_SECONDS = 60.0


@dataclass
class _Calls:
    last: float = -math.inf
    by_product: dict[int, deque[float]] = field(default_factory=dict)


class PlaceOrderLimits:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._calls: dict[str, _Calls] = {}

    def admit(self, credential_name: str, body: object) -> float | None:
        """None when the call may go ahead (and it is counted), else the seconds to wait (Retry-After)."""
        now = self.clock()
        calls = self._calls.setdefault(credential_name, _Calls())
        products = product_ids(body)
        waits = [calls.last + MIN_INTERVAL_SECONDS - now]
        for product in products:
            recent = calls.by_product.setdefault(product, deque())
            while recent and recent[0] <= now - PRODUCT_WINDOW_SECONDS:
                recent.popleft()
            if len(recent) >= ORDERS_PER_PRODUCT:
                waits.append(recent[0] + PRODUCT_WINDOW_SECONDS - now)
        wait = max(waits)
        if wait > 0:
            return wait
        calls.last = now
        for product in products:
            calls.by_product[product].append(now)
        return None


def product_ids(body: object) -> set[int]:
    """The product ids a checkout body names, read leniently: the order book judges the body itself."""
    products = body_field(body, "Products") if isinstance(body, dict) else None
    if not isinstance(products, list):
        return set()
    return {pid for item in products if isinstance(item, dict) and _is_int(pid := body_field(item, "ProductId"))}
