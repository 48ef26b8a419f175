"""The ledger says each debit's order status and flags the debits of Failed orders (issue 38)."""

from __future__ import annotations

from datetime import date

import httpx
import pytest
from apps import app_on, settle, until
from textual.widgets import DataTable

from tui.core.dates import DayRange
from tui.simulator import SimulatorServer, SimulatorSettings

WIDE = (160, 48)
HISTORY = "/api/integration/v1.0/orders"


@pytest.fixture(scope="module")
def seeded():
    with SimulatorServer(SimulatorSettings(seed=11, history=120, limits=None)) as server:
        yield server


async def test_a_debit_of_a_failed_order_says_so_and_is_flagged(seeded, demo_credentials):
    week = DayRange.last_days(7, today=date.today()).to_wire()
    lines = httpx.get(seeded.base_url + HISTORY, params=week, auth=demo_credentials["acme-sandbox"].auth).json()
    failed = {line["clientReferenceNumber"] for line in lines if line["status"] == "Failed"}
    assert failed
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        await pilot.press("k")  # the last 7 days
        await until(pilot, lambda: screen.report is not None and screen.ledger.order_statuses)
        accounts = screen.query_one("#accounts", DataTable)
        flagged: set[str] = set()
        for row in range(accounts.row_count):  # each account's ledger in turn
            accounts.move_cursor(row=row)
            await settle(pilot)
            table = screen.ledger.table
            for n in range(table.row_count):
                cells = [getattr(cell, "plain", str(cell)) for cell in table.get_row_at(n)]
                if "⚠" in cells[4]:
                    assert "Failed" in cells[4]
                    flagged.add(cells[6])
                elif cells[6] in failed:
                    pytest.fail(f"a debit of Failed order {cells[6]} is not flagged: {cells}")
        assert flagged and flagged <= failed  # some shown, and only Failed orders' debits
