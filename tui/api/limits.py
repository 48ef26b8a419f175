"""The provider's rate limits: one table, each limit overridable per profile.

DESIGN.md, "What the real provider sends and enforces": integrators report
these per-credential limits; the provider publishes none. Each endpoint of
the client has a name here; an endpoint without a figure still goes through
the limiter (a Retry-After or a rate-limit header on it holds it back).
A limit is "at most `requests` in any `seconds`", written "4/hour", "120/min", "2/s".
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

# The client's endpoints, by name (the keys of the table and of the profile's [limits]).
ACCOUNTS = "accounts"
CATALOG_V2 = "catalog_v2"
CATALOG_V1 = "catalog_v1"
CATALOG_V21 = "catalog_v21"  # brands, stock, categories, countries: their limits unreported, taken as v2's
PLACE_ORDER = "place_order"
GET_ORDER = "get_order"
ORDER_HISTORY = "order_history"
NOTIFICATIONS = "notifications"
REDEEM = "redeem"
PAYOUT_STATUS = "payout_status"
TRANSACTIONS = "transactions"
EXCHANGE_RATES = "exchange_rates"
# Place order's own pacing (DESIGN "Facts"), windows booked with each Place order turn (tui.api.limiter):
PLACE_ORDER_SPACING = "place_order_spacing"  # 500 ms between two calls: at most 1 in any 0.5 s
PLACE_ORDER_PRODUCT = "place_order_product"  # at most 6 orders of one product a minute, counted per product

ENDPOINTS = (
    ACCOUNTS,
    CATALOG_V2,
    CATALOG_V1,
    CATALOG_V21,
    PLACE_ORDER,
    GET_ORDER,
    ORDER_HISTORY,
    NOTIFICATIONS,
    REDEEM,
    PAYOUT_STATUS,
    TRANSACTIONS,
    EXCHANGE_RATES,
    PLACE_ORDER_SPACING,
    PLACE_ORDER_PRODUCT,
)

UNITS = {"s": 1.0, "sec": 1.0, "second": 1.0, "min": 60.0, "minute": 60.0, "h": 3600.0, "hour": 3600.0, "day": 86400.0}
_RATE_RE = re.compile(r"\s*(\d+)\s*/\s*(\d*(?:\.\d+)?)\s*([a-z]+)\s*")


@dataclass(frozen=True)
class Limit:
    """At most `requests` in any `seconds`."""

    requests: int
    seconds: float

    @property
    def interval(self) -> float:
        """The average spacing the limit allows: a watch scheduler's budget, a 429's wait without Retry-After."""
        return self.seconds / self.requests

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    def __str__(self) -> str:
        for unit, seconds in (("hour", 3600.0), ("min", 60.0), ("s", 1.0)):
            if self.seconds == seconds:
                return f"{self.requests}/{unit}"
        return f"{self.requests}/{self.seconds:g}s"


# DESIGN's figures. Get order's budget stands for payout status too: the payout status
# endpoint is polled the same way and integrators report no figure of its own (docs/decisions.md).
DEFAULT_LIMITS: Mapping[str, Limit] = {
    CATALOG_V2: Limit(1, 1.0),
    CATALOG_V1: Limit(2, 3600.0),
    CATALOG_V21: Limit(1, 1.0),
    PLACE_ORDER: Limit(2, 1.0),
    GET_ORDER: Limit(120, 60.0),
    PAYOUT_STATUS: Limit(120, 60.0),
    EXCHANGE_RATES: Limit(20, 60.0),
    TRANSACTIONS: Limit(4, 3600.0),
    PLACE_ORDER_SPACING: Limit(1, 0.5),
    PLACE_ORDER_PRODUCT: Limit(6, 60.0),
}


class LimitSyntaxError(ValueError):
    pass


def wait_words(seconds: float) -> str:
    """A wait as a person says it: "45 s", "2 min"."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def parse_limit(text: str) -> Limit:
    """ "4/hour", "120/min", "1/s", "10/30s" -> Limit; LimitSyntaxError says what is wrong."""
    match = _RATE_RE.fullmatch(text.lower())
    unit = UNITS.get(match.group(3).rstrip("s") or "s") if match else None
    if match is None or unit is None:
        raise LimitSyntaxError(f"{text!r} is not a limit: write requests/period, e.g. 4/hour, 120/min, 2/s")
    requests, count = int(match.group(1)), float(match.group(2) or 1)
    if requests < 1 or count <= 0:
        raise LimitSyntaxError(f"{text!r}: at least 1 request in a period longer than 0")
    return Limit(requests, count * unit)


LIMITS_VARIABLE = "GIFTDESK_LIMITS"  # "endpoint=N/period,...": overrides for every profile of a process


def limits_table(
    overrides: Mapping[str, str] | None = None, environ: Mapping[str, str] = os.environ
) -> dict[str, Limit]:
    """DEFAULT_LIMITS, then $GIFTDESK_LIMITS (e.g. a sandbox whose limits differ, or a test suite whose
    simulator enforces none), then a profile's overrides (endpoint name -> "N/period")."""
    table = dict(DEFAULT_LIMITS)
    table.update(parse_overrides(environ_overrides(environ)))
    table.update(parse_overrides(overrides or {}))
    return table


def environ_overrides(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    pairs = [pair.partition("=") for pair in environ.get(LIMITS_VARIABLE, "").split(",") if pair.strip()]
    for name, equals, _ in pairs:
        if not equals:
            raise LimitSyntaxError(f"{LIMITS_VARIABLE}: {name.strip()!r} is not endpoint=N/period")
    return {name.strip(): text.strip() for name, _, text in pairs}


def parse_overrides(overrides: Mapping[str, str]) -> dict[str, Limit]:
    """endpoint name -> "N/period" read; LimitSyntaxError names the first that does not read."""
    table = {}
    for endpoint, text in overrides.items():
        if endpoint not in ENDPOINTS:
            raise LimitSyntaxError(f"{endpoint!r} is no endpoint; use one of {', '.join(ENDPOINTS)}")
        try:
            table[endpoint] = parse_limit(text)
        except LimitSyntaxError as exc:
            raise LimitSyntaxError(f"{endpoint} = {exc}") from None
    return table
