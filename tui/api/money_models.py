"""The money trail on the wire: transactions and exchange rates (DESIGN.md, provider SDK facts).

Amounts are `tui.api.models.Amount`: a Decimal read from a number or from
`{value, currencyCode}` (the provider sends objects here), with the currency
when one came. Fields the provider documents but may leave out are optional;
unknown fields are kept (`WireModel`) and shown in the ledger's detail.
"""

from __future__ import annotations

from decimal import Decimal

from tui.api.models import Amount, WireModel


class ExchangeRateUsed(WireModel):
    from_currency: str | None = None
    to_currency: str | None = None
    exchange_rate: Decimal | None = None

    @property
    def known_rate(self) -> Decimal | None:
        """The rate, or None when unknown: the provider sends 0 for a rate it does not state."""
        return self.exchange_rate if self.exchange_rate else None


class TransactionItem(WireModel):
    product_name: str | None = None
    brand_name: str | None = None
    brand_currency_code: str | None = None
    denomination: Amount | None = None
    client_discount_type: str | None = None
    client_discount_value: Decimal | None = None
    client_transaction_fee_type: str | None = None
    client_transaction_fee_value: Amount | None = None
    client_price: Amount | None = None  # the provider: `{value, currencyCode}` in the account's currency
    estimated_price: Amount | None = None
    quantity: int | None = None
    client_total: Amount | None = None
    client_exchange_rate: ExchangeRateUsed | None = None


class Transaction(WireModel):
    transaction_id: str  # as sent: the provider pads it with trailing spaces
    transaction_type: str | None = None
    transaction_date: str | None = None
    transaction_amount: Amount
    available_balance: Amount  # the balance after this transaction
    order_id: int | None = None
    request_id: str | None = None
    product_id: int | None = None
    order_number: str | None = None
    order_total: Amount | None = None
    order_total_for_selected_products: Amount | None = None
    order_date: str | None = None
    comment: str | None = None
    notes: str | None = None
    order_items: list[TransactionItem] = []
    currency_code: str | None = None  # the provider's, nullable

    @property
    def reference(self) -> str:
        """The transaction id without the padding, to show and to compare."""
        return self.transaction_id.strip()

    @property
    def currency(self) -> str:
        """The account's currency: the balance's, else the amount's, else the transaction's ("" when none says)."""
        return self.available_balance.currency_code or self.transaction_amount.currency_code or self.currency_code or ""


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
    value: Decimal  # units of currency_code for one unit of the base; 0: unknown

    @property
    def known(self) -> Decimal | None:
        """The rate, or None: the provider sends 0 for a rate it does not state (unknown, not zero)."""
        return self.value if self.value else None


class ExchangeRates(WireModel):
    base_currency_code: str
    rates: list[Rate] = []
