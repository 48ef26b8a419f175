"""The simulator's money trail over raw HTTP: one transaction per charge, written in the
charge path, so balances and transactions always agree; charges are price × the published rate."""

from __future__ import annotations

import itertools
import json
import uuid
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

import httpx
import pytest

TODAY = date.today().isoformat()
TRANSACTIONS = "/api/integration/v1.0/transactions"
RATES = "/api/integration/v1.0/exchange-rates"
CATALOG = "/api/integration/v2.0/catalog"
CHECKOUT = "/api/integration/v1.0/orders/checkout"
SEEDED = {1001: Decimal("100000.00"), 1002: Decimal("50000.00"), 1003: Decimal("25.00")}


def get(http: httpx.Client, path: str, **params) -> object:
    response = http.get(path, params=params)
    assert response.status_code == 200, response.text
    return json.loads(response.content, parse_float=Decimal)


def order(http: httpx.Client, account: int, product: int, value: str, quantity: int = 1) -> httpx.Response:
    body = {
        "RequestId": str(uuid.uuid4()),
        "AccountId": account,
        "Products": [{"ProductId": product, "Quantity": quantity, "Value": float(value)}],
    }
    return http.post(CHECKOUT, json=body)


@pytest.fixture
def acme(sim_factory, demo_credentials):
    sim = sim_factory()  # its own: balances start as seeded
    with httpx.Client(base_url=sim.base_url, auth=demo_credentials["acme-sandbox"].auth) as http:
        yield http


def transactions(http: httpx.Client) -> list[dict]:
    answer = get(http, TRANSACTIONS, startDate=TODAY, endDate=TODAY)
    return [t for client in answer["clients"] for t in client["transactions"]]


def test_balances_and_transactions_always_agree(acme):
    http = acme
    placed = [
        order(http, 1001, 101, "25", 2),  # USD on USD
        order(http, 1001, 501, "20", 3),  # GBP product on the USD account
        order(http, 1002, 102, "40.13"),  # failed card (magic .13): charged, not refunded
        order(http, 1002, 601, "150"),  # EUR on EUR
        order(http, 1003, 102, "500"),  # InsufficientBalance: no charge, no transaction
        order(http, 1001, 102, "7.77", 4),
    ]
    assert [r.status_code for r in placed] == [200, 200, 200, 200, 400, 200]
    found = transactions(http)
    assert len(found) == 5  # one per charge; the refused order has none
    accounts = {a["id"]: a for a in get(http, "/api/integration/v1.0/accounts")["accounts"]}
    for account_id, opening in SEEDED.items():
        currency = accounts[account_id]["currency"]
        mine = [t for t in found if t["availableBalance"]["currencyCode"] == currency]
        balance = opening
        for t in mine:
            assert t["transactionAmount"]["currencyCode"] == currency
            # As the provider records a charge: a positive amount, the balance falling by it.
            assert t["transactionType"] == "Order" and t["transactionAmount"]["value"] > 0
            balance -= t["transactionAmount"]["value"]
            assert t["availableBalance"]["value"] == balance
            items_total = sum(item["clientTotal"] for item in t["orderItems"])
            assert items_total == t["transactionAmount"]["value"] == t["orderTotal"]["value"]
        assert Decimal(str(accounts[account_id]["balance"])) == balance


