"""Money exact from the wire to the screen: ISO 4217 minor units, Decimal sums, JSON that
goes out as it came, and CSV that keeps a signed amount a number."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from iso4217 import Currency

from tui.api import wire_json
from tui.api.models import Amount
from tui.api.money_models import Transaction
from tui.core.ledger import reconcile
from tui.local.exports import to_csv
from widgets.money import format_amount, format_money, minor_units

ISO_CURRENCIES = [c for c in Currency if c.exponent is not None]


def test_the_minor_units_table_is_the_iso4217_package_s():
    from widgets.money import _iso_minor_units

    assert _iso_minor_units() == {c.code: c.exponent for c in ISO_CURRENCIES}


@pytest.mark.parametrize("currency", ISO_CURRENCIES, ids=[c.code for c in ISO_CURRENCIES])
def test_every_iso_currency_shows_its_own_minor_units(currency):
    shown = format_amount(Decimal("1234.56789"), currency.code)
    decimals = shown.partition(".")[2]
    assert len(decimals) == currency.exponent == minor_units(currency.code.lower())


@pytest.mark.parametrize(
    ("value", "currency", "shown"),
    [
        (150000, "PYG", "150,000 PYG"),  # the hand table lacked it: was 150,000.00 PYG
        (Decimal("500000"), "JPY", "500,000 JPY"),
        (Decimal("12.3456"), "KWD", "12.346 KWD"),
        (Decimal("1.23456"), "CLF", "1.2346 CLF"),  # four minor units
        (Decimal("1234.5"), "USD", "1,234.50 USD"),
        (Decimal("0.005"), "EUR", "0.01 EUR"),  # half up, once
        (Decimal("-25.32"), "USD", "-25.32 USD"),
        (10, "XAU", "10.00 XAU"),  # ISO gives gold no minor units: 2, like a code ISO does not know
        (10, "ZZZ", "10.00 ZZZ"),
    ],
)
def test_money_formatting(value, currency, shown):
    assert format_money(value, currency) == shown


def test_wire_json_keeps_every_digit():
    text = '{"a": 0.1, "b": 1000.10, "c": -25.32, "d": 7, "e": 1.5E+2, "s": "0.1"}'
    data = wire_json.loads(text)
    assert data == {
        "a": Decimal("0.1"),
        "b": Decimal("1000.10"),
        "c": Decimal("-25.32"),
        "d": 7,
        "e": Decimal("150"),
        "s": "0.1",
    }
    out = wire_json.dumps(data, indent=None)
    assert out == '{"a": 0.1, "b": 1000.10, "c": -25.32, "d": 7, "e": 1.5E+2, "s": "0.1"}'
    assert json.loads(out) == json.loads(text)


def test_wire_json_text_that_looks_like_its_marker_stays_text():
    data = {"brand": '"]]0.1[["', "value": Decimal("0.1")}
    assert json.loads(wire_json.dumps(data)) == {"brand": '"]]0.1[["', "value": 0.1}


def test_csv_keeps_a_plain_signed_number_and_defuses_formulas():
    text = to_csv(
        ["amount", "note"],
        [["-25.32", "=HYPERLINK(1)"], ["+1,000.50", "-1+2"], ["-25.32 USD", "@x"], ["-2 USD+cmd", "-25.32 usd"]],
    )
    assert text.splitlines() == [
        "amount,note",
        "-25.32,'=HYPERLINK(1)",
        '"+1,000.50",\'-1+2',
        "-25.32 USD,'@x",
        "'-2 USD+cmd,'-25.32 usd",
    ]


def _transaction(amount: Decimal, after: Decimal, number: int) -> Transaction:
    return Transaction(
        transaction_id=f"T{number}  ",
        transaction_amount=Amount(amount, "USD"),
        available_balance=Amount(after, "USD"),
        transaction_date=f"2026-11-01T00:00:{number:02d}",
    )


cents = st.decimals(
    min_value=Decimal("-10000"), max_value=Decimal("10000"), places=2, allow_nan=False, allow_infinity=False
)


@given(opening=cents, amounts=st.lists(cents, min_size=1, max_size=40))
def test_decimal_sums_reconcile_exactly(opening, amounts):
    """Many small amounts (0.1 + 0.2 ...) never drift: a float sum would."""
    balance, transactions = opening, []
    for number, amount in enumerate(amounts):
        balance += amount
        transactions.append(_transaction(amount, balance, number))
    result = reconcile(transactions)
    assert not result.failures
    assert result.lines[-1].transaction.available_balance.value - result.lines[0].before == sum(amounts, Decimal(0))


@given(amounts=st.lists(cents, min_size=2, max_size=20), which=st.integers(min_value=1, max_value=19))
def test_one_cent_off_is_named(amounts, which):
    which = min(which, len(amounts) - 1)
    balance, transactions = Decimal(0), []
    for number, amount in enumerate(amounts):
        balance += amount
        transactions.append(_transaction(amount, balance + (Decimal("0.01") if number == which else 0), number))
    failures = [line.transaction.reference for line in reconcile(transactions).failures]
    # The line that is off, and (unless it is the last) the next one, which starts from it.
    assert f"T{which}" in failures and set(failures) <= {f"T{which}", f"T{which + 1}"}


def test_a_ledger_of_one_transaction_says_one_transaction():
    # Issue 26: "1 transactions".
    one = reconcile([_transaction(Decimal("5.00"), Decimal("105.00"), 1)]).summary()
    assert one.startswith("1 transaction, balance 100.00 USD → 105.00 USD")
    two = reconcile(
        [_transaction(Decimal("5.00"), Decimal("105.00"), 1), _transaction(Decimal("1.00"), Decimal("106.00"), 2)]
    )
    assert two.summary().startswith("2 transactions,")
