"""ServiceClient on the wire: paths, headers, query names, bodies, errors, retries.

httpx.MockTransport gives the exact request (raw path included); sleeping is
injected, so retries cost no time.
"""

from __future__ import annotations

import base64
import json

import httpx
import pytest
from spec_cases import REDEEM_ERRORS, UNKNOWN_STATUSES, WEBLINK_CASES

from tui.api.client import RetryPolicy, ServiceClient, parse_retry_after
from tui.api.errors import (
    AuthenticationError,
    MalformedResponseError,
    RateLimitedError,
    RefusedError,
    ServerError,
    UnreachableError,
)
from tui.api.models import CatalogQuery, NotificationConfig, OrderLine, PlaceOrder, RedeemRequest, to_wire
from tui.api.payout_rules import RecipientInvalid
from tui.api.statuses import is_order_final

SECRET = "s3cret-client-value"
TOKEN = "abcDEF123%3D"
CARD_CODE = f"https://pay.example.test/payout/{TOKEN}"
PAYPAL_ANN = RedeemRequest("PayPal", recipient_email="ann@example.com")
REQ = "0e4f5a6b-1c2d-4e3f-8a9b-0c1d2e3f4a5b"  # a GUID: the provider takes no other RequestId

ACCOUNT = {"id": 1001, "currency": "USD", "balance": 2500.5, "isActive": True, "sandboxMode": True}
PRODUCT = {
    "id": 501,
    "name": "Gift 25",
    "minFaceValue": 25,
    "maxFaceValue": 25,
    "count": None,
    "price": {"min": 24.5, "max": 24.5, "currencyCode": "USD"},
    "modifiedDate": "2024-05-01T10:00:00",
}
BRAND = {
    "internalId": "b-1",
    "name": "Acme Books",
    "countryCode": "US",
    "currencyCode": "USD",
    "description": None,
    "disclaimer": "",
    "redemptionInstructions": None,
    "terms": None,
    "logoUrl": "https://img.example.test/acme.png",
    "modifiedDate": "2024-05-01T10:00:00",
    "products": [PRODUCT],
    "categories": [{"id": 7, "name": "Books", "description": None}],
}
ORDER = {
    "orderId": 9001,
    "requestId": "req-1",
    "status": "Succeeded",
    "createdDate": "2024-05-01T10:00:00",
    "total": 24.5,
    "errorMessage": None,
    "orderType": "Sandbox",
    "currency": "USD",
    "items": [
        {
            "productId": 501,
            "productFaceValue": 25,
            "quantity": 1,
            "countryCode": "US",
            "currencyCode": "USD",
            "brandCode": None,
            "pictureUrl": None,
            "cards": [
                {
                    "id": 1,
                    "serialNumber": "SN1",
                    "cardCode": CARD_CODE,
                    "pin": None,
                    "expirationDate": "2025-05-01T00:00:00",
                    "status": "Sold",
                }
            ],
        }
    ],
}
NOTIFICATIONS = {"notificationUrl": "https://hooks.example.test/cb", "notificationUrlSandbox": "", "secretKey": "k-123"}
REDEEMED = {"transactionId": "tx-1", "payoutBatchId": "batch-1", "isProcessing": True}


class FakeService:
    """A MockTransport handler answering from a script, recording every request."""

    def __init__(self, *answers: httpx.Response | Exception | dict | list | str) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, httpx.Response):
            return answer
        return httpx.Response(200, json=answer)

    @property
    def last(self) -> httpx.Request:
        return self.requests[-1]


class Sleeps(list):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def connect(sleeps):
    """connect(*answers) -> (client, service); no jitter, so waits are exact."""
    clients = []

    def make(*answers, retry: RetryPolicy | None = None, **kwargs):
        service = FakeService(*answers)
        client = ServiceClient(
            "http://svc.test/base",
            "client-1",
            SECRET,
            transport=httpx.MockTransport(service),
            retry=retry or RetryPolicy(),
            sleep=sleeps,
            rand=lambda: 0.0,
            **kwargs,
        )
        clients.append(client)
        return client, service

    yield make


# --- every endpoint: method, exact path, headers, body, parsed result ------------------


def assert_common_headers(request: httpx.Request, *, with_body: bool) -> None:
    assert request.headers["Accept"] == "application/json"
    expected = base64.b64encode(f"client-1:{SECRET}".encode()).decode()
    assert request.headers["Authorization"] == f"Basic {expected}"
    assert (request.headers.get("Content-Type") == "application/json") is with_body
    if not with_body:
        assert request.content == b""