def test_a_converted_charge_is_price_times_the_published_rate(acme):
    http = acme
    assert order(http, 1002, 501, "20", 3).status_code == 200  # GBP 20 x 3 on the EUR account
    [t] = transactions(http)
    [item] = t["orderItems"]
    rate = get(http, RATES, baseCurrency="GBP", currency="EUR")["rates"][0]["value"]
    assert item["clientExchangeRate"] == {"fromCurrency": "GBP", "toCurrency": "EUR", "exchangeRate": rate}
    price = get(http, CATALOG, ProductId="501")["items"][0]["products"][0]["price"]["min"]  # in GBP
    by_hand = (price * item["quantity"] * rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    assert item["clientTotal"] == by_hand == t["transactionAmount"]["value"]
    assert item["denomination"] == {"value": Decimal("20.0"), "currencyCode": "GBP"}
    # The provider's recording: the whole line's price (quantity x card) as money in the account's currency.
    assert item["clientPrice"] == item["estimatedPrice"] == {"value": by_hand, "currencyCode": "EUR"}


def test_the_rate_is_not_stated_between_equal_currencies_and_on_every_third_order(acme):
    http = acme
    for _ in range(3):
        assert order(http, 1002, 501, "20").status_code == 200  # GBP on EUR: orders 500001 to 500003
    assert order(http, 1001, 101, "25").status_code == 200  # USD on USD
    stated = [t["orderItems"][0]["clientExchangeRate"]["exchangeRate"] for t in transactions(http)]
    assert stated[0] == stated[1] > 0 and stated[2:] == [0, 0]


def test_the_documented_shape(acme):
    http = acme
    order(http, 1001, 101, "25")
    answer = get(http, TRANSACTIONS, startDate=TODAY, endDate=TODAY)
    assert set(answer) == {"startDate", "endDate", "clients"} and answer["clients"][0]["clientName"] == "acme"
    [t] = answer["clients"][0]["transactions"]
    assert set(t) == {
        "orderId",
        "requestId",
        "productId",
        "orderNumber",
        "orderTotal",
        "orderTotalForSelectedProducts",
        "orderDate",
        "transactionId",
        "transactionType",
        "comment",
        "notes",
        "availableBalance",
        "transactionAmount",
        "transactionDate",
        "orderItems",
        # and the fields the provider's recording has beyond its documentation, null at this level
        "clientName",
        "xeroCreditNoteNumber",
        "orderType",
        "currencyCode",
    }
    assert t["currencyCode"] is None and t["xeroCreditNoteNumber"] is None
    assert t["clientName"] is None and t["orderType"] is None
    assert t["transactionId"] != t["transactionId"].rstrip()  # padded, as the provider sends it
    assert t["orderNumber"].startswith("O-") and t["transactionType"] == "Order"
    assert set(t["orderItems"][0]) == {
        "productName",
        "brandName",
        "brandCurrencyCode",
        "denomination",
        "clientDiscountType",
        "clientDiscountValue",
        "clientTransactionFeeType",
        "clientTransactionFeeValue",
        "clientPrice",
        "estimatedPrice",
        "quantity",
        "clientTotal",
        "clientExchangeRate",
        # in each item, as the recording has them
        "brandWithDenominationCurrency",
        "createdDate",
    }
    assert t["orderItems"][0]["createdDate"] == "0001-01-01T00:00:00"  # the provider's "not stated"


def test_each_credential_sees_only_its_own(acme, demo_credentials):
    http = acme
    order(http, 1001, 101, "25")
    for name in ("other-sandbox", "acme-production"):
        with httpx.Client(base_url=http.base_url, auth=demo_credentials[name].auth) as other:
            assert transactions(other) == []


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "Invalid startDate"),
        ({"startDate": TODAY}, "Invalid endDate"),
        ({"startDate": "2026-13-01", "endDate": TODAY}, "Invalid startDate"),
        ({"startDate": TODAY, "endDate": "2000-01-01"}, "endDate is before startDate"),
    ],
)
def test_bad_days_are_400_with_a_message(acme, params, message):
    http = acme
    response = http.get(TRANSACTIONS, params=params)
    assert (response.status_code, response.json()) == (400, {"message": message})


def test_exchange_rates_three_behaviours_and_a_refusal(acme):
    http = acme
    every = get(http, RATES)
    assert every["baseCurrencyCode"] == "USD" and {"currencyCode": "EUR", "value": Decimal("0.92")} in every["rates"]
    based = get(http, RATES, baseCurrency="eur")
    assert based["baseCurrencyCode"] == "EUR" and len(based["rates"]) == len(every["rates"])
    assert get(http, RATES, baseCurrency="EUR", currency="USD") == {
        "baseCurrencyCode": "EUR",
        "rates": [{"currencyCode": "USD", "value": Decimal("1.086957")}],
    }
    refused = http.get(RATES, params={"currency": "XYZ"})
    assert (refused.status_code, refused.json()) == (400, {"message": "Unsupported currency"})


def test_a_seeded_past_has_its_transactions_on_the_orders_days_and_they_add_up(sim_factory, demo_credentials):
    """Seeded orders are charged now and moved back; their transactions move with them, and a
    history that drains an account raises its opening balance instead of breaking the ledger."""
    sim = sim_factory(history=2000, seed=3)
    transactions = sim.state.orders.ledger.transactions["acme-sandbox"]
    assert len(transactions) == 2000
    assert all(t.at == t.order.created_wall for t in transactions)
    assert len({t.at.date() for t in transactions}) > 20  # spread over the 30 days, not all today
    by_account: dict[int, list] = {}
    for t in transactions:
        by_account.setdefault(t.order.account.id, []).append(t)
    for account_transactions in by_account.values():
        for before, after in itertools.pairwise(account_transactions):
            assert before.balance_after - after.balance_after == after.amount  # a charge: the balance falls by it
        assert account_transactions[-1].balance_after == account_transactions[-1].order.account.balance
