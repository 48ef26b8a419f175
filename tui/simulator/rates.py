"""Fixed exchange rates (units per 1 USD), documented in docs/simulator.md."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

USD_RATES: dict[str, Decimal] = {
    "USD": Decimal("1"),
    "EUR": Decimal("0.92"),
    "GBP": Decimal("0.79"),
    "CAD": Decimal("1.36"),
    "AUD": Decimal("1.52"),
    "JPY": Decimal("150"),
    "CHF": Decimal("0.88"),
    "MXN": Decimal("17"),
}

CENT = Decimal("0.01")


def convert(amount: Decimal, source: str, target: str) -> Decimal:
    """Amount in `source` expressed in `target`, rounded to cents."""
    if source == target:
        return amount
    return (amount / USD_RATES[source] * USD_RATES[target]).quantize(CENT, rounding=ROUND_HALF_UP)
