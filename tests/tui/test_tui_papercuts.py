"""Papercuts a support engineer hits at once (issue 17): the Order screen's focus and paste,
and the 80x24 layouts (catalog footer, first run, the `:` usage, the Profiles table)."""

from __future__ import annotations

import uuid

import httpx
import pytest
from apps import app_on, settle, until
from textual import events
from textual.widgets import DataTable, Input

from tui.app import AppSettings, build_app
from tui.local.storage import RecentOrders
from tui.simulator import demo_credential

CHECKOUT = "/api/integration/v1.0/orders/checkout"
SIZE = (80, 24)


@pytest.fixture
def placed(sim) -> str:
    """A real order at the simulator, and in the sandbox profile's Recent list."""
    request_id = str(uuid.uuid4())
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


# --- 80x24 and 160x48: what used to be cut ---------------------------------------------------

SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])


def _no_session_app():
    """The app before any profile is chosen, with two stored profiles on a fixed address."""
    from tui.local.profiles import make_profile

    profiles = {
        name: make_profile(
            name=name,
            environment=environment,
            base_url="https://api.giftdesk-example.com/v1",
            client_id=f"acme-{environment}-client-0001",
            secret={"kind": kind, "ref": ref},
        )
        for name, environment, kind, ref in [
            ("support-sandbox", "sandbox", "env", "SANDBOX_SECRET"),
            ("support-production", "production", "keyring", ""),
        ]
    }
    return build_app(AppSettings(profiles=profiles))


@SIZES
def test_first_run_shows_the_whole_example(snap_compare, size):
    async def check(pilot):
        text = "\n".join(str(block.source) for block in pilot.app.screen.query("Markdown"))
        assert "    --client-id YOUR_ID --secret-env GIFTDESK_SECRET" in text
        assert max(len(line) for line in text.split("```")[1].splitlines()) <= 66  # fits 80 columns

    assert snap_compare(build_app(AppSettings()), terminal_size=size, run_before=check)


@SIZES
def test_the_jump_prompt_shows_its_usage_whole(snap_compare, size):
    async def check(pilot):
        await pilot.press("colon")
        pilot.app.screen.query_one("#jump-input", Input).cursor_blink = False  # drawn the same whatever the clock
        await pilot.pause()
        usage = pilot.app.screen.query_one("#jump-error")
        assert usage.size.width <= size[0] and usage.size.height >= (3 if size[0] == 80 else 1)

    assert snap_compare(build_app(AppSettings()), terminal_size=size, run_before=check)


@SIZES
def test_the_profiles_table_keeps_the_secret_column(snap_compare, size):
    async def check(pilot):
        await pilot.press("6")
        await pilot.pause()
        table = pilot.app.screen.query_one("#profiles-table", DataTable)
        labels = [column.label.plain for column in table.columns.values()]
        assert labels.index("Secret from") < labels.index("Base URL")
        offset = sum(
            column.get_render_width(table) for column in list(table.columns.values())[: labels.index("Read-only") + 1]
        )
        assert offset <= size[0]  # the secret's source and read-only are on screen

    assert snap_compare(_no_session_app(), terminal_size=size, run_before=check)


async def test_the_catalog_footer_keeps_every_everyday_key_at_80_columns(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = {key.key_display for key in app.screen.query("FooterKey") if key.region.right <= 80 - 12}
        assert {"f", "/", "c", "o", "v", "r"} <= shown, shown
