"""The simulator over real HTTP with plain httpx: wire JSON against SPEC.md.

Uses no client code (DESIGN rule 3); the spec's texts come from
tests/spec_cases.py, the table the client's tests read too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
import spec_cases as spec

from tui.simulator import DEMO_CREDENTIALS, TIMING_PRESETS, FaultSpec, SimulatorServer, SimulatorSettings

QUICK = TIMING_PRESETS["fast"].replace(
    step_seconds=0.25,
    slow_seconds=0.75,
    pause_seconds=0.75,
    redeem_hold_seconds=0.2,
    payout_step_seconds=0.25,
    callback_backoff_seconds=0.05,
    callback_attempts=4,
    callback_timeout_seconds=1.0,
)
ACCOUNTS = "/api/integration/v1.0/accounts"
CATALOG_V1 = "/api/integration/v1.0/catalog"
CATALOG_V2 = "/api/integration/v2.0/catalog"
CHECKOUT = "/api/integration/v1.0/orders/checkout"
ORDER = "/api/integration/v1.0/orders/"
NOTIFICATION = "/api/Integration/v1/notification"
REDEEM = "/api/Integration/v2/payout/redeem/"
STATUS = "/api/Integration/v2/payout/status/"
PAYOUT_PRODUCT, SLOW_PRODUCT, FIXED_25, RANGE_USD = 201, 301, 101, 102
USD_ACCOUNT = 1001
DROP_SEED = 6  # with "drop=0.5", this seed drops the first two redeems of the test's weblink


@pytest.fixture(scope="module")
def quick():
    """A server of its own with short timings, for everything that waits."""
    with SimulatorServer(
        SimulatorSettings(timing=QUICK, limits=None)
    ) as server:  # shared by the module: no limits (conftest, sim)
        yield server


def http(server: SimulatorServer, name: str = "acme-sandbox") -> httpx.Client:
    credential = next(c for c in DEMO_CREDENTIALS if c.name == name)
    return httpx.Client(base_url=server.base_url, auth=credential.auth, timeout=10)


def place(
    client: httpx.Client,
    product: int,
    value: float,
    quantity: int = 1,
    account: int = USD_ACCOUNT,
    request_id: str | None = None,
) -> httpx.Response:
    body = {
        "RequestId": request_id or str(uuid.uuid4()),
        "AccountId": account,
        "Products": [{"ProductId": product, "Quantity": quantity, "Value": value}],
    }
    return client.post(CHECKOUT, json=body)


def placed(client: httpx.Client, *lines: tuple[int, float, int], account: int = USD_ACCOUNT) -> str:
    request_id = str(uuid.uuid4())
    body = {
        "RequestId": request_id,
        "AccountId": account,
        "Products": [{"ProductId": p, "Value": v, "Quantity": q} for p, v, q in lines],
    }
    response = client.post(CHECKOUT, json=body)
    assert response.status_code == 200, response.text
    assert response.json() == request_id
    return request_id


def wait_for(read: Callable[[], dict], done: Callable[[dict], bool], timeout: float = 8.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.03)


def final_order(client: httpx.Client, request_id: str) -> dict:
    return wait_for(
        lambda: client.get(ORDER + request_id).json(), lambda o: spec.ORDER_STATUS_FINAL.get(o["status"], False)
    )


def statuses_seen(read: Callable[[], str], stop: Callable[[str], bool], timeout: float = 8.0) -> list[str]:
    """The distinct statuses observed in order, polling until `stop`."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = read()
        if not seen or seen[-1] != status:
            seen.append(status)
        if stop(status):
            break
        time.sleep(0.03)
    return seen


def payout_token(client: httpx.Client, value: float = 10.0) -> str:
    """A fresh weblink token of a Sold payout card (raw, with %3D padding)."""
    order = final_order(client, placed(client, (PAYOUT_PRODUCT, value, 1)))
    card = order["items"][0]["cards"][0]
    assert card["status"] == "Sold"
    prefix = "https://payouts.sim.giftdesk.test/redeem/"
    assert card["cardCode"].startswith(prefix)
    return card["cardCode"][len(prefix) :]


def redeem(client: httpx.Client, token: str, **body) -> httpx.Response:
    return client.post(REDEEM + token, json=body)


# --- import boundary ----------------------------------------------------------


