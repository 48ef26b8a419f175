"""Money as people read it: grouped digits, the currency's own decimals, the code.

The wire carries JSON numbers (floats in the models). Going through `str`
into Decimal keeps what the service sent (0.1 stays 0.1, not
0.1000000000000000055...), and rounding is done once, here, half up.
No Textual here: the CLI formats money with it too (tui/commands).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

# ISO 4217 minor units where they are not 2.
_MINOR_UNITS = {
    "JPY": 0, "KRW": 0, "VND": 0, "CLP": 0, "ISK": 0, "UGX": 0, "XOF": 0, "XAF": 0,
    "BHD": 3, "KWD": 3, "OMR": 3, "JOD": 3, "TND": 3, "IQD": 3, "LYD": 3,
}

Amount = Decimal | float | int | str


def to_decimal(value: Amount) -> Decimal:
    if isinstance(value, Decimal):
        return value
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"not an amount: {value!r}") from None


def minor_units(currency: str) -> int:
    return _MINOR_UNITS.get(currency.upper(), 2)


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
