"""The v2.1 catalog (brands, stock, categories, countries, checkout by SKU): ServiceClient against the
simulator over loopback, and the wire details through httpx.MockTransport."""

from __future__ import annotations

import uuid
from decimal import Decimal

import httpx
import pytest

from tui.api.client import ServiceClient
from tui.api.errors import RefusedError
from tui.api.models import BrandsQuery, PlaceOrderBySku, SkuLine

OUT_OF_STOCK_SKU = "SIM-401"  # Scarce Sneakers $50: count 0
SCARCE_SKU = "SIM-402"  # Scarce Sneakers eGift: 3 left, 10-200
BOOKS_CATEGORY = 7


@pytest.fixture
async def client(sim, demo_credentials):
    credential = demo_credentials["acme-sandbox"]
    async with ServiceClient(sim.base_url, credential.client_id, credential.client_secret) as client:
        yield client


async def test_brands_by_category_with_their_sku_status_and_face_values(client):
    page = await client.brands(BrandsQuery(category_id=BOOKS_CATEGORY, page_size=500))
    assert page.items and all(BOOKS_CATEGORY in item.categories for item in page.items)
    books = {item.sku: item for item in page.items}
    assert books["SIM-101"].face_values[0].min == 25 and books["SIM-102"].face_values[0].max == 500
    [sneakers] = (await client.brands(BrandsQuery(sku=OUT_OF_STOCK_SKU))).items
    assert sneakers.status == "TemporaryInactive" and not sneakers.is_live


async def test_stock_of_a_sku_and_face_value(client):
    scarce = await client.stock(SCARCE_SKU, Decimal("20"))
    assert (scarce.quantity, scarce.is_stocked, scarce.price, scarce.currency_code) == (3, True, 20, "USD")
    none_left = await client.stock(OUT_OF_STOCK_SKU, Decimal("50"))
    assert (none_left.quantity, none_left.is_stocked) == (0, False)


async def test_stock_of_an_unknown_sku_or_a_value_outside_its_range_is_refused(client):
    with pytest.raises(RefusedError) as unknown:
        await client.stock("NO-SUCH-SKU", Decimal("10"))
    assert unknown.value.reason == "InvalidProduct"
    with pytest.raises(RefusedError) as outside:
        await client.stock(SCARCE_SKU, Decimal("5000"))
    assert outside.value.reason == "InvalidDenomination"


async def test_categories_and_countries_with_names(client):
    categories = {category.id: category.name for category in await client.categories()}
    assert categories[BOOKS_CATEGORY] == "Books"
    countries = {country.code: country for country in await client.catalog_countries()}
    assert countries["GB"].name == "United Kingdom" and countries["GB"].default_currency_code == "GBP"
    assert countries["DE"].alpha3_code == "DEU"


async def test_checkout_by_sku_makes_an_order_get_order_finds(client):
    request_id = str(uuid.uuid4())
    answer = await client.place_order_by_sku(PlaceOrderBySku(request_id, 1001, [SkuLine("SIM-102", 2, 10)]))
    assert answer.request_id == request_id and answer.total_cards == 2 and answer.currency_code == "USD"
    order = await client.get_order(request_id)
    assert [item.product_id for item in order.items] == [102] and order.total == 20


async def test_checkout_by_sku_keeps_the_money_rules(client):
    with pytest.raises(RefusedError) as poor:
        await client.place_order_by_sku(PlaceOrderBySku(str(uuid.uuid4()), 1003, [SkuLine("SIM-102", 1, 500)]))
    assert poor.value.reason == "InsufficientBalance"
    with pytest.raises(RefusedError) as unknown:
        await client.place_order_by_sku(PlaceOrderBySku(str(uuid.uuid4()), 1001, [SkuLine("NOPE", 1, 10)]))
    assert unknown.value.reason == "InvalidProduct"
    request_id = str(uuid.uuid4())
    await client.place_order_by_sku(PlaceOrderBySku(request_id, 1001, [SkuLine("SIM-102", 1, 10)]))
    with pytest.raises(RefusedError) as again:
        await client.place_order_by_sku(PlaceOrderBySku(request_id, 1001, [SkuLine("SIM-102", 1, 10)]))
    assert again.value.reason == "OrderAlreadyExists"


@pytest.mark.parametrize(
    "path",
    [
        "/api/integration/v2.0/brands",
        "/API/INTEGRATION/V2/BRANDS",
        "/api/Integration/v2/getstock/SIM-402/20",
        "/api/integration/v2/Categories",
        "/api/Integration/v2.0/Catalog-Countries",
    ],
)
def test_the_simulator_answers_every_spelling_of_the_v21_paths(sim, demo_credentials, path):
    credential = demo_credentials["acme-sandbox"]
    answer = httpx.get(sim.base_url + path, auth=(credential.client_id, credential.client_secret))
    assert answer.status_code == 200, answer.text


async def test_the_wire_an_unknown_status_and_missing_fields_kept():
    seen: list[httpx.Request] = []

    def service(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/brands"):
            items = [{"name": "No SKU here", "status": "Retired Soon", "faceValues": [{"min": 5, "max": 5}]}]
            return httpx.Response(200, json={"pageIndex": 0, "pageSize": 1, "count": 1, "items": items})
        return httpx.Response(200, json={"faceValue": 12.5, "isStocked": False})

    async with ServiceClient("http://svc.test", "c", "s", transport=httpx.MockTransport(service)) as client:
        [item] = (await client.brands(BrandsQuery(category_id=3, country_code="GB"))).items
        stock = await client.stock("A B/C", Decimal("12.50"))
    assert item.sku is None and item.status == "Retired Soon" and not item.is_live
    assert stock.quantity is None and stock.is_stocked is False
    assert seen[0].url.params["categoryId"] == "3" and seen[0].url.params["countryCode"] == "GB"
    assert seen[1].url.raw_path == b"/api/integration/v2.0/getstock/A%20B%2FC/12.50"
