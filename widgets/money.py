"""Money as people read it: grouped digits, the currency's own decimals, the code.

The client parses the wire's numbers as Decimal (tui.api.wire_json), so an
amount arrives here exact; a float or str is taken through `str` so that 0.1
stays 0.1. Rounding is done once, here, half up, to the currency's ISO 4217
minor units, read from the `iso4217` package (the published ISO table, kept up
to date upstream) instead of a hand-kept list. A code ISO does not know (or
one without minor units, like XAU) gets 2.
No Textual here: the CLI formats money with it too (tui/commands).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import cache

DEFAULT_MINOR_UNITS = 2

Amount = Decimal | float | int | str


def to_decimal(value: Amount) -> Decimal:
    if isinstance(value, Decimal):
        return value
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"not an amount: {value!r}") from None


@cache
def _iso_minor_units() -> dict[str, int]:
    # Imported on first use: the table is parsed when the package loads, which a
    # command that prints no money need not pay for.
    from iso4217 import Currency

    return {currency.code: currency.exponent for currency in Currency if currency.exponent is not None}


def minor_units(currency: str) -> int:
    """ISO 4217 minor units: JPY 0, USD 2, KWD 3, CLF 4; 2 for a code ISO does not list."""
    return _iso_minor_units().get(currency.strip().upper(), DEFAULT_MINOR_UNITS)


def format_amount(value: Amount, currency: str) -> str:
    """`1234.5, "USD"` -> `1,234.50`; `500000, "JPY"` -> `500,000`."""
    places = minor_units(currency)
    rounded = to_decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return f"{rounded:,.{places}f}"


def format_money(value: Amount, currency: str) -> str:
    """`1234.5, "USD"` -> `1,234.50 USD`."""
    return f"{format_amount(value, currency)} {currency}"


def format_range(low: Amount, high: Amount, currency: str) -> str:
    """`5, 500, "USD"` -> `5.00–500.00 USD`; one amount when both ends are equal."""
    if to_decimal(low) == to_decimal(high):
        return format_money(low, currency)
    return f"{format_amount(low, currency)}–{format_amount(high, currency)} {currency}"
