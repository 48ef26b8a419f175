"""Settings of the simulator: seed, catalog size, timings, faults."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .rate_limits import PROVIDER_LIMITS


@dataclass(frozen=True)
class Timing:
    """How fast simulated time moves (all in seconds)."""

    step_seconds: float  # order/card: Created -> Processing -> final, one step each
    slow_seconds: float  # extra Pending time of an order holding a "Slow" product
    pause_seconds: float  # how long a Paused card (.14) stays Paused
    redeem_hold_seconds: float  # a redeem request is held open this long (makes 429 testable)
    payout_step_seconds: float  # a payout moves to its next status after this long
    callback_backoff_seconds: float  # first retry delay; doubles on each retry
    callback_attempts: int  # total delivery attempts per callback
    callback_timeout_seconds: float  # per attempt

    def replace(self, **changes: Any) -> Timing:
        return replace(self, **changes)


TIMING_PRESETS: dict[str, Timing] = {
    # Tests and the demo: sub-second steps, pauses of a few seconds.
    "fast": Timing(
        step_seconds=0.3,
        slow_seconds=3.0,
        pause_seconds=3.0,
        redeem_hold_seconds=0.3,
        payout_step_seconds=0.5,
        callback_backoff_seconds=0.2,
        callback_attempts=6,
        callback_timeout_seconds=2.0,
    ),
    # Closer to a real service, for watching things move by hand.
    "realistic": Timing(
        step_seconds=2.0,
        slow_seconds=30.0,
        pause_seconds=20.0,
        redeem_hold_seconds=1.0,
        payout_step_seconds=5.0,
        callback_backoff_seconds=1.0,
        callback_attempts=8,
        callback_timeout_seconds=5.0,
    ),
}


DEMO_HISTORY = 200  # orders in the past of `giftdesk --demo` and `giftdesk sim`


@dataclass(frozen=True)
class SimulatorSettings:
    seed: int = 1
    brands: int = 300
    timing: str | Timing = "fast"  # a preset name or a Timing
    faults: str | None = None  # e.g. "latency=50ms,5xx=0.1,drop=0.05,429=0.1"
    host: str = "127.0.0.1"
    port: int = 0  # 0: a free port
    catalog_refresh_seconds: float | None = None  # re-price some products this often (catalog_changes)
    history: int = 0  # orders seeded over the last 30 days (tui/simulator/history.py)
    place_limits: bool = False  # refuse Place order calls that break the provider's pacing (429)
    hostile: bool = False  # free-text fields hold markup, escapes and controls (hostile.py)
    # The provider's per-endpoint limits, enforced with 429 + Retry-After (rate_limits.py): (endpoint, requests,
    # seconds) per limit; None enforces none (`giftdesk sim --limits off`, speed tests only).
    limits: tuple[tuple[str, int, float], ...] | None = PROVIDER_LIMITS

    def resolved_timing(self) -> Timing:
        if isinstance(self.timing, Timing):
            return self.timing
        try:
            return TIMING_PRESETS[self.timing]
        except KeyError:
            raise ValueError(f"unknown timing preset {self.timing!r}; use one of {sorted(TIMING_PRESETS)}") from None
