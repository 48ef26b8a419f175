"""A transaction's direction comes from the balance's move and its type, never from its amount's sign.

The provider's sandbox recording (DESIGN.md "What the real provider sends and enforces") shows an Order charge
as a positive `transactionAmount` (9.47, 18.9401) while `availableBalance` falls by it, and items whose
`clientTotal` (18.94, 2 decimals) differs from the charge (18.9401) by less than a cent. The simulator used to
write charges negative, so the tests agreed with the mistake: these hold both sign conventions.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tui.api.money_models import Transaction
from tui.core.ledger import directed_amounts, reconcile


def tx(number: int, amount: str, after: str, kind: str | None = "Order", items: list[str] | None = None) -> Transaction:
    return Transaction.model_validate(
        {
            "transactionId": f"{number}    ",
            "transactionType": kind,
            "transactionDate": f"2024-05-15T04:29:{number:02d}",
            "transactionAmount": {"value": Decimal(amount), "currencyCode": "USD"},
            "availableBalance": {"value": Decimal(after), "currencyCode": "USD"},
            "orderItems": [{"clientTotal": Decimal(total), "quantity": 1} for total in items or []],
        }
    )


# As recorded: the amounts positive, the balance falling by each.
RECORDED_DAY = [
    tx(1, "9.47", "990.53", items=["9.47"]),
    tx(2, "18.9401", "971.5899", items=["18.94"]),
]


def test_recorded_charges_are_debits_though_their_amounts_are_positive():
    assert directed_amounts(RECORDED_DAY) == [Decimal("-9.47"), Decimal("-18.9401")]


def test_the_recorded_day_adds_up_from_the_right_opening_balance():
    result = reconcile(RECORDED_DAY)
    assert not result.failures, result.summary()
    assert result.lines[0].before == Decimal("1000.00")
    assert "every balance change matches its amount" in result.summary()


@pytest.mark.parametrize("sign", [1, -1], ids=["charges positive", "charges negative"])
def test_both_sign_conventions_read_the_same(sign):
    day = [
        tx(1, str(sign * Decimal("10.00")), "90.00"),
        tx(2, str(sign * Decimal("2.50")), "87.50"),
        tx(3, "4.00", "91.50", kind="Refund"),
    ]
    assert directed_amounts(day) == [Decimal("-10.00"), Decimal("-2.50"), Decimal("4.00")]
    result = reconcile(day)
    assert not result.failures and result.lines[0].before == Decimal("100.00")


def test_a_sub_cent_rounding_of_client_total_is_not_a_mismatch_but_a_cent_is():
    assert not reconcile([tx(1, "18.9401", "81.0599", items=["18.94"])]).failures
    off = reconcile([tx(1, "18.9401", "81.0599", items=["18.93"])])
    assert [line.problems for line in off.failures] == [("items add up to 18.93, amount 18.9401",)]


def test_a_balance_that_moves_the_wrong_way_is_named():
    day = [tx(1, "10.00", "90.00"), tx(2, "5.00", "95.00")]  # an Order that raised the balance
    result = reconcile(day)
    assert [line.transaction.reference for line in result.failures] == ["2"]
    assert "balance moved +5.00, amount -5.00" in result.failures[0].problems


def test_a_type_that_says_nothing_takes_the_balance_move():
    day = [tx(1, "10.00", "90.00"), tx(2, "3.00", "87.00", kind="Adjustment"), tx(3, "1.00", "88.00", kind=None)]
    assert directed_amounts(day) == [Decimal("-10.00"), Decimal("-3.00"), Decimal("1.00")]
    assert not reconcile(day).failures
