"""The money trail on the wire: transactions and exchange rates (DESIGN.md, provider SDK facts).

Amounts are Decimal (the client parses JSON numbers as Decimal), money is
`{value, currencyCode}`. Fields the provider documents but may leave out are
optional; unknown fields are kept (`WireModel`).
"""

from __future__ import annotations

from decimal import Decimal

from tui.api.models import WireModel


class Money(WireModel):
    value: Decimal
    currency_code: str


class ExchangeRateUsed(WireModel):
    from_currency: str
    to_currency: str
    exchange_rate: Decimal


class TransactionItem(WireModel):
    product_name: str | None = None
    brand_name: str | None = None
    brand_currency_code: str | None = None
    denomination: Money | None = None
    client_discount_type: str | None = None
    client_discount_value: Decimal | None = None
    client_transaction_fee_type: str | None = None
    client_transaction_fee_value: Decimal | None = None
    client_price: Decimal | None = None
    estimated_price: Decimal | None = None
    quantity: int | None = None
    client_total: Decimal | None = None
    client_exchange_rate: ExchangeRateUsed | None = None


class Transaction(WireModel):
    transaction_id: str  # as sent: the provider pads it with trailing spaces
    transaction_type: str | None = None
    transaction_date: str | None = None
    transaction_amount: Money
    available_balance: Money  # the balance after this transaction
    order_id: int | None = None
    request_id: str | None = None
    product_id: int | None = None
    order_number: str | None = None
    order_total: Money | None = None
    order_total_for_selected_products: Money | None = None
    order_date: str | None = None
    comment: str | None = None
    notes: str | None = None
    order_items: list[TransactionItem] = []

    @property
    def reference(self) -> str:
        """The transaction id without the padding, to show and to compare."""
        return self.transaction_id.strip()


class ClientTransactions(WireModel):
    client_name: str | None = None
    transactions: list[Transaction] = []


class TransactionsReport(WireModel):
    start_date: str | None = None
    end_date: str | None = None
    clients: list[ClientTransactions] = []

    @property
    def transactions(self) -> list[Transaction]:
        return [t for client in self.clients for t in client.transactions]


class Rate(WireModel):
    currency_code: str
    value: Decimal  # units of currency_code for one unit of the base


class ExchangeRates(WireModel):
    base_currency_code: str
    rates: list[Rate] = []
