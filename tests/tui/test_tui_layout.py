"""Nothing cut at 80x24, and columns that grow at 160x48 (issue 26), on the screen as drawn."""

from __future__ import annotations

import uuid

import pytest
from apps import app_on, screen_lines, settle, until
from textual.widgets import DataTable
from textual.widgets._footer import FooterKey

from tui.api.client import ServiceClient
from tui.api.models import OrderLine, PlaceOrder
from tui.core.navigation import DESTINATIONS
from tui.local.storage import REDEEM, AuditLog
from tui.screens import freshness
from tui.simulator import SimulatorServer, SimulatorSettings
from widgets.footer import KeysFooter
from widgets.money import format_amount

SMALL, WIDE = (80, 24), (160, 48)


def shown_whole(app, text: str, widget=None) -> bool:
    """`text` on one line of the screen, or of `widget`'s region of it."""
    lines = screen_lines(app)
    if widget is not None:
        region = widget.region
        lines = [line[region.x : region.right] for line in lines[region.y : region.bottom]]
    return any(text in line for line in lines)


@pytest.fixture(scope="module")
def seeded():
    with SimulatorServer(SimulatorSettings(seed=11, history=120)) as server:
        yield server


@pytest.mark.parametrize("size", [SMALL, WIDE], ids=["80x24", "160x48"])
async def test_every_footer_shows_whole_keys_only(sim, size):
    app = app_on(sim)
    async with app.run_test(size=size) as pilot:
        for destination in DESTINATIONS:
            await app.navigate(destination.name)
            await settle(pilot)
            footer = app.screen.query_one(KeysFooter)
            keys = list(footer.query_children(FooterKey))
            [palette] = [key for key in keys if key.has_class("-command-palette")]
            shown = [key for key in keys if key.display and key is not palette]
            assert shown, destination.name
            for key in shown:  # each key whole, left of the palette's
                assert key.region.right <= palette.region.x, (destination.name, key.key)
                assert key.description in footer_text(app), (destination.name, key.key)


def footer_text(app) -> str:
    return screen_lines(app)[-1]


async def test_the_order_screen_offers_watch_at_80x24(sim):
    app = app_on(sim)
    async with app.run_test(size=SMALL) as pilot:
        await app.navigate("order")
        await settle(pilot)
        assert "w Watch" in footer_text(app)


async def test_the_ledger_shows_each_amount_balance_and_type_whole_at_80x24(sim_factory, demo_credentials):
    sim = sim_factory()
    credential = demo_credentials["acme-sandbox"]
    async with ServiceClient(sim.base_url, credential.client_id, credential.client_secret) as client:
        for product, quantity, value in ((101, 1, 25.0), (102, 3, 499.5)):  # amounts up to four digits
            await client.place_order(PlaceOrder(str(uuid.uuid4()), 1001, [OrderLine(product, quantity, value)]))
    app = app_on(sim)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2")
        screen = app.screen
        await until(pilot, lambda: screen.report is not None and screen.ledger.lines)
        await settle(pilot)
        assert "Ledger of 1001 USD" in screen_lines(app)[9]  # the money's currency, once, above its numbers
        table = screen.ledger.table
        assert shown_whole(app, "Amount", table) and shown_whole(app, "Balance", table)
        assert shown_whole(app, "Type ", table)  # whole, a space after it (issue 26: cut at the pane's edge)
        for line in screen.ledger.lines:  # in the table, not only in the detail pane beside it
            t = line.transaction
            after, amount = t.available_balance, t.transaction_amount
            whole = f"{format_amount(amount.value, amount.currency_code)}  {format_amount(after.value, after.currency_code)}  {t.transaction_type} "
            assert shown_whole(app, whole, table), whole


async def test_the_catalog_detail_shows_stock_and_dates_whole_at_80x24(sim):
    app = app_on(sim)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert app.screen.detail is not None and app.screen.detail.name == "Acme Books"
        lines = screen_lines(app)
        for product in app.screen.detail.products:  # 101 and 102: unrestricted, modified on a day
            row = next(line for line in lines if f" {product.id} " in line)
            day = (product.modified_date or "")[:10]
            assert "unrestricted" in row and product.name in row
            assert day in row or day[:4] not in row  # the date whole, or left out whole
        header = next(line for line in lines if " Id " in line and "Product" in line)
        assert header.rstrip().endswith(("Modified", "Stock"))


async def test_the_read_only_payout_note_is_whole_at_80x24(sim):
    app = app_on(sim, readonly=True)
    async with app.run_test(size=SMALL) as pilot:
        await app.navigate("payout")
        await settle(pilot)
        words = " ".join(" ".join(screen_lines(app)).split())
        assert "Read-only: redeeming is off; status lookups work." in words
        assert not app.screen.query_one("#redeem").display  # not offered at all


async def test_the_orders_board_gives_a_wide_terminal_to_the_products(seeded):
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        await app.navigate("orders")
        await pilot.press("k")  # 7 days
        screen = app.screen
        await until(pilot, lambda: screen.shown and not screen.table.loading)
        await settle(pilot)
        names = {row.line.product_name for row in screen.shown[:20] if row.line.product_name}
        longest = max(names, key=len)
        assert len(longest) > 16  # the 80-column width would cut it
        assert shown_whole(app, longest)
        assert shown_whole(app, screen.shown[0].line.client_reference_number)  # and the RequestId


async def test_the_audit_gives_a_wide_terminal_to_the_outcome(sim):
    AuditLog().record(
        profile="demo-sandbox",
        environment="sandbox",
        action=REDEEM,
        subject="…/abc…xyz",
        wallet="PayPal",
        recipient="a****@****.com",
        outcome="refused: Weblink is disabled",
    )
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        await app.navigate("audit")
        await until(pilot, lambda: app.screen.query_one(DataTable).row_count == 1)
        await settle(pilot)
        assert shown_whole(app, "refused: Weblink is disabled", app.screen.query_one(DataTable))  # not only below it


async def test_the_orders_boards_summary_is_whole_at_80x24(seeded, monkeypatch):
    # Issue 26's walk: at 80 columns the summary took three lines in a box of two ("… 3 stuck >"),
    # with the freshness as a real run says it (the suite's is shorter).
    monkeypatch.setattr(
        freshness, "text_for", lambda answer, renews_at=None: "as of 10:04 (just now) · refreshes by itself at 10:05"
    )
    app = app_on(seeded)
    async with app.run_test(size=SMALL) as pilot:
        await app.navigate("orders")
        screen = app.screen
        await until(pilot, lambda: screen.shown and not screen.table.loading)
        await settle(pilot)
        summary = screen.query_one("#orders-summary")
        said = " ".join(str(summary.render()).split())
        assert "stuck > 15 min" in said and "by Time (UTC) ↓" in said
        region = summary.region
        drawn = [line[region.x : region.right] for line in screen_lines(app)[region.y : region.bottom]]
        assert " ".join(" ".join(drawn).split()) == said
