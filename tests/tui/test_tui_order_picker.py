"""Any ID finds the order in the TUI too (issue 38): a start of a RequestId that several orders share opens a
picker of them (`:order`, `--order`); enter opens the chosen one, esc none. On the simulator over loopback."""

from __future__ import annotations

import pytest
from apps import app_on, screen_lines, settle, until
from test_tui_order import place

from tui.core.order_ids import KnownOrder
from tui.screens.order import OrderScreen
from tui.screens.order_picker import OrderPicker

SIZE = (80, 24)
PREFIX = "5eed0a11"
FIRST, SECOND = f"{PREFIX}-0000-4000-8000-00000000000a", f"{PREFIX}-0000-4000-8000-00000000000b"


@pytest.fixture
def two_alike(sim_factory):
    """Two orders whose RequestIds start alike; giftdesk has seen neither yet (it asks the orders report)."""
    sim = sim_factory()
    place(sim, (102, "10.00", 1), request_id=FIRST)
    place(sim, (102, "10.13", 1), request_id=SECOND)
    return sim


async def picker_shown(pilot) -> OrderPicker:
    await until(pilot, lambda: isinstance(pilot.app.screen, OrderPicker), timeout=15)
    return pilot.app.screen


async def test_a_start_two_orders_share_opens_a_picker_and_enter_opens_the_chosen(two_alike):
    app = app_on(two_alike)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *f"order {PREFIX}", "enter")
        picker = await picker_shown(pilot)
        assert {order.request_id for order in picker.candidates} == {FIRST, SECOND}
        shown = "\n".join(screen_lines(app))
        assert f"'{PREFIX}' matches 2 orders: which one?" in shown
        assert all(order.order_number and order.order_number in shown for order in picker.candidates)
        wanted = picker.candidates[1].request_id
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, OrderScreen) and app.screen.order is not None)
        assert app.screen.order.request_id == wanted


async def test_esc_in_the_picker_opens_nothing_and_says_what_matched(two_alike):
    app = app_on(two_alike, order=PREFIX)  # `giftdesk --order 5eed0a11`
    async with app.run_test(size=SIZE) as pilot:
        await picker_shown(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, OrderScreen))
        await settle(pilot)
        assert isinstance(app.screen, OrderScreen) and app.screen.order is None  # no picker again on the way back
        assert "matches 2 orders" in "\n".join(screen_lines(app))


async def test_an_id_no_order_has_opens_no_picker(two_alike):
    app = app_on(two_alike)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *"order O-09999999", "enter")
        await until(pilot, lambda: "no order giftdesk has seen" in "\n".join(screen_lines(app)), timeout=15)
        assert not isinstance(app.screen, OrderPicker)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_order_picker(sim, snap_compare, size):
    candidates = [
        KnownOrder(FIRST, "O-00500201", (), "orders report", "Succeeded", "2026-11-28T10:04:00"),
        KnownOrder(SECOND, "O-00500202", (), "recent", "Failed\x1b[31m", "2026-11-28T10:05:00"),  # shown, not obeyed
        KnownOrder(f"{PREFIX}-0000-4000-8000-00000000000c", None, (), "transactions"),
    ]

    async def run_before(pilot) -> None:
        await settle(pilot)
        pilot.app.push_screen(OrderPicker(PREFIX, candidates))
        await pilot.pause()

    assert snap_compare(app_on(sim), terminal_size=size, run_before=run_before)
