"""Money as people read it: grouped digits, the currency's own decimals, the code.

The client parses the wire's numbers as Decimal (tui.api.wire_json), so an
amount arrives here exact; a float or str is taken through `str` so that 0.1
stays 0.1. Rounding is done once, here, half up, to the currency's ISO 4217
minor units, read from the `iso4217` package's table (the published ISO table,
kept up to date upstream) instead of a hand-kept list. A code ISO does not know (or
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
    # Read on first use, from the table the `iso4217` package ships (its own
    # table.xml): importing the package builds an Enum of every currency and
    # its countries, three times the cost, on the way to the demo's first rows
    # (issue 16). tests/test_money.py holds this to the package's Currency.
    from importlib.util import find_spec
    from pathlib import Path
    from xml.etree import ElementTree

    spec = find_spec("iso4217")  # finds the package without running it
    assert spec is not None and spec.submodule_search_locations, "the iso4217 package is a dependency"
    table = ElementTree.parse(Path(spec.submodule_search_locations[0]) / "table.xml").getroot()
    units = {}
    for entry in table.iter("CcyNtry"):
        code, minor = (entry.findtext("Ccy") or "").strip(), (entry.findtext("CcyMnrUnts") or "").strip()
        if code and minor.isdigit():  # "N.A." (gold, SDR...): none, so the default
            units[code] = int(minor)
    return units


def minor_units(currency: str) -> int:
    """ISO 4217 minor units: JPY 0, USD 2, KWD 3, CLF 4; 2 for a code ISO does not list."""
    return _iso_minor_units().get(currency.strip().upper(), DEFAULT_MINOR_UNITS)


def format_amount(value: Amount, currency: str) -> str:
    """`1234.5, "USD"` -> `1,234.50`; `500000, "JPY"` -> `500,000`."""
    places = minor_units(currency)
    rounded = to_decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return f"{rounded:,.{places}f}"


def exact_amount(value: Amount, currency: str) -> str:
    """For files and scripts: `71219.8, "USD"` -> `71219.80`; no grouping, never rounded (`1.005` stays)."""
    amount = to_decimal(value)
    places = minor_units(currency)
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and exponent > -places:
        amount = amount.quantize(Decimal(1).scaleb(-places))
    return f"{amount:f}"


# A production order's typed confirmation, in the TUI and the CLI alike: the total face value.
TOTAL_PROMPT = "the total face value (the number only)"


def typed_total(value: Amount, quantity: int, currency: str) -> str:
    """What a production order's confirmation asks to be typed: the total face value, e.g. "50.00"."""
    return exact_amount(to_decimal(value) * quantity, currency)


def format_money(value: Amount, currency: str) -> str:
    """`1234.5, "USD"` -> `1,234.50 USD`."""
    return f"{format_amount(value, currency)} {currency}"


def format_range(low: Amount, high: Amount, currency: str) -> str:
    """`5, 500, "USD"` -> `5.00–500.00 USD`; one amount when both ends are equal."""
    if to_decimal(low) == to_decimal(high):
        return format_money(low, currency)
    return f"{format_amount(low, currency)}–{format_amount(high, currency)} {currency}"