async def test_accounts(connect):
    client, service = connect({"accounts": [ACCOUNT]})
    [account] = await client.accounts()
    assert (service.last.method, service.last.url.raw_path) == ("GET", b"/base/api/integration/v1.0/accounts")
    assert_common_headers(service.last, with_body=False)
    assert (account.id, account.currency, account.balance, account.is_active, account.sandbox_mode) == (
        1001,
        "USD",
        2500.5,
        True,
        True,
    )


async def test_catalog_v2_sends_every_query_parameter_by_its_wire_name(connect):
    client, service = connect({"pageIndex": 2, "pageSize": 10, "count": 31, "items": [BRAND]})
    query = CatalogQuery(
        currency_code="USD",
        country_code="US",
        name="Acme Books",
        modified_date="2024-01-31",
        product_id=501,
        page_size=10,
        page_index=2,
        brand_id=7,
        target_currency="EUR",
    )
    page = await client.catalog(query)
    assert service.last.url.path == "/base/api/integration/v2.0/catalog"
    assert dict(service.last.url.params) == {
        "CurrencyCode": "USD",
        "CountryCode": "US",
        "Name": "Acme Books",
        "ModifiedDate": "2024-01-31",
        "ProductId": "501",
        "PageSize": "10",
        "PageIndex": "2",
        "BrandId": "7",
        "TargetCurrency": "EUR",
    }
    assert_common_headers(service.last, with_body=False)
    assert (page.page_index, page.page_size, page.count) == (2, 10, 31)
    product = page.items[0].products[0]
    assert product.count is None and product.in_stock and product.price.currency_code == "USD"
    assert page.items[0].description is None and page.items[0].categories[0].name == "Books"


async def test_catalog_v2_omits_unset_parameters(connect):
    client, service = connect({"pageIndex": 0, "pageSize": 100, "count": 0, "items": []})
    await client.catalog(CatalogQuery(country_code="GB"))
    assert service.last.url.query == b"CountryCode=GB"
    await client.catalog()
    assert service.last.url.query == b""


async def test_catalog_v1(connect):
    client, service = connect({"brands": [BRAND]})
    [brand] = await client.catalog_v1()
    assert (service.last.method, service.last.url.raw_path) == ("GET", b"/base/api/integration/v1.0/catalog")
    assert brand.name == "Acme Books"


async def test_place_order_body_and_response(connect):
    client, service = connect(httpx.Response(200, json=REQ))
    order = PlaceOrder(REQ, 1001, [OrderLine(501, 2, 25.13)])
    assert await client.place_order(order) == REQ
    assert (service.last.method, service.last.url.raw_path) == ("POST", b"/base/api/integration/v1.0/orders/checkout")
    assert_common_headers(service.last, with_body=True)
    assert json.loads(service.last.content) == {
        "RequestId": REQ,
        "AccountId": 1001,
        "Products": [{"ProductId": 501, "Quantity": 2, "Value": 25.13}],
    }


async def test_get_order(connect):
    client, service = connect(ORDER)
    order = await client.get_order("req-1")
    assert (service.last.method, service.last.url.raw_path) == ("GET", b"/base/api/integration/v1.0/orders/req-1")
    assert_common_headers(service.last, with_body=False)
    assert order.status == "Succeeded" and is_order_final(order.status)
    assert order.cards[0].card_code == CARD_CODE and order.items[0].brand_code is None


async def test_get_order_escapes_the_request_id_as_one_segment(connect):
    client, service = connect(ORDER)
    await client.get_order("a/b c")
    assert service.last.url.raw_path == b"/base/api/integration/v1.0/orders/a%2Fb%20c"


async def test_notifications_get_and_set(connect):
    client, service = connect(NOTIFICATIONS)
    config = await client.get_notifications()
    assert (service.last.method, service.last.url.raw_path) == ("GET", b"/base/api/Integration/v1/notification")
    assert_common_headers(service.last, with_body=False)
    assert config.notification_url == "https://hooks.example.test/cb" and config.secret_key == "k-123"

    echoed = await client.set_notifications(NotificationConfig(notification_url="", secret_key="k-9"))
    assert (service.last.method, service.last.url.raw_path) == ("POST", b"/base/api/Integration/v1/notification")
    assert_common_headers(service.last, with_body=True)
    assert json.loads(service.last.content) == {"notificationUrl": "", "notificationUrlSandbox": "", "secretKey": "k-9"}
    assert echoed.notification_url == "https://hooks.example.test/cb"


