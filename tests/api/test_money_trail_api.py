"""Transactions and exchange rates through the client: against the simulator over
loopback, and against MockTransport with the documented shapes (money exact)."""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from decimal import Decimal

import httpx
import pytest
from money_cases import RATES_ANSWER, TRANSACTIONS_ANSWER

from tui.api import wire_json
from tui.api.client import ServiceClient
from tui.api.errors import RefusedError
from tui.api.models import OrderLine, PlaceOrder, to_wire
from tui.core.ledger import of_currency, reconcile

TODAY = date.today()


@pytest.fixture
async def client(sim, demo_credentials):
    credential = demo_credentials["acme-sandbox"]
    async with ServiceClient(sim.base_url, credential.client_id, credential.client_secret) as client:
        yield client


def mock_client(body: str, requests: list[httpx.Request]) -> ServiceClient:
    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, content=body.encode(), headers={"Content-Type": "application/json"})

    return ServiceClient("http://svc.test", "client-1", "secret-1", transport=httpx.MockTransport(answer))


# --- against the simulator ---------------------------------------------------------------


async def test_an_order_in_another_currency_is_one_transaction_at_the_published_rate(client):
    request_id = str(uuid.uuid4())
    before = next(a for a in await client.accounts() if a.id == 1001).balance
    await client.place_order(PlaceOrder(request_id, 1001, [OrderLine(501, 2, 20)]))  # Tea & Co £20, GBP
    report = await client.transactions(TODAY, TODAY)
    [transaction] = [t for t in report.transactions if t.request_id == request_id]
    [item] = transaction.order_items
    rate = (await client.exchange_rates("GBP", "USD")).rates[0].value
    # The rate as stated, or 0 (not stated: the simulator leaves it out on every third order, as the provider may).
    assert item.client_exchange_rate is not None and item.client_exchange_rate.known_rate in (rate, None)
    assert (item.client_exchange_rate.from_currency, item.client_exchange_rate.to_currency) == ("GBP", "USD")
    charged = (Decimal("20") * 2 * rate).quantize(Decimal("0.01"))  # by hand: price × quantity × rate
    assert transaction.transaction_amount.value == charged  # positive, as the provider records a charge
    assert item.client_total == charged
    # The provider's recording: the whole line's price, as a money object in the account's currency.
    assert item.client_price == charged and item.client_price.currency_code == "USD"
    after = next(a for a in await client.accounts() if a.id == 1001).balance
    assert transaction.available_balance.value == after == before - charged
    assert transaction.transaction_id != transaction.reference == transaction.transaction_id.rstrip()


async def test_the_days_asked_are_the_days_answered(client):
    yesterday = TODAY - timedelta(days=1)
    report = await client.transactions(yesterday, yesterday)
    assert (report.start_date, report.end_date) == (yesterday.isoformat(), yesterday.isoformat())
    assert report.transactions == []


async def test_a_range_that_ends_before_it_starts_is_refused(client):
    with pytest.raises(RefusedError):
        await client.transactions(TODAY, TODAY - timedelta(days=1))


async def test_exchange_rates_three_behaviours(client):
    every = await client.exchange_rates()
    assert every.base_currency_code == "USD"
    assert {r.currency_code: r.value for r in every.rates}["EUR"] == Decimal("0.92")
    gbp = await client.exchange_rates("GBP")
    assert gbp.base_currency_code == "GBP" and "GBP" not in {r.currency_code for r in gbp.rates}
    assert {r.currency_code: r.value for r in gbp.rates}["USD"] == Decimal("1.265823")
    one = await client.exchange_rates("EUR", "JPY")
    assert [(r.currency_code, r.value) for r in one.rates] == [("JPY", Decimal("163.043478"))]


async def test_an_unknown_currency_is_refused(client):
    with pytest.raises(RefusedError, match="Unsupported currency"):
        await client.exchange_rates("XYZ")


# --- against MockTransport: the documented shapes, exactly ---------------------------------


async def test_transactions_request_and_documented_shape():
    requests: list[httpx.Request] = []
    async with mock_client(TRANSACTIONS_ANSWER, requests) as client:
        report = await client.transactions(date(2026, 11, 1), date(2026, 11, 2))
    [request] = requests
    assert request.method == "GET" and request.url.path == "/api/integration/v1.0/transactions"
    assert dict(request.url.params) == {"startDate": "2026-11-01", "endDate": "2026-11-02"}
    first, second = report.transactions
    assert first.transaction_id == "T123456   " and first.reference == "T123456"  # padding kept, shown without
    assert first.available_balance.value == Decimal("1000.10")  # exact, not 1000.1000000000000227...
    assert second.transaction_amount.value == Decimal("-0.1")
    [item] = first.order_items
    assert item.client_exchange_rate is not None and item.client_exchange_rate.exchange_rate == Decimal("1.265823")
    assert item.model_extra == {"futureField": "kept"}
    assert report.clients[0].client_name == "acme"


async def test_transactions_json_goes_out_as_it_came():
    async with mock_client(TRANSACTIONS_ANSWER, []) as client:
        report = await client.transactions(date(2026, 11, 1), date(2026, 11, 2))
    assert wire_json.loads(wire_json.dumps(to_wire(report))) == wire_json.loads(TRANSACTIONS_ANSWER)
    text = wire_json.dumps(to_wire(report))
    assert '"value": 1000.10' in text and '"value": -0.1' in text and '"transactionId": "T123456   "' in text


async def test_rates_request_and_shape():
    requests: list[httpx.Request] = []
    async with mock_client(RATES_ANSWER, requests) as client:
        rates = await client.exchange_rates("USD", "EUR")
    assert requests[0].url.path == "/api/integration/v1.0/exchange-rates"
    assert dict(requests[0].url.params) == {"baseCurrency": "USD", "currency": "EUR"}
    assert rates.rates[0].value == Decimal("0.871483")
    async with mock_client(RATES_ANSWER, requests) as client:
        await client.exchange_rates()
    assert dict(requests[1].url.params) == {}  # no parameters: every rate based on USD


async def test_the_documented_answer_reconciles_and_a_wrong_balance_is_named():
    async with mock_client(TRANSACTIONS_ANSWER, []) as client:
        report = await client.transactions(date(2026, 11, 1), date(2026, 11, 2))
    good = reconcile(of_currency(report, "usd"))
    assert not good.failures and "every balance change matches" in good.summary()
    broken = TRANSACTIONS_ANSWER.replace(
        '"value": 1000.00, "currencyCode": "USD"', '"value": 999.99, "currencyCode": "USD"'
    )
    async with mock_client(broken, []) as client:
        report = await client.transactions(date(2026, 11, 1), date(2026, 11, 2))
    bad = reconcile(of_currency(report, "USD"))
    [failure] = bad.failures
    assert failure.transaction.reference == "T123457"
    assert failure.problems == ("balance moved -0.11, amount -0.1",)
    assert "1 do not add up: T123457" in bad.summary()
