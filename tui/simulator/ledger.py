"""Transactions: one for every charge the simulator makes, with the balance after it.

The order book calls `Ledger.charge` in the same step that debits the account
(OrderBook.place), so an account's balance and its transactions always agree:
the balance after a transaction is the balance before it moved by its amount.
As the provider's sandbox records it, an Order charge's `transactionAmount` is
positive while the balance falls by it: the sign does not say the direction
(DESIGN.md "What the real provider sends"). Failed cards are not refunded (docs/simulator.md), so there is no
refund transaction. The answer's shape is DESIGN.md's (provider SDK facts):
money as `{value, currencyCode}`, `transactionId` padded with trailing spaces
as the provider's fixed-width column sends it, nested `orderItems`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from .catalog import price_of
from .rates import convert, rate

if TYPE_CHECKING:
    from .catalog import Product
    from .order_records import Account, Order, OrderLine

TRANSACTION_ID_WIDTH = 16  # the provider pads its ids with spaces to a fixed width
DISCOUNT_TYPE = "Percentage"
FEE_TYPE = "Fixed"


class LedgerQueryInvalid(ValueError):
    """A bad startDate/endDate; the message is the 400 body."""


def money(value: Decimal, currency: str) -> dict:
    return {"value": float(value), "currencyCode": currency}


def order_number(order_id: int) -> str:
    """The provider's order number for an order id, like `O-00500001`."""
    return f"O-{order_id:08d}"


def wire_time(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Transaction:
    transaction_id: str
    kind: str  # transactionType
    order: Order
    amount: Decimal  # as the provider writes it: a charge is positive, and the balance falls by it
    balance_after: Decimal

    @property
    def at(self) -> datetime:
        """Naive UTC: the charge is made when the order is (a seeded past order moves both)."""
        return self.order.created_wall

    def to_json(self) -> dict:
        order, currency = self.order, self.order.account.currency
        return {
            "orderId": order.order_id,
            "requestId": order.request_id,
            "productId": order.lines[0].product.id,
            "orderNumber": order_number(order.order_id),
            "orderTotal": money(order.total, currency),
            "orderTotalForSelectedProducts": money(order.total, currency),
            "orderDate": wire_time(order.created_wall),
            "transactionId": self.transaction_id,
            "transactionType": self.kind,
            "comment": "",
            "notes": "",
            "availableBalance": money(self.balance_after, currency),
            "transactionAmount": money(self.amount, currency),
            "transactionDate": wire_time(self.at),
            "orderItems": [_item_json(line, currency, order.order_id) for line in order.lines],
            # Sent by the provider besides the documented fields, null in its recording (DESIGN.md "What the real
            # provider sends"): the item-level fields are in each orderItems element.
            "clientName": None,
            "orderType": None,
            "xeroCreditNoteNumber": None,
            "currencyCode": None,
        }


def line_charge(product: Product, value: Decimal, quantity: int, brand_currency: str, account_currency: str) -> Decimal:
    """What one order line costs the account: client price × quantity × the published rate, to cents."""
    return convert(price_of(product, value) * quantity, brand_currency, account_currency)


def _brand_with_denomination(line: OrderLine) -> str:
    return f"{line.brand.name} {line.brand.currency} {line.value.normalize():f}"


def stated_rate(brand_currency: str, currency: str, order_id: int) -> Decimal:
    """The rate the provider states on an item: 0 (not stated) between equal currencies, and
    between different ones for every third order (ids 500003, 500006, ...), as its sandbox answers show."""
    if brand_currency == currency or order_id % 3 == 2:
        return Decimal(0)
    return rate(brand_currency, currency)


NOT_STATED = "0001-01-01T00:00:00"  # the provider's "no date" in its recorded items


def _item_json(line: OrderLine, currency: str, order_id: int) -> dict:
    brand_currency = line.brand.currency
    line_price = line_charge(line.product, line.value, line.quantity, brand_currency, currency)  # the whole line
    return {
        "productName": line.product.name,
        "brandName": line.brand.name,
        "brandCurrencyCode": brand_currency,
        "denomination": money(line.value, brand_currency),
        "clientDiscountType": DISCOUNT_TYPE,
        "clientDiscountValue": float(line.product.discount * 100),
        "clientTransactionFeeType": FEE_TYPE,
        "clientTransactionFeeValue": 0.0,
        "clientPrice": money(line_price, currency),
        "estimatedPrice": money(line_price, currency),
        "quantity": line.quantity,
        "clientTotal": float(line_price),
        "clientExchangeRate": {
            "fromCurrency": brand_currency,
            "toCurrency": currency,
            "exchangeRate": float(stated_rate(brand_currency, currency, order_id)),
        },
        "brandWithDenominationCurrency": _brand_with_denomination(line),
        "createdDate": NOT_STATED,
    }


class Ledger:
    """Every credential's transactions, oldest first."""

    def __init__(self) -> None:
        self.transactions: dict[str, list[Transaction]] = {}  # credential name -> its transactions
        self._next_id = 90_000_001

    def charge(self, order: Order) -> Transaction:
        """Record the order's charge; the caller has already debited `order.account`."""
        transaction = Transaction(
            transaction_id=f"T{self._next_id}".ljust(TRANSACTION_ID_WIDTH),
            kind="Order",
            order=order,
            amount=order.total,
            balance_after=order.account.balance,
        )
        self._next_id += 1
        self.transactions.setdefault(order.credential.name, []).append(transaction)
        return transaction

    def raise_opening_balance(self, account: Account, amount: Decimal) -> None:
        """The account held `amount` more from the start: every balance after its charges so far moves up too."""
        for name, transactions in self.transactions.items():
            self.transactions[name] = [
                replace(t, balance_after=t.balance_after + amount) if t.order.account is account else t
                for t in transactions
            ]

    def between(self, credential_name: str, start: date, end: date) -> list[Transaction]:
        return [t for t in self.transactions.get(credential_name, []) if start <= t.at.date() <= end]


def parse_day_range(params: dict[str, str]) -> tuple[date, date]:
    """startDate and endDate (YYYY-MM-DD, both required, both included), case-insensitive names."""
    lowered = {key.lower(): value for key, value in params.items()}
    days = []
    for name in ("startDate", "endDate"):
        try:
            days.append(date.fromisoformat(lowered.get(name.lower(), "").strip()[:10]))
        except ValueError:
            raise LedgerQueryInvalid(f"Invalid {name}") from None
    start, end = days
    if end < start:
        raise LedgerQueryInvalid("endDate is before startDate")
    return start, end


def transactions_json(client_name: str, transactions: list[Transaction], start: date, end: date) -> dict:
    return {
        "startDate": start.isoformat(),
        "endDate": end.isoformat(),
        "clients": [{"clientName": client_name, "transactions": [t.to_json() for t in transactions]}],
    }