@pytest.mark.parametrize("http_status, processing", [(200, False), (202, True)])
async def test_redeem_payout(connect, http_status, processing):
    client, service = connect(httpx.Response(http_status, json={**REDEEMED, "isProcessing": processing}))
    result = await client.redeem_payout(CARD_CODE, PAYPAL_ANN)
    assert (service.last.method, service.last.url.raw_path) == (
        "POST",
        f"/base/api/Integration/v2/payout/redeem/{TOKEN}".encode(),
    )
    assert_common_headers(service.last, with_body=True)
    assert json.loads(service.last.content) == {"wallet": "PayPal", "recipientEmail": "ann@example.com"}
    assert (result.transaction_id, result.payout_batch_id) == ("tx-1", "batch-1")
    assert (result.is_processing, result.http_status) == (processing, http_status)
    assert "http_status" not in to_wire(result) and "httpStatus" not in to_wire(result)


async def test_payout_status_keeps_every_field(connect):
    body = {"status": "Pending", "transactionId": "tx-1", "payoutBatchId": "b-1", "updatedAt": "t", "note": "x"}
    client, service = connect(body)
    payout = await client.payout_status(TOKEN)
    assert (service.last.method, service.last.url.raw_path) == (
        "GET",
        f"/base/api/Integration/v2/payout/status/{TOKEN}".encode(),
    )
    assert payout.status == "Pending" and payout.model_extra == {"note": "x"}
    assert to_wire(payout) == body


# --- weblink tokens on the wire ---------------------------------------------------------


@pytest.mark.parametrize("case", WEBLINK_CASES, ids=lambda case: case.given.strip())
async def test_weblink_goes_on_the_wire_exactly(connect, case):
    client, service = connect({"status": "Pending", **REDEEMED})  # parses as either answer
    await client.payout_status(case.given)
    await client.redeem_payout(case.given, PAYPAL_ANN)
    raw_paths = [request.url.raw_path.decode() for request in service.requests]
    assert raw_paths[0] == f"/base/api/Integration/v2/payout/status/{case.token}"
    assert raw_paths[1] == f"/base/api/Integration/v2/payout/redeem/{case.token}"
    for path in raw_paths:
        assert "=" not in path and "%253D" not in path


# --- errors: the spec's table, and the other failures -----------------------------------


@pytest.mark.parametrize("status, text, cause", REDEEM_ERRORS, ids=[row[2] for row in REDEEM_ERRORS])
async def test_every_redeem_error_row_maps_to_its_type_and_message(connect, status, text, cause):
    answer = httpx.Response(status, json=text) if text is not None else httpx.Response(status)
    client, _service = connect(answer, retry=RetryPolicy(attempts=1))
    expected = {400: RefusedError, 401: AuthenticationError, 429: RateLimitedError}[status]
    with pytest.raises(expected) as caught:
        await client.redeem_payout(CARD_CODE, PAYPAL_ANN)
    error = caught.value
    assert error.status == status and error.hint
    if text is not None:
        assert error.message == text and str(error) == text
    assert TOKEN not in str(error) and SECRET not in str(error) + repr(error)


async def test_refusal_text_may_also_come_as_an_object_or_plain_text(connect):
    client, _ = connect(httpx.Response(400, json={"message": "InsufficientBalance"}))
    with pytest.raises(
        RefusedError, match=r"^the account's balance is too low for this order \(InsufficientBalance\)$"
    ) as caught:
        await client.place_order(PlaceOrder(REQ, 1, [OrderLine(501, 1, 25)]))
    assert caught.value.reason == "InsufficientBalance" and "Fund the account" in caught.value.hint
    client, _ = connect(httpx.Response(404, text="Not Found"))
    with pytest.raises(RefusedError, match=r"^Not Found$"):
        await client.payout_status(TOKEN)
    client, _ = connect(httpx.Response(404, text="Not Found"))  # Get order's 404: no such order, in words
    with pytest.raises(RefusedError, match=r"^no order with this RequestId in this environment$"):
        await client.get_order("nope")


async def test_local_validation_stops_a_bad_redeem_before_sending(connect):
    client, service = connect(REDEEMED)
    with pytest.raises(RecipientInvalid, match=r"^PayPal payouts support only a recipient email\.$"):
        await client.redeem_payout(TOKEN, RedeemRequest("PayPal", recipient_phone="+15551234567"))
    assert service.requests == []


