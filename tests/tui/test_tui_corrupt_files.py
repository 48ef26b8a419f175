"""Corrupt local files (issue 24, item 14): a corrupt recent-orders file is kept aside and said, never
silently replaced; a corrupt watch list does not stop the TUI on `9` or `w`, and says what to do."""

from __future__ import annotations

from apps import app_on, notifications, rendered, settle, until
from watch_support import place

from tui.local.fileio import data_dir
from tui.local.state_files import RECENT_ORDERS_FILE, RecentOrders
from tui.local.watchlist import FILE_NAME
from tui.screens.order import OrderScreen
from tui.screens.watch import WatchScreen

SIZE = (100, 30)


def test_a_corrupt_recent_orders_file_is_kept_aside_not_replaced():
    path = data_dir() / RECENT_ORDERS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    corrupt = b'{"demo-sandbox": [{"request_id": "kept-1", "status": "Succ'  # a torn write
    path.write_bytes(corrupt)
    recent = RecentOrders()
    recent.record("demo-sandbox", "new-1", "Pending")

    assert recent.set_aside is not None and recent.set_aside.read_bytes() == corrupt
    assert recent.set_aside.parent == path.parent and recent.set_aside.name.startswith(f"{RECENT_ORDERS_FILE}.corrupt-")
    assert [order.request_id for order in recent.entries("demo-sandbox")] == ["new-1"]


async def test_the_order_screen_says_the_recent_orders_were_kept_aside(sim):
    path = data_dir() / RECENT_ORDERS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[not json")
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("order")
        await settle(pilot)
        assert isinstance(app.screen, OrderScreen)
        said = " ".join(notifications(app))
        assert "could not be read" in said and ".corrupt-" in said
    [aside] = path.parent.glob(f"{RECENT_ORDERS_FILE}.corrupt-*")
    assert aside.read_text() == "[not json"


def corrupt_watch_list() -> None:
    path = data_dir() / FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"this is not a database, it is garbage " * 200)


async def test_a_corrupt_watch_list_does_not_stop_the_tui_on_9(sim):
    corrupt_watch_list()
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("9")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, WatchScreen)
        summary = rendered(app.screen, "#watch-summary")
        assert FILE_NAME in summary and "aside" in summary
        await pilot.press("a")  # adding is not offered while the file is unusable, and does not crash
        await settle(pilot)
        assert app.is_running


async def test_a_corrupt_watch_list_does_not_stop_the_tui_on_w(sim):
    corrupt_watch_list()
    request_id = place(sim, "10.00")
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("order", request_id)
        await until(pilot, lambda: isinstance(app.screen, OrderScreen) and app.screen.order is not None)
        await pilot.press("w")
        await settle(pilot)
        assert app.is_running
        said = " ".join(notifications(app))
        assert "watch list cannot be used" in said and FILE_NAME in said and "aside" in said
