"""Papercuts a support engineer hits at once (issue 17): the Order screen's focus and paste,
and the 80x24 layouts (catalog footer, first run, the `:` usage, the Profiles table)."""

from __future__ import annotations

import uuid

import httpx
import pytest
from apps import app_on, settle, until
from textual import events
from textual.widgets import DataTable, Input

from tui.local.storage import RecentOrders
from tui.simulator import demo_credential

CHECKOUT = "/api/integration/v1.0/orders/checkout"
SIZE = (80, 24)


@pytest.fixture
def placed(sim) -> str:
    """A real order at the simulator, and in the sandbox profile's Recent list."""
    request_id = f"P-{uuid.uuid4()}"
    body = {"RequestId": request_id, "AccountId": 1001, "Products": [{"ProductId": 201, "Value": 10.0, "Quantity": 1}]}
    response = httpx.post(sim.base_url + CHECKOUT, json=body, auth=demo_credential("acme-sandbox").auth)
    assert response.status_code == 200, response.text
    RecentOrders().record("demo-sandbox", request_id, "Created")
    return request_id


async def test_enter_on_the_recent_list_opens_the_order_at_once(sim, placed):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        assert screen.focused is screen.query_one("#recent-orders", DataTable)
        await pilot.press("enter")
        await until(pilot, lambda: screen.order is not None)
        assert screen.order.request_id == placed


@pytest.mark.parametrize("focus", ["nothing", "recent"])
async def test_a_request_id_pasted_anywhere_opens_it(sim, placed, focus):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        if focus == "nothing":
            screen.set_focus(None)
            await pilot.pause()
        app.post_message(events.Paste(f"  {placed}\n"))
        await until(pilot, lambda: screen.order is not None)
        assert screen.order.request_id == placed
        assert screen.query_one("#order-views").current == "order-view"


async def test_a_paste_into_the_field_stays_in_the_field(sim, placed):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "i")
        app.post_message(events.Paste(placed))
        await pilot.pause()
        screen = app.screen
        assert screen.query_one("#request-id", Input).value == placed
        assert screen.request_id is None  # opened only on enter
        await pilot.press("enter")
        await until(pilot, lambda: screen.order is not None)
