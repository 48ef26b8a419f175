"""Fixed exchange rates (units per 1 USD), documented in docs/simulator.md.

A rate between two currencies is the one `GET exchange-rates` publishes:
`rate(A, B) = USD_RATES[B] / USD_RATES[A]`, rounded half-up to 6 decimals
(the provider's example shows 6). Every conversion (catalog prices in a
TargetCurrency, order charges) multiplies by that published rate and rounds
to cents, so a charge can be checked by hand: price × rate.
"""

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
RATE_PLACES = Decimal("0.000001")
BASE = "USD"


class UnknownCurrency(ValueError):
    """A currency the simulator has no rate for."""


def rate(source: str, target: str) -> Decimal:
    """Units of `target` for one unit of `source`, as published."""
    try:
        source_rate, target_rate = USD_RATES[source.upper()], USD_RATES[target.upper()]
    except KeyError as missing:
        raise UnknownCurrency(str(missing)) from None
    if source_rate == target_rate:
        return Decimal("1")
    return (target_rate / source_rate).quantize(RATE_PLACES, rounding=ROUND_HALF_UP).normalize()


def convert(amount: Decimal, source: str, target: str) -> Decimal:
    """Amount in `source` expressed in `target`: amount × rate, rounded half-up to cents."""
    if source == target:
        return amount
    return (amount * rate(source, target)).quantize(CENT, rounding=ROUND_HALF_UP)


def rates_json(base: str | None, currency: str | None) -> dict:
    """The exchange-rates answer: every rate based on `base` (USD when absent), or just `currency`'s."""
    base_code = (base or BASE).upper()
    if base_code not in USD_RATES:
        raise UnknownCurrency(base_code)
    codes = [currency.upper()] if currency else [code for code in USD_RATES if code != base_code]
    return {
        "baseCurrencyCode": base_code,
        "rates": [{"currencyCode": code, "value": float(rate(base_code, code))} for code in codes],
    }
