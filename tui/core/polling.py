"""How often to look again at something not final yet (an order, a payout).

One schedule for every watch: issues 6 and 7 both ask for about 1 s growing
to 30 s. No Textual here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

_MAX_EXPONENT = 64  # far past any cap; keeps factor ** looks from overflowing a float


@dataclass(frozen=True)
class Backoff:
    first: float = 1.0
    factor: float = 2.0
    cap: float = 30.0

    def delay(self, unchanged_looks: int) -> float:
        """The wait after `unchanged_looks` looks in a row that saw nothing new (0: it just moved)."""
        return min(self.cap, self.first * self.factor ** min(unchanged_looks, _MAX_EXPONENT))

    def delays(self) -> Iterator[float]:
        """The waits of one watch that never sees anything move, one after another."""
        looks = 0
        while True:
            yield self.delay(looks)
            looks += 1