@pytest.mark.parametrize(
    "answer",
    [
        httpx.Response(200, text="<html>not json</html>"),
        httpx.Response(
            200,
            json={
                "orderId": 1,
                "requestId": "r",
                "status": "Sold",
                "total": "lots",
                "items": [{"cards": [{"cardCode": "SECRET-CODE-123"}]}],
            },
        ),
        httpx.Response(200, json=["not", "an", "order"]),
        httpx.Response(302, headers={"Location": "https://login.example.test"}),
    ],
)
async def test_malformed_answers_are_reported_without_their_content(connect, answer):
    client, _ = connect(answer)
    with pytest.raises(MalformedResponseError) as caught:
        await client.get_order("r")
    assert "SECRET-CODE-123" not in str(caught.value) and caught.value.hint
    wire_client, _ = connect(answer)  # the wire form (order show --json) says exactly the same
    with pytest.raises(MalformedResponseError) as wire_caught:
        await wire_client.get_order_wire("r")
    assert str(wire_caught.value) == str(caught.value) and wire_caught.value.hint == caught.value.hint


async def test_accounts_without_the_accounts_field_is_malformed(connect):
    client, _ = connect({"items": []})
    with pytest.raises(MalformedResponseError, match="accounts"):
        await client.accounts()


async def test_place_order_answer_must_be_a_string(connect):
    client, _ = connect({"requestId": "r"})
    with pytest.raises(MalformedResponseError):
        await client.place_order(PlaceOrder(REQ, 1, [OrderLine(501)]))


# --- unknown fields and statuses --------------------------------------------------------


@pytest.mark.parametrize("status", UNKNOWN_STATUSES)
async def test_unknown_fields_and_statuses_are_kept_and_not_final(connect, status):
    card = {**ORDER["items"][0]["cards"][0], "status": status, "giftWrap": True}
    item = {**ORDER["items"][0], "cards": [card], "promo": {"code": "X"}}
    client, _ = connect({**ORDER, "status": status, "items": [item], "channel": "api"})
    order = await client.get_order("req-1")
    assert order.status == status and not is_order_final(order.status)
    assert order.model_extra == {"channel": "api"}
    assert order.items[0].model_extra == {"promo": {"code": "X"}}
    assert order.cards[0].model_extra == {"giftWrap": True}
    wire = to_wire(order)
    assert wire["channel"] == "api" and wire["items"][0]["cards"][0]["giftWrap"] is True


# --- retries ---------------------------------------------------------------------------


async def test_reads_retry_on_5xx_then_succeed(connect, sleeps):
    seen = []
    client, service = connect(
        httpx.Response(503), httpx.Response(502), {"accounts": []}, on_retry=lambda *args: seen.append(args)
    )
    assert await client.accounts() == []
    assert len(service.requests) == 3
    assert sleeps == [0.5, 1.0]  # exponential, no jitter with rand() == 0
    assert seen == [(1, 0.5, "HTTP 503"), (2, 1.0, "HTTP 502")]


async def test_reads_give_up_after_the_attempts_with_a_server_error(connect, sleeps):
    client, service = connect(httpx.Response(500), retry=RetryPolicy(attempts=3))
    with pytest.raises(ServerError) as caught:
        await client.get_notifications()
    assert len(service.requests) == 3 and len(sleeps) == 2 and caught.value.status == 500


async def test_reads_retry_on_connection_errors_and_timeouts(connect):
    client, service = connect(httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), {"accounts": [ACCOUNT]})
    assert len(await client.accounts()) == 1
    assert len(service.requests) == 3


async def test_unreachable_after_retries(connect):
    client, service = connect(httpx.ConnectError("refused"), retry=RetryPolicy(attempts=2))
    with pytest.raises(UnreachableError, match="connection failed"):
        await client.accounts()
    assert len(service.requests) == 2


async def test_backoff_is_capped_and_jittered_downwards():
    policy = RetryPolicy(attempts=10, base_delay=1, max_delay=8, jitter=0.5)
    assert [policy.delay(n, None, lambda: 0.0) for n in range(1, 7)] == [1, 2, 4, 8, 8, 8]
    assert policy.delay(3, None, lambda: 1.0) == 2.0  # jitter shortens, never lengthens past the cap
    assert policy.delay(10, None, lambda: 0.0) is None  # the last attempt is final


async def test_retry_after_is_honoured(connect, sleeps):
    client, service = connect(httpx.Response(429, headers={"Retry-After": "3"}), ORDER)
    await client.get_order("req-1")
    assert sleeps == [pytest.approx(3.0, abs=0.5)] and len(service.requests) == 2  # the limiter waits out the hold


async def test_a_retry_after_beyond_the_cap_is_not_waited_for(connect, sleeps):
    client, service = connect(httpx.Response(429, headers={"Retry-After": "3600"}), ORDER)
    with pytest.raises(RateLimitedError) as caught:
        await client.get_order("req-1")
    assert caught.value.retry_after == 3600 and sleeps == [] and len(service.requests) == 1