def test_simulator_imports_neither_textual_nor_the_client():
    probe = (
        "import sys, tui.simulator, tui.commands.sim; "
        "bad = [m for m in sys.modules if m.split('.')[0] == 'textual' or m.startswith('tui.api')]; "
        "print(bad)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# --- authentication and paths -------------------------------------------------

ENDPOINTS = [
    ("GET", ACCOUNTS),
    ("GET", CATALOG_V1),
    ("GET", CATALOG_V2),
    ("POST", CHECKOUT),
    ("GET", ORDER + "x"),
    ("GET", NOTIFICATION),
    ("POST", NOTIFICATION),
    ("POST", REDEEM + "abc%3D"),
    ("GET", STATUS + "abc%3D"),
]


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
@pytest.mark.parametrize("auth", [None, ("acme-sandbox-client", "wrong"), ("nobody", "sim-acme-sandbox-secret")])
def test_every_endpoint_wants_basic_auth(sim, method, path, auth):
    response = httpx.request(method, sim.base_url + path, auth=auth, json={})
    assert response.status_code == 401
    assert response.content == b""


def test_a_malformed_authorization_header_is_401(sim):
    for header in ("Basic !!!", "Bearer abc", "Basic " + "YWJj"):
        response = httpx.get(sim.base_url + ACCOUNTS, headers={"Authorization": header})
        assert response.status_code == 401


@pytest.mark.parametrize(
    "path",
    [
        "/api/Integration/v1.0/accounts",
        "/api/integration/v2.0/Catalog",
        "/api/integration/v1/notification",
        "/api/INTEGRATION/V2.0/CATALOG",
    ],
)
def test_paths_match_in_any_case_and_v1_is_v1_0_as_the_provider_does(sim, path):
    # The provider is an ASP.NET service (DESIGN.md "What the real provider sends"); it was 404 here before.
    with http(sim) as client:
        assert client.get(path).status_code == 200


# --- accounts -----------------------------------------------------------------


def test_accounts_per_credential(sim):
    ids = {}
    for credential in DEMO_CREDENTIALS:
        if not credential.may_use("accounts"):
            continue
        with http(sim, credential.name) as client:
            accounts = client.get(ACCOUNTS).json()["accounts"]
        assert all(set(a) == {"id", "currency", "balance", "isActive", "sandboxMode"} for a in accounts)
        assert any(not a["isActive"] for a in accounts)
        assert len({a["currency"] for a in accounts}) >= 2
        ids[credential.name] = {a["id"] for a in accounts}
        wanted_mode = credential.environment == "sandbox"
        mismatched = [a["id"] for a in accounts if a["sandboxMode"] != wanted_mode]
        assert mismatched == ([1090] if credential.name == "acme-sandbox" else [])
    assert not ids["acme-sandbox"] & ids["acme-production"]
    assert not ids["acme-sandbox"] & ids["other-sandbox"]


# --- catalog ------------------------------------------------------------------


def catalog(sim, **params) -> httpx.Response:
    with http(sim) as client:
        return client.get(CATALOG_V2, params=params)


def test_catalog_page_defaults(sim):
    page = catalog(sim).json()
    assert (page["pageIndex"], page["pageSize"], page["count"]) == (0, 100, 300)
    assert len(page["items"]) == 100
    brand = page["items"][0]
    assert set(brand) == {
        "internalId",
        "name",
        "countryCode",
        "currencyCode",
        "description",
        "disclaimer",
        "redemptionInstructions",
        "terms",
        "logoUrl",
        "modifiedDate",
        "products",
        "categories",
    }
    assert isinstance(brand["internalId"], str)
    product = brand["products"][0]
    assert set(product) == {"id", "name", "minFaceValue", "maxFaceValue", "count", "price", "modifiedDate"}
    assert set(product["price"]) == {"min", "max", "currencyCode"}


def test_catalog_paging_is_zero_based_and_count_is_all_matches(sim):
    first = catalog(sim, PageSize=7, PageIndex=0).json()
    second = catalog(sim, PageSize=7, PageIndex=1).json()
    assert first["count"] == second["count"] == 300
    assert len(first["items"]) == len(second["items"]) == 7
    assert first["items"][0]["internalId"] == "1"
    assert not {b["internalId"] for b in first["items"]} & {b["internalId"] for b in second["items"]}
    last = catalog(sim, PageSize=7, PageIndex=42).json()
    assert len(last["items"]) == 300 - 42 * 7
    assert catalog(sim, PageSize=7, PageIndex=999).json()["items"] == []


def all_brands(sim, **params) -> list[dict]:
    page = catalog(sim, PageSize=1000, **params).json()
    assert page["count"] == len(page["items"])
    return page["items"]


def test_catalog_filters(sim):
    gb = all_brands(sim, CountryCode="GB")
    assert gb and all(b["countryCode"] == "GB" for b in gb)
    eur = all_brands(sim, CurrencyCode="EUR")
    assert eur and all(b["currencyCode"] == "EUR" for b in eur)
    both = all_brands(sim, CountryCode="DE", CurrencyCode="EUR")
    assert both and all((b["countryCode"], b["currencyCode"]) == ("DE", "EUR") for b in both)
    named = all_brands(sim, Name="aCmE bO")
    assert [b["name"] for b in named] == ["Acme Books"]
    assert [b["internalId"] for b in all_brands(sim, BrandId=4)] == ["4"]
    by_product = all_brands(sim, ProductId=402)
    assert [(b["internalId"], [p["id"] for p in b["products"]]) for b in by_product] == [("4", [402])]
    assert all_brands(sim, ProductId=999_999) == []


def test_catalog_modified_date_keeps_only_products_modified_after(sim):
    everything = all_brands(sim)
    cut = "2023-06-30"
    recent = all_brands(sim, ModifiedDate=cut)
    assert 0 < len(recent) < len(everything)
    products = [p for b in recent for p in b["products"]]
    assert products and all(p["modifiedDate"] > cut for p in products)
    expected = sum(1 for b in everything for p in b["products"] if p["modifiedDate"] > cut)
    assert len(products) == expected


def test_catalog_target_currency_converts_prices_only(sim):
    plain = all_brands(sim, BrandId=5)[0]["products"][0]
    converted = all_brands(sim, BrandId=5, TargetCurrency="USD")[0]["products"][0]
    assert plain["price"] == {"min": 20.0, "max": 20.0, "currencyCode": "GBP"}
    assert converted["price"] == {"min": round(20 / 0.79, 2), "max": round(20 / 0.79, 2), "currencyCode": "USD"}
    assert converted["minFaceValue"] == plain["minFaceValue"] == 20.0


@pytest.mark.parametrize(
    "params",
    [
        {"PageSize": "0"},
        {"PageIndex": "-1"},
        {"PageSize": "x"},
        {"ModifiedDate": "yesterday"},
        {"TargetCurrency": "XXX"},
    ],
)
def test_catalog_rejects_bad_parameters(sim, params):
    response = catalog(sim, **params)
    assert response.status_code == 400
    assert isinstance(response.json()["message"], str)


def test_catalog_holds_every_kind_of_product(sim):
    brands = all_brands(sim)
    products = [p for b in brands for p in b["products"]]
    assert any(p["minFaceValue"] == p["maxFaceValue"] for p in products)
    assert any(p["minFaceValue"] < p["maxFaceValue"] for p in products)
    counts = {p["count"] if p["count"] in (None, 0) else "N" for p in products}
    assert counts == {None, 0, "N"}
    texts = {b["description"] for b in brands}
    assert None in texts and "" in texts
    assert any(b["categories"] for b in brands) and any(not b["categories"] for b in brands)
    assert any("Payout" in p["name"] for p in products) and any("Slow" in p["name"] for p in products)
    assert len({b["countryCode"] for b in brands}) >= 5 and len({b["currencyCode"] for b in brands}) >= 5
    assert 900 <= len(products) <= 1600


def test_catalog_is_deterministic_under_the_seed():
    from tui.simulator.catalog import generate

    assert generate(7, 200) == generate(7, 200)
    assert generate(7, 200) != generate(8, 200)


def test_catalog_v1_is_every_brand_unpaged(sim):
    with http(sim) as client:
        brands = client.get(CATALOG_V1).json()["brands"]
    assert len(brands) == 300
    # Version 1 brands are version 2's without `internalId` (the provider's dialect).
    assert brands[:100] == [{k: v for k, v in b.items() if k != "internalId"} for b in catalog(sim).json()["items"]]
    assert not any("internalId" in brand for brand in brands)


# --- place order --------------------------------------------------------------


def test_place_order_returns_the_request_id_and_debits_the_balance(sim):
    with http(sim, "other-sandbox") as client:
        before = client.get(ACCOUNTS).json()["accounts"][0]["balance"]
        request_id = placed(client, (FIXED_25, 25, 2), account=3001)
        after = client.get(ACCOUNTS).json()["accounts"][0]["balance"]
        assert before - after == 50.0
        order = client.get(ORDER + request_id).json()
    assert order["total"] == 50.0 and order["currency"] == "USD" and order["orderType"] == "Sandbox"


def test_an_order_in_another_currency_is_charged_at_the_fixed_rate(sim):
    with http(sim) as client:
        order = client.get(ORDER + placed(client, (501, 20, 1))).json()  # GBP product, USD account
    assert order["total"] == round(20 / 0.79, 2) and order["currency"] == "USD"
    assert order["items"][0]["currencyCode"] == "GBP" and order["items"][0]["countryCode"] == "GB"


def test_production_orders_say_so(sim):
    with http(sim, "acme-production") as client:
        order = client.get(ORDER + placed(client, (FIXED_25, 25, 1), account=2001)).json()
    assert order["orderType"] == "Production"


CHECKOUT_REFUSALS = [
    ("WrongAccount", dict(account=2001)),  # a production account from sandbox
    ("WrongAccount", dict(account=1004)),  # inactive
    ("WrongAccount", dict(account=1090)),  # listed, but not a sandbox account
    ("WrongAccount", dict(account=3001)),  # another client's
    ("InsufficientBalance", dict(account=1003, product=RANGE_USD, value=500)),
    ("InvalidProductIds", dict(product=424242)),
    ("InvalidDenomination", dict(product=FIXED_25, value=20)),
    ("InvalidDenomination", dict(product=RANGE_USD, value=500.01)),
    ("InvalidDenomination", dict(product=RANGE_USD, value=4.99)),
    ("InvalidDenomination", dict(product=RANGE_USD, value=10.005)),
    ("ProductIsOutOfStock", dict(product=401, value=50)),
    ("ProductIsOutOfStock", dict(product=402, value=20, quantity=4)),
    ("CardsLimitExceeded", dict(product=FIXED_25, value=25, quantity=501)),
    ("InvalidQuantity", dict(product=FIXED_25, value=25, quantity=0)),
]


def test_the_refusals_use_designs_reason_codes_and_two_words_of_the_simulators_own():
    answered = {reason for reason, _ in CHECKOUT_REFUSALS} | {"OrderAlreadyExists", "OrderNotFound", "NoProducts"}
    assert answered == {*spec.REASON_CODES, "InvalidQuantity"} - set(spec.REASON_CODES_NOT_SIMULATED)


def test_an_order_of_no_products_is_no_products_as_the_provider_answers(sim):
    with http(sim) as client:
        body = {"RequestId": str(uuid.uuid4()), "AccountId": 1001, "Products": []}
        response = client.post(CHECKOUT, json=body)
    assert (response.status_code, response.json()) == (400, {"message": "NoProducts"})


@pytest.mark.parametrize(("reason", "order"), CHECKOUT_REFUSALS)
def test_place_order_refusals(sim, reason, order):
    with http(sim) as client:
        response = place(
            client,
            order.get("product", FIXED_25),
            order.get("value", 25),
            order.get("quantity", 1),
            order.get("account", USD_ACCOUNT),
        )
    assert response.status_code == 400
    assert response.json() == {"message": reason}


def test_a_reused_request_id_is_refused(sim):
    with http(sim) as client:
        request_id = placed(client, (FIXED_25, 25, 1))
        response = place(client, FIXED_25, 25, request_id=request_id)
    assert (response.status_code, response.json()) == (400, {"message": "OrderAlreadyExists"})


@pytest.mark.parametrize(
    "request_id", ["not-a-guid", "3f2b8c1e5d4a4e0b9c7d1a2b3c4d5e6f", "{3f2b8c1e-5d4a-4e0b-9c7d-1a2b3c4d5e6f}"]
)
def test_a_request_id_that_is_not_a_guid_is_refused_with_a_reason_code(sim, request_id):
    with http(sim) as client:
        response = place(client, FIXED_25, 25, request_id=request_id)
        assert (response.status_code, response.json()) == (400, {"message": "InvalidRequestId"})
        assert client.get(ORDER + request_id).json() == {"message": "OrderNotFound"}  # nothing was placed


@pytest.mark.parametrize("body", [None, [], {"AccountId": 1001, "Products": []}, {"RequestId": "x"}])
def test_a_malformed_checkout_body_is_refused(sim, body):
    with http(sim) as client:
        response = client.post(CHECKOUT, content=json.dumps(body))
    assert response.status_code == 400 and response.json()["message"] in ("InvalidRequest", "InvalidProductIds")


def test_unknown_and_foreign_orders_are_not_found(sim):
    """The provider's way: 400 with the reason code OrderNotFound, not 404."""
    with http(sim) as client:
        request_id = placed(client, (FIXED_25, 25, 1))
        unknown = client.get(ORDER + str(uuid.uuid4()))
        assert (unknown.status_code, unknown.json()) == (400, {"message": "OrderNotFound"})
    with http(sim, "other-sandbox") as other:
        foreign = other.get(ORDER + request_id)
        assert (foreign.status_code, foreign.json()) == (400, {"message": "OrderNotFound"})


def test_a_credential_without_access_gets_403_with_an_error_text(sim):
    """acme-catalog-only: valid credentials that may read the catalogs and nothing else."""
    with http(sim, "acme-catalog-only") as limited:
        assert limited.get(CATALOG_V2).status_code == 200 and limited.get(CATALOG_V1).status_code == 200
        for method, path in (
            ("GET", ACCOUNTS),
            ("GET", ORDER + str(uuid.uuid4())),
            ("POST", CHECKOUT),
            ("GET", NOTIFICATION),
            ("GET", "/api/integration/v1.0/transactions"),
            ("GET", STATUS + "abc%3D"),
        ):
            response = limited.request(method, path)
            assert response.status_code == 403, path
            assert isinstance(response.json()["error"], str) and response.json()["error"]


# --- fulfilment: every order and card status ------------------------------------


def order_status(client, request_id) -> str:
    return client.get(ORDER + request_id).json()["status"]


def order_and_card(client, request_id) -> str:
    order = client.get(ORDER + request_id).json()
    return f"{order['status']}/{order['items'][0]['cards'][0]['status']}"


def test_order_moves_created_processing_succeeded(quick):
    with http(quick) as client:
        request_id = placed(client, (FIXED_25, 25, 1))
        seen = statuses_seen(lambda: order_and_card(client, request_id), lambda s: s == "Succeeded/Sold")
        order = client.get(ORDER + request_id).json()
    assert seen == ["Created/Created", "Processing/Processing", "Succeeded/Sold"]
    card = order["items"][0]["cards"][0]
    assert set(card) == {"id", "serialNumber", "cardCode", "pin", "expirationDate", "status"}
    assert card["cardCode"] and order["errorMessage"] is None
    assert set(order["items"][0]) == {
        "productId",
        "productFaceValue",
        "quantity",
        "countryCode",
        "currencyCode",
        "brandCode",
        "pictureUrl",
        "cards",
    }


def test_cards_ending_in_13_fail(quick):
    with http(quick) as client:
        failed = final_order(client, placed(client, (RANGE_USD, 10.13, 2)))
        partial = final_order(client, placed(client, (RANGE_USD, 10.13, 1), (RANGE_USD, 10, 1)))
    assert failed["status"] == "Failed" and failed["errorMessage"]
    assert [c["status"] for c in failed["items"][0]["cards"]] == ["Failed", "Failed"]
    assert partial["status"] == "PartialFailed" and partial["errorMessage"]
    assert [item["cards"][0]["status"] for item in partial["items"]] == ["Failed", "Sold"]


def test_a_card_ending_in_14_is_paused_and_the_order_pending_then_sold(quick):
    with http(quick) as client:
        request_id = placed(client, (RANGE_USD, 10.14, 1))
        seen = statuses_seen(lambda: order_and_card(client, request_id), lambda s: s == "Succeeded/Sold")
    assert seen == ["Created/Created", "Processing/Processing", "Pending/Paused", "Succeeded/Sold"]


def test_a_slow_product_keeps_the_order_pending_first(quick):
    with http(quick) as client:
        request_id = placed(client, (SLOW_PRODUCT, 20, 1))
        seen = statuses_seen(lambda: order_and_card(client, request_id), lambda s: s == "Succeeded/Sold")
    assert seen == ["Created/Created", "Pending/Created", "Processing/Processing", "Succeeded/Sold"]


# --- notifications and callbacks ---------------------------------------------


class Receiver:
    """A tiny callback receiver on loopback; answers the queued codes, then 200."""

    def __init__(self):
        self.received: list[tuple[str, dict, float]] = []
        self.codes: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.received.append((self.path, body, time.monotonic()))
                self.send_response(receiver.codes.pop(0) if receiver.codes else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_notification_config_roundtrip_per_client(sim_factory):
    server = sim_factory(timing=QUICK)
    empty = {"notificationUrl": None, "notificationUrlSandbox": None, "secretKey": None}  # never set: nulls
    config = {
        "notificationUrl": "https://hooks.example.test/live",
        "notificationUrlSandbox": "https://hooks.example.test/sb",
        "secretKey": "s3cret",
    }
    with http(server) as acme, http(server, "acme-production") as acme_live, http(server, "other-sandbox") as other:
        assert acme.get(NOTIFICATION).json() == empty
        assert acme.post(NOTIFICATION, json=config).json() == config
        assert acme.get(NOTIFICATION).json() == config
        assert acme_live.get(NOTIFICATION).json() == config  # one configuration per client
        assert other.get(NOTIFICATION).json() == empty
        bad = acme.post(NOTIFICATION, json={"notificationUrl": 5})
        assert (bad.status_code, bad.json()) == (400, {"message": "InvalidRequest"})
        only_one = {"notificationUrlSandbox": "https://hooks.example.test/sb"}  # the others never set: null
        assert acme.post(NOTIFICATION, json=only_one).json() == {**empty, **only_one}


def configure(client, receiver, secret="s3cret", live="/live", sandbox="/sandbox"):
    client.post(
        NOTIFICATION,
        json={
            "notificationUrl": receiver.url + live if live is not None else "",
            "notificationUrlSandbox": receiver.url + sandbox,
            "secretKey": secret,
        },
    )


def test_callbacks_go_to_the_url_of_the_orders_environment(sim_factory, receiver):
    server = sim_factory(timing=QUICK)
    with http(server) as sandbox, http(server, "acme-production") as live:
        configure(sandbox, receiver)
        sandbox_id = placed(sandbox, (RANGE_USD, 10.13, 1), (RANGE_USD, 10, 2))
        live_id = placed(live, (FIXED_25, 25, 1), account=2001)
        order = final_order(sandbox, sandbox_id)
        wait_for(lambda: {"n": len(receiver.received)}, lambda r: r["n"] >= 2)
    by_path = {path: body for path, body, _ in receiver.received}
    assert set(by_path) == {"/sandbox", "/live"}
    callback = by_path["/sandbox"]
    assert set(callback) == {"orderId", "status", "totalCards", "createdOn", "completedOn", "secretKey", "requestId"}
    assert callback["requestId"] == sandbox_id and callback["orderId"] == order["orderId"]
    assert callback["status"].lower() == "partialfailed" and callback["totalCards"] == 3
    assert callback["secretKey"] == "s3cret" and callback["createdOn"] == order["createdDate"]
    assert by_path["/live"]["requestId"] == live_id and by_path["/live"]["status"].lower() == "succeeded"


def test_no_callback_when_the_notification_url_is_empty(sim_factory, receiver):
    server = sim_factory(timing=QUICK)
    with http(server) as client:
        configure(client, receiver, live=None)  # sandbox URL set, notificationUrl empty: disabled
        final_order(client, placed(client, (FIXED_25, 25, 1)))
        time.sleep(0.3)
    assert receiver.received == []
    assert server.callback_attempts() == []


def test_callbacks_retry_with_backoff_until_2xx(sim_factory, receiver):
    server = sim_factory(timing=QUICK)
    receiver.codes = [500, 503]
    with http(server) as client:
        configure(client, receiver)
        request_id = placed(client, (FIXED_25, 25, 1))
        wait_for(lambda: {"n": len(receiver.received)}, lambda r: r["n"] >= 3)
        time.sleep(0.3)
    times = [at for _, _, at in receiver.received]
    assert len(times) == 3  # stops after the first 2xx
    backoff = QUICK.callback_backoff_seconds
    assert times[1] - times[0] >= backoff * 0.9 and times[2] - times[1] >= 2 * backoff * 0.9  # doubling
    assert [a["outcome"] for a in server.callback_attempts(request_id)] == [500, 503, 200]


# --- payouts: validation (the shared table) ----------------------------------


@pytest.mark.parametrize("case", spec.PAYOUT_CASES, ids=lambda c: c.name)
def test_redeem_validation_follows_the_shared_table(sim, case):
    # An unknown weblink: validation comes first, so a valid body reaches the lookup and fails there.
    with http(sim) as client:
        response = (
            client.post(REDEEM + "unknownToken%3D", json=case.body)
            if case.body is not None
            else client.post(REDEEM + "unknownToken%3D")
        )
    assert response.status_code == 400
    assert response.json() == (case.error or spec.REDEEM_FAILED)


# --- payouts: every row of the Errors table ----------------------------------

EMAIL = {"wallet": spec.PAYPAL, "recipientEmail": "ann@example.com"}


def error_scenario(server, row) -> httpx.Response:
    status, text, _ = row
    with http(server) as client:
        # Validation comes before the weblink lookup, so those rows need no real weblink.
        needs_link = status == 429 or text in (spec.REDEEM_FAILED, spec.RECIPIENT_MISMATCH)
        token = payout_token(client) if needs_link else "unknownToken%3D"
        if status == 401:
            return httpx.post(server.base_url + REDEEM + token, json=EMAIL)
        if status == 429:
            with ThreadPoolExecutor(2) as pool:
                first = pool.submit(redeem, client, token, **EMAIL)
                time.sleep(0.05)
                second = pool.submit(redeem, client, token, **EMAIL)
                return second.result() if first.result().status_code == 200 else first.result()
        bodies = {
            spec.BODY_REQUIRED: None,
            spec.WALLET_REQUIRED: {"recipientEmail": "ann@example.com"},
            spec.EXACTLY_ONE_RECIPIENT: {"wallet": spec.VENMO},
            spec.PAYPAL_EMAIL_ONLY: {"wallet": spec.PAYPAL, "recipientPhone": "+15551234567"},
            spec.INVALID_EMAIL: {"wallet": spec.PAYPAL, "recipientEmail": "ann"},
            spec.INVALID_PHONE: {"wallet": spec.VENMO, "recipientPhone": "12"},
            spec.INVALID_HANDLE: {"wallet": spec.VENMO, "recipientHandle": "@a"},
        }
        if text in bodies:
            body = bodies[text]
            return client.post(REDEEM + token) if body is None else client.post(REDEEM + token, json=body)
        if text == spec.WEBLINK_DISABLED:
            return redeem(client, payout_token(client, 10.21), **EMAIL)
        if text == spec.WEBLINK_EXPIRED:
            return redeem(client, payout_token(client, 10.22), **EMAIL)
        if text == spec.REDEEM_FAILED:
            return redeem(client, token, wallet=spec.PAYPAL, recipientEmail="rejected@example.com")
        if text == spec.RECIPIENT_MISMATCH:
            assert redeem(client, token, **EMAIL).status_code == 200
            return redeem(client, token, wallet=spec.PAYPAL, recipientEmail="bob@example.com")
    raise AssertionError(f"no scenario for {row}")


@pytest.mark.parametrize("row", spec.REDEEM_ERRORS, ids=lambda r: r[2])
def test_every_redeem_error_row_is_reachable(quick, row):
    status, text, _ = row
    response = error_scenario(quick, row)
    assert response.status_code == status
    if text is None:
        assert response.content == b""
    else:
        assert response.json() == text


# --- payouts: flows, ownership, idempotency, concurrency, raw paths -----------

FLOWS = [
    ("PayPal default", {"wallet": "PayPal", "recipientEmail": "ann@example.com"}, 200, ["Completed"]),
    ("Venmo default", {"wallet": "Venmo", "recipientHandle": "@ann_smith"}, 202, ["Pending", "Completed"]),
    ("processing", {"wallet": "PayPal", "recipientEmail": "processing@example.com"}, 202, ["Pending", "Completed"]),
    ("processing phone", {"wallet": "Venmo", "recipientPhone": "+15550000005"}, 202, ["Pending", "Completed"]),
    ("unclaimed", {"wallet": "PayPal", "recipientEmail": "unclaimed.ann@example.com"}, 202, ["Pending", "Unclaimed"]),
    ("unclaimed phone", {"wallet": "Venmo", "recipientPhone": "5550000001"}, 202, ["Pending", "Unclaimed"]),
    ("failed", {"wallet": "Venmo", "recipientHandle": "@failed_ann"}, 202, ["Pending", "Failed"]),
    ("returned", {"wallet": "Venmo", "recipientPhone": "+15550000003"}, 202, ["Pending", "Unclaimed", "Returned"]),
    (
        "reversed",
        {"wallet": "PayPal", "recipientEmail": "reversed@example.com"},
        202,
        ["Pending", "Completed", "Reversed"],
    ),
]


@pytest.mark.parametrize(("name", "body", "code", "expected"), FLOWS, ids=[f[0] for f in FLOWS])
def test_payout_flows_by_magic_recipient(quick, name, body, code, expected):
    with http(quick) as client:
        token = payout_token(client)
        response = redeem(client, token, **body)
        assert response.status_code == code
        result = response.json()
        assert set(result) == {"transactionId", "payoutBatchId", "isProcessing"}
        assert result["isProcessing"] is (code == 202)
        read = lambda: client.get(STATUS + token).json()["status"]  # noqa: E731
        assert statuses_seen(read, lambda s: s == expected[-1]) == expected
        status = client.get(STATUS + token).json()
    assert set(status) == {"status", "transactionId", "payoutBatchId", "updatedAt"}
    assert (status["transactionId"], status["payoutBatchId"]) == (result["transactionId"], result["payoutBatchId"])


def test_a_stuck_payout_stays_pending(quick):
    with http(quick) as client:
        token = payout_token(client)
        assert redeem(client, token, wallet="Venmo", recipientPhone="+15550000009").status_code == 202
        time.sleep(QUICK.payout_step_seconds * 3)
        assert client.get(STATUS + token).json()["status"] == "Pending"


def test_repeat_returns_the_same_ids_and_records_one_payout(quick):
    with http(quick) as client:
        token = payout_token(client)
        body = {"wallet": "Venmo", "recipientPhone": "+15551234567"}
        first, again = redeem(client, token, **body), redeem(client, token, **body)
        assert first.status_code == 202
        assert {k: again.json()[k] for k in ("transactionId", "payoutBatchId")} == {
            k: first.json()[k] for k in ("transactionId", "payoutBatchId")
        }
        time.sleep(QUICK.payout_step_seconds * 1.5)
        settled = redeem(client, token, **body)
        assert (settled.status_code, settled.json()["isProcessing"]) == (200, False)
        mismatch = redeem(client, token, wallet="Venmo", recipientPhone="+15559999999")
        assert (mismatch.status_code, mismatch.json()) == (400, spec.RECIPIENT_MISMATCH)
    assert len(quick.payouts_for(token)) == 1


def test_another_clients_weblink_fails_generically(quick):
    with http(quick) as client:
        token = payout_token(client)
    for name in ("other-sandbox", "acme-production"):
        with http(quick, name) as other:
            response = redeem(other, token, **EMAIL)
            assert (response.status_code, response.json()) == (400, spec.REDEEM_FAILED)
            assert other.get(STATUS + token).status_code == 404
    assert quick.payouts_for(token) == []


def test_concurrent_redeems_for_one_weblink_get_429(quick):
    with http(quick) as client:
        token = payout_token(client)
        with ThreadPoolExecutor(4) as pool:
            responses = list(pool.map(lambda _: redeem(client, token, **EMAIL), range(4)))
    assert sorted(r.status_code for r in responses) == [200, 429, 429, 429]
    assert len(quick.payouts_for(token)) == 1


def test_weblinks_match_on_the_raw_path(quick):
    with http(quick) as client:
        token = payout_token(client)
        assert token.endswith("%3D")
        for wrong in (token.replace("%3D", "="), token.replace("%3D", "%253D")):
            response = redeem(client, wrong, **EMAIL)
            assert (response.status_code, response.json()) == (400, spec.REDEEM_FAILED)
        assert quick.payouts_for(token) == []
        assert redeem(client, token, **EMAIL).status_code == 200
        assert client.get(STATUS + token).json()["status"] == "Completed"
        for wrong in (token.replace("%3D", "="), token.replace("%3D", "%253D")):
            assert client.get(STATUS + wrong).status_code == 404


def test_tokens_carry_one_or_two_padding_characters(quick):
    with http(quick) as client:
        order = final_order(client, placed(client, (PAYOUT_PRODUCT, 5, 2)))
    codes = [c["cardCode"] for c in order["items"][0]["cards"]]
    assert {code.endswith("%3D%3D") for code in codes} == {True, False}
    assert all(code.endswith("%3D") and "=" not in code for code in codes)


def test_failed_and_paused_payout_cards_cannot_be_redeemed(quick):
    with http(quick) as client:
        failed = final_order(client, placed(client, (PAYOUT_PRODUCT, 10.13, 1)))["items"][0]["cards"][0]
        request_id = placed(client, (PAYOUT_PRODUCT, 10.14, 1))
        paused = wait_for(
            lambda: client.get(ORDER + request_id).json()["items"][0]["cards"][0], lambda c: c["status"] == "Paused"
        )
        for card in (failed, paused):
            token = card["cardCode"].rsplit("/", 1)[1]
            response = redeem(client, token, **EMAIL)
            assert (response.status_code, response.json()) == (400, spec.REDEEM_FAILED)


def test_status_of_a_weblink_without_payout_is_not_found(quick):
    with http(quick) as client:
        token = payout_token(client)
        response = client.get(STATUS + token)
    assert (response.status_code, response.json()) == (404, "Payout not found")


# --- faults -------------------------------------------------------------------


def test_fault_spec_parsing():
    spec_ = FaultSpec.parse("latency=50ms, 5xx=0.1,drop=0.05,429=0.1,retry-after=2")
    assert spec_ == FaultSpec(0.05, 0.1, 0.1, 0.05, 2)
    assert FaultSpec.parse(None) == FaultSpec() and not FaultSpec().active
    for bad in ("boom=1", "5xx=2", "latency=fast"):
        with pytest.raises(ValueError):
            FaultSpec.parse(bad)


def test_faults_are_off_by_default(sim):
    with http(sim) as client:
        assert all(client.get(ACCOUNTS).status_code == 200 for _ in range(20))


def test_injected_5xx_429_and_latency(sim_factory):
    errors = sim_factory(faults="5xx=1")
    throttled = sim_factory(faults="429=1,retry-after=1")
    slow = sim_factory(faults="latency=150ms")
    with http(errors) as client:
        response = client.get(ACCOUNTS)
        assert response.status_code == 503 and isinstance(response.json(), str)
    with http(throttled) as client:
        response = client.get(ACCOUNTS)
        assert (response.status_code, response.content, response.headers["retry-after"]) == (429, b"", "1")
    with http(slow) as client:
        started = time.monotonic()
        assert client.get(ACCOUNTS).status_code == 200
        assert time.monotonic() - started >= 0.15


def test_faults_are_deterministic_under_the_seed(sim_factory):
    def outcomes(seed: int) -> list[int]:
        server = sim_factory(seed=seed, faults="5xx=0.3,429=0.3")
        with http(server) as client:
            return [client.get(ACCOUNTS).status_code for _ in range(30)]

    first = outcomes(5)
    assert first == outcomes(5)
    assert {200, 429, 503} <= set(first)
    assert first != outcomes(6)


def test_a_dropped_redeem_is_recorded_and_the_repeat_returns_it(sim_factory):
    server = sim_factory(timing=QUICK, faults="drop=0.5", seed=DROP_SEED)
    with http(server) as client:

        def survive(call):
            for _ in range(40):
                try:
                    return call()
                except httpx.TransportError:
                    continue
            raise AssertionError("never answered")

        request_id = str(uuid.uuid4())
        first = survive(lambda: place(client, PAYOUT_PRODUCT, 10, request_id=request_id))
        assert first.status_code == 200 or first.json() == {"message": "OrderAlreadyExists"}
        order = wait_for(
            lambda: survive(lambda: client.get(ORDER + request_id)).json(), lambda o: o["status"] == "Succeeded"
        )
        token = order["items"][0]["cards"][0]["cardCode"].rsplit("/", 1)[1]
        drops = 0
        while True:
            try:
                response = redeem(client, token, **EMAIL)
                break
            except httpx.TransportError:
                drops += 1
        recorded = server.payouts_for(token)
    assert len(recorded) == 1
    assert response.json()["transactionId"] == recorded[0]["transactionId"]
    assert drops == 2  # DROP_SEED drops the first two: the payout was recorded all the same


# --- the command --------------------------------------------------------------


def test_giftdesk_sim_prints_paste_able_exports_and_serves():
    process = subprocess.Popen(
        [sys.executable, "-c", "from tui.commands.sim import command; command()", "--port", "0", "--brands", "50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        base_url = process.stdout.readline().split(" on ")[1].split()[0]
        exports: list[str] = []
        while len(exports) < len(DEMO_CREDENTIALS):
            line = process.stdout.readline()
            assert line, "the command ended before printing every credential"
            if line.startswith("export "):
                exports.append(line.strip())
        first = dict(part.split("=", 1) for part in exports[0].removeprefix("export ").split())
        assert first["GIFTDESK_BASE_URL"] == base_url and first["GIFTDESK_ENVIRONMENT"] == "sandbox"
        response = httpx.get(base_url + ACCOUNTS, auth=(first["GIFTDESK_CLIENT_ID"], first["GIFTDESK_CLIENT_SECRET"]))
        assert response.status_code == 200
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0


@pytest.mark.parametrize(
    "path",
    [
        "/api/integration/v1.0/notification",  # as integrators call it
        "/api/Integration/v1/notification",  # SPEC's
        "/API/INTEGRATION/V1.0/NOTIFICATION",
    ],
)
def test_the_notification_path_in_every_spelling(sim, path):
    with http(sim) as client:
        assert client.get(path).status_code == 200


@pytest.mark.parametrize(
    "path",
    ["/api/Integration/v1/orders", "/api/integration/v1/Orders", "/api/INTEGRATION/v1.0/orders"],  # the SDK's first
)
def test_the_orders_report_in_every_spelling(sim, path):
    with http(sim) as client:
        response = client.get(path, params={"startDate": "2026-01-01", "endDate": "2026-01-02"})
    assert response.status_code == 200 and isinstance(response.json(), list)


def test_transactions_and_get_order_in_other_spellings_keep_the_ids_case(sim):
    with http(sim) as client:
        request_id = str(uuid.uuid4()).upper()  # the provider keeps a RequestId as sent
        assert place(client, FIXED_25, 25, request_id=request_id).status_code == 200
        assert client.get(f"/api/Integration/v1/Orders/{request_id}").json()["requestId"] == request_id
        today = datetime.now(UTC).date().isoformat()
        answer = client.get("/api/Integration/v1/transactions", params={"startDate": today, "endDate": today})
        assert answer.status_code == 200 and "clients" in answer.json()
        assert client.get("/api/integration/v1/nothing-here").status_code == 404
