"""The provider's per-endpoint rate limits, enforced: 429 with Retry-After beyond them.

DESIGN.md, "What the real provider sends and enforces": the figures
integrators report, per credential. The simulator's own copy of the rule,
sharing nothing with the client's limiter (DESIGN rule 3): at most
`requests` admitted in any `seconds`-long window, counted when a request
arrives; a refused request is not counted. Every request is written to a
log (endpoint, credential, moment, status) that tests and the benchmark read.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

# (endpoint, requests, seconds). Endpoints not named here have no limit.
PROVIDER_LIMITS: tuple[tuple[str, int, float], ...] = (
    ("catalog_v2", 1, 1.0),
    ("catalog_v1", 2, 3600.0),
    ("catalog_v21", 1, 1.0),  # the v2.1 catalog: taken as v2's (DESIGN)
    ("place_order", 2, 1.0),
    ("get_order", 120, 60.0),
    ("payout_status", 120, 60.0),
    ("exchange_rates", 20, 60.0),
    ("transactions", 4, 3600.0),
)
LOG_LENGTH = 100_000  # requests remembered (a demo left running forgets the oldest)


@dataclass(frozen=True)
class LoggedRequest:
    endpoint: str
    credential: str
    at: float  # time.time() when it arrived
    status: int  # 429 when the limit refused it; else what the endpoint answered
    query: str = ""  # the query string as sent (e.g. the days a report was asked for)


class RateLimits:
    def __init__(
        self, table: tuple[tuple[str, int, float], ...] | None, clock: Callable[[], float] = time.time
    ) -> None:
        """`table` None: nothing is limited (`giftdesk sim --limits off`), requests are still logged."""
        self.table = {endpoint: (requests, seconds) for endpoint, requests, seconds in table or ()}
        self.clock = clock
        self._admitted: dict[tuple[str, str], deque[float]] = {}
        self.log: deque[LoggedRequest] = deque(maxlen=LOG_LENGTH)

    def admit(self, endpoint: str, credential: str) -> float | None:
        """None when the request may go ahead (it is counted), else the seconds until it may (Retry-After)."""
        limit = self.table.get(endpoint)
        if limit is None:
            return None
        requests, seconds = limit
        now = self.clock()
        admitted = self._admitted.setdefault((credential, endpoint), deque())
        while admitted and admitted[0] <= now - seconds:
            admitted.popleft()
        if len(admitted) >= requests:
            return admitted[0] + seconds - now
        admitted.append(now)
        return None

    def record(self, endpoint: str, credential: str, status: int, query: str = "") -> None:
        self.log.append(LoggedRequest(endpoint, credential, self.clock(), status, query))


def retry_after(seconds: float) -> str:
    """Whole seconds, never 0: a client that waits exactly that long is admitted."""
    return str(max(1, math.ceil(seconds)))
