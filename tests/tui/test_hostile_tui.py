"""Every screen of the TUI against the hostile simulator (issue 12, DESIGN rule 8).

The walk is driven by `tui.core.navigation.DESTINATIONS`: a screen added
there is walked too. On each: no error, nothing drawn that a terminal would
obey (no control or format character), and where the screen shows the
service's free text, the hostile strings drawn literally (their visible form).
"""

from __future__ import annotations

import httpx
import pytest
from apps import app_on, settle, until
from apps import notifications as notes
from hostile_walk import SECRET, SHOWN_MARKERS, drawn, markers_in, raw_controls
from textual.widgets import DataTable

from tui.core.navigation import DESTINATIONS
from tui.local.storage import AuditLog
from tui.simulator.hostile import HOSTILE_STRINGS

SIZE = (200, 50)
# Screens that show the service's (or a file's) free text as soon as they open, with the data set up below.
SHOWS_OUTSIDE_TEXT = {"catalog", "order", "payout", "notifications", "audit", "orders"}


def write_hostile_audit() -> None:
    """The audit log is a file: its text is outside text too."""
    log = AuditLog()
    for text in HOSTILE_STRINGS:
        log.record(
            profile="demo-sandbox", environment="sandbox", action=text[:40], subject=text, outcome=text, detail=text
        )


def check_drawn(app, where: str, *, expect_outside_text: bool) -> None:
    text = drawn(app)
    assert not raw_controls(text), f"{where}: drew {raw_controls(text)}"
    assert not [n for n in notes(app) if "Unexpected error" in str(n)], f"{where}: {notes(app)}"
    if expect_outside_text:
        assert markers_in(text), f"{where}: none of {SHOWN_MARKERS} drawn"


def table_cells(screen) -> list[object]:
    return [
        cell
        for table in screen.query(DataTable)
        for index in range(table.row_count)
        for cell in table.get_row_at(index)
    ]


@pytest.mark.parametrize("destination", DESTINATIONS, ids=[d.name for d in DESTINATIONS])
async def test_every_screen_shows_hostile_text_literally(hostile_sim, walk_data, destination):
    write_hostile_audit()
    app = app_on(hostile_sim)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        check_drawn(app, "start", expect_outside_text=True)
        await app.navigate(
            destination.name, {"order": walk_data["order"], "payout": walk_data["payout"]}.get(destination.name)
        )
        await settle(pilot)
        if destination.name == "order":
            await until(pilot, lambda: "10.13" in drawn(app) or "10.1" in drawn(app))
        await settle(pilot)
        screen = app.screen
        check_drawn(app, destination.name, expect_outside_text=destination.name in SHOWS_OUTSIDE_TEXT)
        # A table cell is a literal Text, never a str that DataTable would parse as markup.
        assert not [cell for cell in table_cells(screen) if isinstance(cell, str) and cell], destination.name
        # Every row, one after the other: a detail pane follows the cursor.
        for table in screen.query(DataTable):
            table.focus()
            for _ in range(min(table.row_count, 12)):
                await pilot.press("down")
                await pilot.pause()
                check_drawn(app, f"{destination.name}, a row further", expect_outside_text=False)
        await pilot.press("ctrl+p")  # the command palette lists the screen's keys
        await pilot.pause()
        check_drawn(app, f"{destination.name} palette", expect_outside_text=False)


async def test_callbacks_and_card_detail_show_hostile_text_literally(hostile_sim, walk_data):
    app = app_on(hostile_sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("notifications")
        screen = app.screen
        await until(pilot, lambda: getattr(screen, "stored", None) is not None)
        await pilot.press("ctrl+l")
        await until(pilot, lambda: screen.hub.running)
        for text in HOSTILE_STRINGS:
            body = {"orderId": 7, "status": text, "requestId": text, "secretKey": SECRET, "totalCards": 1}
            assert (
                httpx.post(screen.hub.listener.url, json=body, timeout=30).status_code < 300
            )  # each waits for its fsync
        httpx.post(
            screen.hub.listener.url,
            json={"orderId": 7, "status": "x", "requestId": "y", "secretKey": HOSTILE_STRINGS[7]},
            timeout=30,
        )
        await until(pilot, lambda: screen.query_one("#inbox", DataTable).row_count >= len(HOSTILE_STRINGS))
        await settle(pilot)
        screen.query_one("#inbox", DataTable).focus()
        await pilot.pause()
        check_drawn(app, "callbacks", expect_outside_text=True)
        assert len(markers_in(drawn(app))) >= 5

        await app.navigate("order", walk_data["order"])
        await settle(pilot)
        table = app.screen.query_one("#order-cards", DataTable)
        await until(pilot, lambda: table.row_count > 0)
        table.focus()
        for _ in range(table.row_count):
            await pilot.press("down")
            await pilot.pause()
            check_drawn(app, "order cards", expect_outside_text=True)


async def test_test_order_form_and_its_confirmation_show_hostile_names_literally(hostile_sim):
    from textual.widgets import Input

    from widgets.confirm import ConfirmScreen

    app = app_on(hostile_sim)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        catalog = app.screen
        await until(pilot, lambda: catalog.detail is not None and bool(catalog.detail.products))
        product = next(p for p in catalog.detail.products if p.count != 0)
        app.open_new_order(product)
        await settle(pilot)
        check_drawn(app, "test order form", expect_outside_text=True)
        form = app.screen
        form.query_one("#face-value", Input).value = f"{product.min_face_value:.2f}"
        await pilot.click("#place")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.pause()
        check_drawn(app, "test order confirmation", expect_outside_text=True)
