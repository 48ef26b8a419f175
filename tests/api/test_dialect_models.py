"""The client reads the real provider's dialect (DESIGN.md "What the real provider sends and enforces"),
keeps what it does not know, and still names the field of a truly malformed answer. Issue 25."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest
from dialect_cases import GUID, TRANSACTION
from spec_cases import REASON_CODES

from tui.api import wire_json
from tui.api.client import RetryPolicy, ServiceClient
from tui.api.errors import REASONS, ForbiddenError, MalformedResponseError, OrderNotFoundError, RefusedError
from tui.api.models import Account, Amount, Brand, CatalogPage, NotificationConfig, Order, Product, to_wire
from tui.api.money_models import ExchangeRateUsed, TransactionsReport
from tui.api.request_ids import RequestIdInvalid, is_guid, new_request_id


def loaded(data: object) -> object:
    """As the client reads an answer: JSON numbers with a fraction as Decimal."""
    return wire_json.loads(wire_json.dumps(data))


def test_transactions_with_money_objects_are_read_with_their_currencies():
    report = TransactionsReport.model_validate(
        loaded(
            {
                "startDate": "2024-05-15",
                "endDate": "2024-05-15",
                "clients": [{"clientName": "acme", "transactions": [TRANSACTION]}],
            }
        )
    )
    [t] = report.transactions
    [item] = t.order_items
    assert item.client_price == Decimal("25.32") and item.client_price.currency_code == "USD"
    assert item.estimated_price.currency_code == "USD" and item.denomination.currency_code == "GBP"
    assert t.currency == "USD" and t.transaction_amount.value == Decimal("-50.63")
    assert item.client_exchange_rate.known_rate is None  # 0: not stated, not zero
    assert t.model_extra["xeroCreditNoteNumber"] is None and t.model_extra["orderType"] == "Sandbox"
    assert to_wire(report)["clients"][0]["transactions"][0] == loaded(TRANSACTION)  # written back as it came


@pytest.mark.parametrize(
    "amount",
    [
        25,
        Decimal("25.50"),
        25.5,
        "25.50",
        {"value": Decimal("25.50"), "currencyCode": "EUR"},
        {"value": 25, "currencyCode": None},
        {"value": 25},
    ],
)
def test_every_money_field_reads_a_number_or_an_object(amount):
    order = Order.model_validate(
        {
            "orderId": 1,
            "requestId": GUID,
            "status": "Succeeded",
            "total": amount,
            "items": [{"productId": 1, "productFaceValue": amount, "quantity": 1}],
        }
    )
    account = Account.model_validate({"id": 1, "currency": "EUR", "balance": amount, "isActive": True})
    number = amount["value"] if isinstance(amount, dict) else amount
    for value in (order.total, order.items[0].product_face_value, account.balance):
        assert isinstance(value, Amount) and value.value == Decimal(str(number))
    assert to_wire(order)["total"] == (
        amount if isinstance(amount, dict) else Decimal(str(number))
    )  # in the form it came


@pytest.mark.parametrize(
    "amount",
    [True, None, "lots", {"currencyCode": "USD"}, {"value": "x"}, {"value": 5, "currencyCode": 7}, [5], Decimal("NaN")],
)
def test_a_malformed_amount_is_refused_naming_the_field(amount):
    with pytest.raises(ValueError, match="balance"):
        Account.model_validate({"id": 1, "currency": "EUR", "balance": amount, "isActive": True})


def test_v1_brands_without_internal_id_and_a_page_saying_pageindex():
    brand = Brand.model_validate({"name": "Tea & Co", "countryCode": "GB", "currencyCode": "GBP"})
    assert brand.internal_id is None
    page = CatalogPage.model_validate({"pageindex": 2, "pageSize": 10, "count": 0, "items": []})
    assert page.page_index == 2


def test_nulls_in_the_notification_configuration_read_as_not_set():
    config = NotificationConfig.model_validate(
        {"notificationUrl": None, "notificationUrlSandbox": "https://x.test/sb", "secretKey": None}
    )
    assert (config.notification_url, config.notification_url_sandbox, config.secret_key) == (
        "",
        "https://x.test/sb",
        "",
    )


def test_an_account_without_sandbox_mode_takes_the_profiles_environment():
    account = Account.model_validate({"id": 1, "currency": "USD", "balance": 5, "isActive": True})
    assert account.environment("production") == "production" and account.environment("sandbox") == "sandbox"
    flagged = Account.model_validate({"id": 1, "currency": "USD", "balance": 5, "isActive": True, "sandboxMode": False})
    assert flagged.environment("sandbox") == "production"


def test_unknown_statuses_item_status_and_product_status_are_kept():
    order = Order.model_validate(
        {
            "orderId": 1,
            "requestId": GUID,
            "status": "CheckingOut",
            "total": 1,
            "items": [{"productId": 1, "productFaceValue": 1, "quantity": 1, "status": "Queued"}],
        }
    )
    assert order.status == "CheckingOut" and order.items[0].status == "Queued"
    base = {
        "id": 1,
        "name": "P",
        "minFaceValue": 5,
        "maxFaceValue": 5,
        "price": {"min": 5, "max": 5, "currencyCode": "USD"},
    }
    assert Product.model_validate(base).orderable
    assert Product.model_validate({**base, "status": "Active", "isDeleted": False}).orderable
    assert not Product.model_validate({**base, "isDeleted": True}).orderable
    assert not Product.model_validate({**base, "status": "Inactive"}).orderable


# --- over the wire: errors in words ------------------------------------------------------------


def client_answering(
    response: httpx.Response, environment: str = "sandbox"
) -> tuple[ServiceClient, list[httpx.Request]]:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return response

    client = ServiceClient(
        "http://svc.test",
        "id",
        "dialect-test-secret",
        transport=httpx.MockTransport(answer),
        retry=RetryPolicy(attempts=1),
        environment=environment,
    )
    return client, sent


def test_the_reason_codes_said_in_words_are_designs():
    assert sorted(REASONS) == sorted(REASON_CODES)


@pytest.mark.parametrize("code", REASON_CODES)
async def test_every_reason_code_is_said_in_words_with_what_to_do(code):
    client, _ = client_answering(httpx.Response(400, json={"message": code}))
    with pytest.raises(RefusedError) as caught:
        await client.exchange_rates()
    error = caught.value
    assert error.reason == code and error.message == f"{REASONS[code][0]} ({code})" and error.hint == REASONS[code][1]
    assert error.message != code and error.hint != RefusedError.default_hint


async def test_an_unknown_reason_code_is_shown_as_it_came():
    client, _ = client_answering(httpx.Response(400, json={"message": "SomethingNew"}))
    with pytest.raises(RefusedError, match=r"^SomethingNew$") as caught:
        await client.accounts()
    assert caught.value.reason == "SomethingNew"


@pytest.mark.parametrize(
    "answer", [httpx.Response(400, json={"message": "OrderNotFound"}), httpx.Response(404, json="Order not found")]
)
async def test_an_unknown_order_is_no_order_in_the_environment_whether_400_or_404(answer):
    client, _ = client_answering(answer, environment="production")
    with pytest.raises(OrderNotFoundError, match=r"^no order with this RequestId in production$"):
        await client.get_order(GUID)
    with pytest.raises(OrderNotFoundError):
        await client.get_order_wire(GUID)


async def test_403_says_the_credentials_lack_access_and_shows_the_services_text():
    client, _ = client_answering(httpx.Response(403, json={"error": "No access to \x1b[31mtransactions"}))
    with pytest.raises(ForbiddenError) as caught:
        await client.accounts()
    assert "no access to this resource (403)" in caught.value.message and caught.value.message.endswith(
        "No access to \x1b[31mtransactions"
    )  # literal here; shown through visible() where it is printed
    assert "access" in caught.value.hint


async def test_a_request_id_that_is_not_a_guid_is_refused_before_sending():
    from tui.api.models import OrderLine, PlaceOrder

    client, sent = client_answering(httpx.Response(200, json="whatever"))
    with pytest.raises(RequestIdInvalid, match="GUID"):
        await client.place_order(PlaceOrder("not-a-guid", 1001, [OrderLine(101, 1, 25)]))
    assert sent == []
    assert is_guid(new_request_id()) and is_guid(GUID) and not is_guid("3f2b8c1e5d4a4e0b9c7d1a2b3c4d5e6f")


def test_a_zero_rate_is_unknown():
    assert ExchangeRateUsed(from_currency="GBP", to_currency="USD", exchange_rate=Decimal(0)).known_rate is None
    assert ExchangeRateUsed(from_currency="GBP", to_currency="USD", exchange_rate=Decimal("1.2")).known_rate == Decimal(
        "1.2"
    )


async def test_a_malformed_answer_still_names_the_field():
    client, _ = client_answering(
        httpx.Response(
            200,
            json={
                "accounts": [
                    {"id": 1, "currency": "USD", "isActive": True, "balance": {"value": "lots", "currencyCode": "USD"}}
                ]
            },
        )
    )
    with pytest.raises(MalformedResponseError, match=r"balance: amount_parsing"):
        await client.accounts()


@pytest.mark.parametrize("status", [404, 410])
async def test_a_retired_catalog_v1_is_said_to_be_gone(status):
    client, _ = client_answering(httpx.Response(status, text="Not Found"))
    with pytest.raises(RefusedError, match=r"^catalog version 1 is gone") as caught:
        await client.catalog_v1()
    assert "version 2" in caught.value.hint
