"""The exchange-rates converter: an amount in the base currency in every other currency."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from tui.api.money_models import ExchangeRates


class AmountInvalid(ValueError):
    """What a person typed is not an amount; the message says what to type."""


def parse_amount(text: str) -> Decimal:
    cleaned = text.strip().replace(",", "").replace("_", "")
    try:
        amount = Decimal(cleaned)
    except InvalidOperation:
        raise AmountInvalid(f"{text!r} is not an amount: type digits, e.g. 150 or 12.50") from None
    if not amount.is_finite() or amount < 0:
        raise AmountInvalid(f"{text!r} is not an amount: type a number of 0 or more")
    return amount


@dataclass(frozen=True)
class Converted:
    currency: str
    rate: Decimal | None  # None: the service did not state it (it sent 0)
    amount: Decimal | None  # exact: amount × rate, rounded only when shown; None when the rate is not stated


def convert_all(amount: Decimal, rates: ExchangeRates) -> list[Converted]:
    return [
        Converted(rate.currency_code, rate.known, None if rate.known is None else amount * rate.known)
        for rate in rates.rates
    ]