def test_parse_retry_after():
    assert parse_retry_after("2.5") == 2.5
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


async def test_redeem_retries_on_429_and_connection_failure_with_the_same_request(connect, sleeps):
    client, service = connect(httpx.Response(429), httpx.ConnectError("reset"), httpx.Response(202, json=REDEEMED))
    result = await client.redeem_payout(CARD_CODE, PAYPAL_ANN)
    assert len(service.requests) == 3 and result.transaction_id == "tx-1"
    # Every attempt is the same redeem of the same weblink: the service answers
    # a repeat with the existing payout (spec rule 6), so no second payout.
    assert {(r.url.raw_path, r.content) for r in service.requests} == {
        (service.last.url.raw_path, service.last.content)
    }


@pytest.mark.parametrize(
    "lost", [httpx.ReadError("reset"), httpx.ReadTimeout("slow"), httpx.RemoteProtocolError("closed")], ids=type
)
async def test_redeem_sent_then_lost_is_not_re_sent_blindly(connect, lost):
    # The payout may exist: the caller must ask for its status before any retry (issue 7).
    client, service = connect(lost, httpx.Response(202, json=REDEEMED))
    with pytest.raises(UnreachableError, match="outcome is unknown") as caught:
        await client.redeem_payout(CARD_CODE, PAYPAL_ANN)
    assert len(service.requests) == 1
    assert "before sending it again" in caught.value.hint


async def test_a_read_lost_in_flight_is_retried(connect, sleeps):
    client, service = connect(httpx.ReadError("reset"), httpx.Response(200, json={"accounts": []}))
    assert await client.accounts() == []
    assert len(service.requests) == 2


async def test_redeem_does_not_retry_a_400_or_a_5xx(connect):
    client, service = connect(httpx.Response(400, json="Failed to redeem weblink"), REDEEMED)
    with pytest.raises(RefusedError, match=r"^Failed to redeem weblink$"):
        await client.redeem_payout(CARD_CODE, PAYPAL_ANN)
    assert len(service.requests) == 1
    client, service = connect(httpx.Response(503), REDEEMED)
    with pytest.raises(ServerError):
        await client.redeem_payout(CARD_CODE, PAYPAL_ANN)
    assert len(service.requests) == 1


async def test_place_order_retries_only_with_the_same_request_id(connect):
    client, service = connect(httpx.ReadTimeout("lost"), httpx.Response(503), httpx.Response(200, json=REQ))
    assert await client.place_order(PlaceOrder(REQ, 1001, [OrderLine(501, 1, 25)])) == REQ
    bodies = [json.loads(request.content) for request in service.requests]
    assert len(bodies) == 3 and all(body == bodies[0] for body in bodies)
    assert bodies[0]["RequestId"] == REQ


async def test_timeouts_are_configurable_and_reported(connect):
    client, _ = connect(httpx.ConnectTimeout("slow"), retry=RetryPolicy(attempts=1), timeout=0.25)
    assert client._http.timeout.read == 0.25
    with pytest.raises(UnreachableError, match="timed out") as caught:
        await client.accounts()
    assert "base URL" in caught.value.hint


# --- nothing secret in repr or messages -------------------------------------------------


async def test_the_secret_is_in_no_repr_or_error(connect):
    client, _ = connect(httpx.Response(401))
    assert SECRET not in repr(client) and SECRET not in repr(vars(client))
    with pytest.raises(AuthenticationError) as caught:
        await client.accounts()
    assert SECRET not in str(caught.value) + repr(caught.value)
    assert "credentials" in caught.value.hint


def test_card_codes_pins_and_recipients_stay_out_of_reprs():
    from tui.api.models import Card, NotificationConfig

    card = Card.model_validate({"id": 1, "cardCode": "CODE-9999-XYZ", "pin": "4321", "status": "Sold"})
    request = RedeemRequest("Venmo", recipient_handle="@ann_smith")
    config = NotificationConfig.model_validate(NOTIFICATIONS)
    text = repr(card) + str(card) + repr(request) + repr(config)
    for secret in ("CODE-9999-XYZ", "4321", "@ann_smith", "k-123"):
        assert secret not in text


@pytest.mark.parametrize(
    ("base_url", "verified"),
    [
        ("https://api.example.test", True),
        ("HTTPS://api.example.test/base", True),
        ("http://127.0.0.1:8080", False),  # plain HTTP: no TLS to verify, no CA bundle to build
    ],
)
def test_tls_is_verified_for_every_https_service(base_url, verified):
    from tui.api.client import tls_verify

    assert tls_verify(base_url) is verified
