"""The ledger on the Accounts screen, the Rates screen and the catalog page export,
against the real simulator (and, for the pictures, the documented answer with fixed dates)."""

from __future__ import annotations

import csv
import io
import json
import uuid
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from apps import app_on, export_shown, notifications, settle, until
from money_cases import TRANSACTIONS_ANSWER
from textual.widgets import DataTable, Sparkline, Static

from tui.api import wire_json
from tui.api.client import ServiceClient
from tui.api.models import OrderLine, PlaceOrder
from tui.api.money_models import TransactionsReport
from tui.screens.base import table_as_shown
from widgets.row_table import RowTable

SIZE = (80, 24)
WIDE = (160, 48)


async def place(sim, demo_credentials, account: int, product: int, value: str, quantity: int = 1) -> str:
    credential = demo_credentials["acme-sandbox"]
    async with ServiceClient(sim.base_url, credential.client_id, credential.client_secret) as client:
        return await client.place_order(
            PlaceOrder(str(uuid.uuid4()), account, [OrderLine(product, quantity, float(value))])
        )


async def open_ledger(pilot, account_id: int = 1001):
    await pilot.press("2")
    await settle(pilot)
    screen = pilot.app.screen
    accounts = screen.query_one("#accounts", DataTable)
    accounts.move_cursor(row=next(i for i, a in enumerate(screen.accounts) if a.id == account_id))
    await until(pilot, lambda: screen.report is not None)
    await settle(pilot)
    return screen


def shown(screen) -> list[list[str]]:
    return table_as_shown(screen.ledger.table)[1]


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_each_charge_with_the_balance_after_it_and_a_reconciliation_that_adds_up(sim_factory, demo_credentials):
    sim = sim_factory()  # its own: balances predictable
    usd = await place(sim, demo_credentials, 1001, 101, "25", 2)  # 50.00 USD
    gbp = await place(sim, demo_credentials, 1001, 501, "20")  # GBP 20 at 1.265823 = 25.32 USD
    await place(sim, demo_credentials, 1002, 601, "10")  # on the EUR account: not in 1001's ledger
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_ledger(pilot)
        rows = shown(screen)
        assert [[row[2], row[3], row[5], row[6]] for row in rows] == [  # amount, balance after, order, RequestId
            ["-50.00", "99,950.00", "O-00500001", usd],  # in the account's currency, which the title names
            ["-25.32", "99,924.68", "O-00500002", gbp],
        ]
        assert [row[0] for row in rows] == ["✓", "✓"]
        assert screen.query_one("#ledger-chart", Sparkline).data == [100000.0, 99950.0, 99924.68]
        summary = text_of(screen, "#ledger-reconciliation")
        assert "2 transactions" in summary and "every balance change matches its amount" in summary
        assert "100,000.00 USD → 99,924.68 USD" in summary
        # The balance shown for the account is the last balance after.
        assert screen.accounts[0].balance == Decimal("99924.68")


async def test_the_detail_pane_shows_price_discount_fee_and_rate(sim_factory, demo_credentials):
    sim = sim_factory()
    await place(sim, demo_credentials, 1001, 501, "20", 2)
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_ledger(pilot)
        detail = text_of(screen, "#ledger-detail")
        # The provider's recording: the whole line's price as a money object in the account's currency, and the
        # fields sent beyond the documented ones (the item's own, then the transaction's), as they came.
        for expected in (
            "2 × Tea & Co £20 (Tea & Co)",
            "line price 50.63 USD · estimated 50.63 USD",
            "discount 0.0%",
            "fee 0.00 USD",
            "rate 1 GBP = 1.265823 USD",
            "total 50.63 USD",
            "100,000.00 USD → 99,949.37 USD",
            "Also sent:",
            "brandWithDenominationCurrency: Tea & Co GBP 20",
            "createdDate: 0001-01-01T00:00:00",
            "orderType: —",
            "xeroCreditNoteNumber: —",
        ):
            assert expected in detail


async def test_a_rate_of_0_is_unknown_not_zero(sim_factory, demo_credentials):
    sim = sim_factory()
    for _ in range(3):  # the simulator states no rate (0) on every third order, as the provider may
        await place(sim, demo_credentials, 1001, 501, "20")
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_ledger(pilot)
        screen.ledger.show_detail(2)
        detail = text_of(screen, "#ledger-detail")
        assert "rate GBP → USD at a rate not stated" in detail and "= 0" not in detail


async def test_another_account_shows_its_own_transactions(sim_factory, demo_credentials):
    sim = sim_factory()
    await place(sim, demo_credentials, 1001, 101, "25")
    eur = await place(sim, demo_credentials, 1002, 601, "10")
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_ledger(pilot, 1002)
        assert [row[6] for row in shown(screen)] == [eur]
        assert "Ledger of 1002 EUR" in text_of(screen, "#ledger-title")


async def test_enter_on_a_transaction_opens_its_order(sim_factory, demo_credentials):
    sim = sim_factory()
    request_id = await place(sim, demo_credentials, 1001, 101, "25")
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_ledger(pilot)
        screen.ledger.table.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.destination == "order"
        await until(pilot, lambda: request_id in str(app.screen.query_one("#request-id").value))


async def test_range_keys_ask_for_those_days(sim_factory):
    sim = sim_factory()
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_ledger(pilot)
        opening = (date.today() - timedelta(days=1)).isoformat()  # the last 24 hours: today and yesterday
        assert screen.report.start_date == opening
        await pilot.press("k")
        await until(pilot, lambda: screen.report is not None and screen.report.start_date != opening)
        await settle(pilot)
        assert screen.report.start_date == (date.today() - timedelta(days=6)).isoformat()
        assert "last 7 days" in text_of(screen, "#ledger-title")


