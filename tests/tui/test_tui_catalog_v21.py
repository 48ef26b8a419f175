"""The Catalog screen and the v2.1 catalog, against the real simulator: `s` checks the highlighted
product's stock by its SKU before ordering, and a brand's country is named beside its code.
Showcase data (docs/simulator.md): brand 4 Scarce Sneakers (401 out of stock, 402 three left)."""

from __future__ import annotations

import httpx
from apps import app_on, notifications, settle, until
from test_tui_catalog import SIZE, apply_filters, drawn, shown_in_full

from tui.api.client import ServiceClient
from tui.api.models import Product
from tui.screens.catalog_v21 import product_sku


async def test_s_says_the_highlighted_product_s_stock(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await apply_filters(pilot, brand_id="4")
        await shown_in_full(pilot, "4")
        await pilot.press("enter", "s")  # into the products: the first, out of stock
        await settle(pilot)
        assert notifications(app)[-1] == "Scarce Sneakers $50 at 50.00 USD: NOT in stock, 0 left, price 50.00 USD."
        await pilot.press("down", "s")
        await settle(pilot)
        assert notifications(app)[-1] == "Scarce Sneakers eGift at 10.00 USD: in stock, 3 left, price 10.00 USD."


async def test_s_before_a_product_is_chosen_says_what_to_do(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.detail = None
        await pilot.press("s")
        assert notifications(app)[-1] == "Choose a product first: enter on a brand, then a product."


async def test_the_country_is_named_beside_its_code(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: bool(app.screen.country_names))
        await settle(pilot)
        title = str(app.screen.query_one("#detail-title").render())
        assert "· US United States ·" in title


async def test_a_product_the_v21_catalog_does_not_list_has_no_sku():
    def service(request: httpx.Request) -> httpx.Response:
        items = [{"id": 999, "name": "Tea", "sku": "OTHER-999"}, {"id": 7, "name": "Tea"}]  # 7 itself: no SKU
        return httpx.Response(200, json={"pageIndex": 0, "pageSize": 100, "count": 2, "items": items})

    tea = {
        "id": 7,
        "name": "Tea",
        "minFaceValue": 5,
        "maxFaceValue": 5,
        "price": {"min": 5, "max": 5, "currencyCode": "GBP"},
    }
    async with ServiceClient("http://svc.test", "c", "s", transport=httpx.MockTransport(service)) as client:
        assert await product_sku(client, Product.model_validate(tea)) is None
        assert await product_sku(client, Product.model_validate({**tea, "sku": "TEA-7"})) == "TEA-7"  # its own


def test_stock_notification_snapshot(sim, snap_compare):
    async def check(pilot):
        await settle(pilot)
        await apply_filters(pilot, brand_id="4")
        await shown_in_full(pilot, "4")
        await pilot.press("enter", "down", "s")
        await settle(pilot)
        assert "in stock, 3 left" in notifications(pilot.app)[-1]
        await drawn(pilot)

    assert snap_compare(app_on(sim), terminal_size=SIZE, run_before=check)


async def test_k_shows_the_page_s_brands_of_each_category_in_turn(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("k")  # the first category: Food & Drink
        await settle(pilot)
        assert screen.pager.note == "category Food & Drink (k: next)"
        assert screen.shown and all(any(c.id == 1 for c in brand.categories) for brand in screen.shown)
        assert len(screen.shown) < len(screen.brands)
        for _ in range(8):  # through the other seven, then none: every brand again
            await pilot.press("k")
            await settle(pilot)
        assert screen.pager.note == "" and len(screen.shown) == len(screen.brands)
