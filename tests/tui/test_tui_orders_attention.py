"""The Orders board flags the orders whose case needs attention, and `/attention` keeps them (issue 38)."""

from __future__ import annotations

from datetime import date

import httpx
import pytest
from apps import app_on, screen_lines, settle, until

from tui.core.dates import DayRange
from tui.screens.orders import ATTENTION_MARK, OrdersScreen
from tui.simulator import SimulatorServer, SimulatorSettings

WIDE = (160, 48)
HISTORY = "/api/integration/v1.0/orders"
DAYS = 7


@pytest.fixture(scope="module")
def seeded():
    with SimulatorServer(SimulatorSettings(seed=11, history=120, limits=None)) as server:
        yield server


def week_lines(sim, demo_credentials) -> list[dict]:
    params = DayRange.last_days(DAYS, today=date.today()).to_wire()
    return httpx.get(sim.base_url + HISTORY, params=params, auth=demo_credentials["acme-sandbox"].auth).json()


async def test_failed_and_charged_orders_are_flagged_and_slash_attention_keeps_them(seeded, demo_credentials):
    lines = week_lines(seeded, demo_credentials)
    failed = {line["clientReferenceNumber"] for line in lines if line["status"] == "Failed"}
    assert failed, "the seeded week has Failed orders, charged and never refunded (docs/simulator.md)"
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("8")
        await until(pilot, lambda: isinstance(app.screen, OrdersScreen))
        screen = app.screen
        await pilot.press("k")  # 7 days
        await until(pilot, lambda: not screen.table.loading and screen.attention)
        await settle(pilot)
        flagged = {row.request_id for row in screen.rows if row.attention}
        assert failed <= flagged
        assert all("Failed, but" in screen.attention[request_id] for request_id in failed)
        assert not any(row.attention for row in screen.rows if row.line.status == "Succeeded")
        statuses = [str(screen.table.get_row_at(n)[1].plain) for n in range(screen.table.row_count)]
        assert any(cell.endswith(ATTENTION_MARK) for cell in statuses)
        assert "need attention (/attention)" in str(screen.query_one("#orders-summary").render())
        await pilot.press("slash", *"attention")
        await settle(pilot)
        assert {row.request_id for row in screen.shown} == flagged


async def test_at_80x24_a_flagged_orders_detail_says_why_whole(seeded):
    """The order's own line takes two lines at 80 columns: the reason's end, "(enter opens its case)", was cut."""
    app = app_on(seeded)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("8")
        await until(pilot, lambda: isinstance(app.screen, OrdersScreen))
        screen = app.screen
        await until(pilot, lambda: not screen.table.loading and screen.attention)
        await pilot.press("slash", *"attention", "enter")
        await settle(pilot)
        assert screen.shown and screen.shown[0].attention
        drawn = " ".join(" ".join(screen_lines(app)).split())
        assert f"⚠ needs attention: {screen.shown[0].attention} (enter opens its case)" in drawn