def documented_report(broken: bool) -> TransactionsReport:
    """The provider's documented answer (fixed dates), optionally with a balance that does not add up."""
    answer = TRANSACTIONS_ANSWER
    if broken:
        answer = answer.replace('"value": 1000.00, "currencyCode": "USD"', '"value": 999.99, "currencyCode": "USD"')
    return TransactionsReport.model_validate(wire_json.loads(answer))


async def show_documented(pilot, broken: bool) -> None:
    screen = await open_ledger(pilot)
    screen.report = documented_report(broken)
    screen.show_ledger()
    await settle(pilot)


async def test_a_transaction_that_does_not_add_up_is_flagged(sim_factory):
    sim = sim_factory()
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        await show_documented(pilot, broken=True)
        screen = app.screen
        assert [row[0] for row in shown(screen)] == ["✓", "✗"]
        assert "1 do not add up: T123457: balance moved -0.11, amount -0.1" in text_of(screen, "#ledger-reconciliation")
        assert screen.ledger.has_class("-does-not-add-up")


@pytest.mark.parametrize(
    ("size", "broken"), [(SIZE, True), (SIZE, False), (WIDE, False)], ids=["80x24-broken", "80x24", "160x48"]
)
def test_snapshot_ledger(sim_factory, snap_compare, size, broken):
    sim = sim_factory()

    async def run_before(pilot) -> None:
        await show_documented(pilot, broken)

    assert snap_compare(app_on(sim), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("fmt", ["csv", "json"])
async def test_e_exports_the_ledger_as_numbers_a_spreadsheet_sums(sim_factory, demo_credentials, tmp_path: Path, fmt):
    sim = sim_factory()
    await place(sim, demo_credentials, 1001, 501, "20")
    await place(sim, demo_credentials, 1001, 101, "25")
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_ledger(pilot)
        path = await export_shown(pilot, fmt, tmp_path / "data")
        assert path.name.startswith("ledger-")
        assert str(path) in " ".join(str(message) for message in notifications(app))
        text = path.read_text()
        records = json.loads(text) if fmt == "json" else list(csv.DictReader(io.StringIO(text)))
        # Plain decimals with a currency column and plain words (issue 26), not "-25.32 USD" or "✓".
        assert [(r["Amount"], r["Balance after"], r["Currency"], r["Adds up"]) for r in records] == [
            ("-25.32", "99974.68", "USD", "yes"),
            ("-25.0", "99949.68", "USD", "yes"),
        ]
        assert sum(Decimal(r["Amount"]) for r in records) == Decimal("-50.32")
        assert [r["RequestId"] for r in records] == [row[6] for row in table_as_shown(screen.ledger.table)[1]]


# --- the Rates screen ---------------------------------------------------------------------


async def open_rates(pilot):
    await pilot.press("0")
    await settle(pilot)
    return pilot.app.screen


async def test_rates_based_on_usd_and_the_converter(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rates(pilot)
        assert screen.destination == "rates"
        headers, rows = table_as_shown(screen.table)
        assert headers == ["Currency", "Rate", "Converted"]
        assert ["EUR", "0.92", "92.00 EUR"] in rows and ["JPY", "150.0", "15,000 JPY"] in rows
        await pilot.press("b", "G", "B", "P", "enter")
        await until(pilot, lambda: screen.rates is not None and screen.rates.base_currency_code == "GBP")
        await pilot.press("backspace", "backspace", "backspace", "2", "5")  # the amount field has the focus
        await settle(pilot)
        rows = table_as_shown(screen.table)[1]
        assert ["USD", "1.265823", "31.65 USD"] in rows  # 25 × 1.265823 = 31.645575
        await pilot.press("backspace", "x")
        await settle(pilot)
        assert "is not an amount" in str(screen.query_one("#rates-note", Static).render())


async def test_jump_to_rates_with_a_base(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("rates", "eur")  # replaces the first load (cancelled) with one based on EUR
        await until(pilot, lambda: app.screen.rates is not None and app.screen.rates.base_currency_code == "EUR")


async def test_e_exports_the_rates_as_shown(sim, tmp_path: Path):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rates(pilot)
        headers, rows = table_as_shown(screen.table)
        path = await export_shown(pilot, "csv", tmp_path / "data")
        assert path.name.startswith("rates-")
        assert list(csv.reader(io.StringIO(path.read_text()))) == [headers, *rows]


@pytest.mark.parametrize("size", [SIZE, WIDE], ids=["80x24", "160x48"])
def test_snapshot_rates(sim, snap_compare, size):
    async def run_before(pilot) -> None:
        await open_rates(pilot)

    assert snap_compare(app_on(sim), terminal_size=size, run_before=run_before)


async def test_e_exports_the_catalog_page_as_shown(sim, tmp_path: Path):
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#brands", RowTable)  # draws only the rows in view: every row it holds
        headers = [column.title for column in table.columns]
        rows = [[cell.plain for cell in table.get_row_at(index)] for index in range(table.row_count)]
        path = await export_shown(pilot, "json", tmp_path / "data")
        assert path.name.startswith("catalog-page-")
        assert json.loads(path.read_text()) == [dict(zip(headers, row, strict=True)) for row in rows]
        assert len(rows) > 0
