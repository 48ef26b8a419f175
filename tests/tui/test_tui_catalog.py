"""Catalog screen against the real simulator (issue 5).

Each test checks the screen's own state first; the snapshot tests then
compare the picture. Snapshots are taken after every worker has finished.
Showcase data (docs/simulator.md): brand 1 Acme Books (fixed 101, range 102),
2 Giftdesk Payout, 4 Scarce Sneakers (401 out of stock, 402 three left).
"""

from __future__ import annotations

import dataclasses

import pytest
from apps import app_on, demo_profiles, notifications, settle, until
from textual.widgets import DataTable, Input

from tui.api.client import RetryPolicy, ServiceClient
from tui.app import AppSettings, build_app
from tui.local.config import SecretSource
from tui.simulator import SimulatorSettings
from widgets.filter_bar import FilterBar
from widgets.pager import Pager
from widgets.row_table import RowTable

SIZE = (80, 24)
WIDE = (160, 48)
SIM_BRANDS = 300  # the `sim` fixture's catalog


@pytest.fixture
def catalog_requests(monkeypatch) -> list:
    """Every v2 query the client sends."""
    sent = []
    original = ServiceClient.catalog

    async def recording(self, query):
        sent.append(query)
        return await original(self, query)

    monkeypatch.setattr(ServiceClient, "catalog", recording)
    return sent


# --- helpers -----------------------------------------------------------------------


async def apply_filters(pilot, **values: str) -> None:
    """Type each value into its (emptied) field, then press enter in the last one."""
    bar = pilot.app.screen.query_one(FilterBar)
    for name, value in values.items():
        bar.input_for(name).clear()
        bar.input_for(name).focus()
        await pilot.press(*value)
    await pilot.press("enter")
    await settle(pilot)


def rows(table: DataTable | RowTable) -> list[list[str]]:
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def drawn(pilot) -> None:
    """The catalog as a person sees it, before a snapshot: every request answered, and the
    detail pane (filled a frame after the rows) showing the cursor's brand, laid out."""
    await settle(pilot)
    screen = pilot.app.screen

    def detail_caught_up() -> bool:
        row = brands(screen).cursor_row
        return screen.detail is (screen.shown[row] if 0 <= row < len(screen.shown) else None)

    await until(pilot, detail_caught_up)
    for field in screen.query(Input):  # a blinking cursor is drawn or not by the clock: keep it shown
        field.cursor_blink = False
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def snapshot_after(check):
    """run_before for snap_compare: the test's own checks, then `drawn`."""

    async def run_before(pilot):
        await check(pilot)
        await drawn(pilot)

    return run_before


def pager_text(screen) -> str:
    return str(screen.query_one("#pager-status").render())


async def shown_in_full(pilot, brand_id: str) -> None:
    """Wait for the page and the brand's detail pane (filled a frame after the rows), not for time."""
    screen = pilot.app.screen
    await until(
        pilot,
        lambda: (
            not screen.pager.busy
            and screen.detail is not None
            and screen.detail.internal_id == brand_id
            and products(screen).row_count == len(screen.detail.products)
            and products(screen).styles.height is not None
        ),
    )
    await pilot.wait_for_scheduled_animations()


def brands(screen) -> RowTable:
    return screen.query_one("#brands", RowTable)


def products(screen) -> DataTable:
    return screen.query_one("#products", DataTable)


# --- first page, paging ----------------------------------------------------------


@pytest.mark.parametrize("size", [SIZE, WIDE], ids=["80x24", "160x48"])
def test_first_page(sim, snap_compare, size):
    async def check(pilot):
        await settle(pilot)
        screen = pilot.app.screen
        assert screen.destination == "catalog"
        assert (screen.page.index, screen.page.count) == (0, SIM_BRANDS)
        assert brands(screen).row_count == screen.page.size == 50
        assert pager_text(screen) == "page 1 of 6 · 300 brands"
        assert rows(brands(screen))[0] == ["Acme Books", "US", "USD", "2", "5.00–500.00 USD", "in stock"]
        assert screen.detail.name == "Acme Books"
        assert screen.query_one("#products").size.height == 4  # header, both products, scrollbar room

    assert snap_compare(app_on(sim), terminal_size=size, run_before=snapshot_after(check))


async def test_next_last_first_jump_and_previous(sim, catalog_requests):
    async with app_on(sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        await pilot.press("n", "n")
        await settle(pilot)
        assert screen.page.index == 2 and pager_text(screen) == "page 3 of 6 · 300 brands"
        await pilot.press("greater_than_sign")
        await settle(pilot)
        assert screen.page.index == 5 and brands(screen).row_count == 50
        await pilot.press("n")  # already on the last page: nothing to ask
        await settle(pilot)
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert screen.page.index == 0
        await pilot.press("g", "4", "enter")
        await settle(pilot)
        assert screen.page.index == 3 and pager_text(screen) == "page 4 of 6 · 300 brands"
        await pilot.press("p")
        await settle(pilot)
        assert screen.page.index == 2
        assert [q.page_index for q in catalog_requests] == [0, 1, 2, 5, 0, 3, 2]
        assert {q.page_size for q in catalog_requests} == {50}


async def test_jump_outside_the_pages_says_which_pages_exist(sim, catalog_requests):
    async with app_on(sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("g", "9", "enter")
        await settle(pilot)
        assert str(pilot.app.screen.query_one("#pager-error").render()) == "1 to 6"
        assert len(catalog_requests) == 1


async def test_newest_answer_wins(sim_factory):
    slow = sim_factory(
        faults="latency=1s"
    )  # long enough that the three presses all come before an answer, on a loaded machine too
    async with app_on(slow).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        shown = []
        original = screen.show_page
        screen.show_page = lambda page, items: (shown.append(page.index), original(page, items))
        await pilot.press("n", "n", "n")  # each press cancels the request before it
        await settle(pilot)
        assert shown == [3]
        assert screen.page.index == 3 and pager_text(screen) == "page 4 of 6 · 300 brands"


# --- filters -----------------------------------------------------------------------


def test_filtered_empty_result(sim, snap_compare):
    async def check(pilot):
        await settle(pilot)
        await apply_filters(pilot, name="nothing-is-called-this")
        screen = pilot.app.screen
        assert screen.page.count == 0 and brands(screen).row_count == 0
        assert pager_text(screen) == "page 1 of 1 · 0 brands"
        assert "No brands match these filters." in str(screen.query_one("#detail-title").render())

    assert snap_compare(app_on(sim), terminal_size=SIZE, run_before=snapshot_after(check))


async def test_filters_are_sent_as_typed_and_reset_to_the_first_page(sim, catalog_requests):
    async with app_on(sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await apply_filters(pilot, country="gb", currency="gbp", page_size="10")
        screen = pilot.app.screen
        query = catalog_requests[-1]
        assert (query.country_code, query.currency_code, query.page_size, query.page_index) == ("GB", "GBP", 10, 0)
        assert screen.page.index == 0 and brands(screen).row_count == 10
        assert all(row[1] == "GB" for row in rows(brands(screen)))


def test_invalid_filter_shows_why_next_to_the_field_and_sends_nothing(sim, snap_compare, catalog_requests):
    async def check(pilot):
        await settle(pilot)
        assert len(catalog_requests) == 1
        await apply_filters(pilot, country="USA", brand_id="0", modified_since="2024-02-30", target_currency="E1R")
        bar = pilot.app.screen.query_one(FilterBar)
        assert bar.error_for("country") == "2 letters, e.g. US"
        assert bar.error_for("brand_id") == "a number above 0"
        assert bar.error_for("modified_since") == "a date: YYYY-MM-DD"
        assert bar.error_for("target_currency") == "3 letters, e.g. EUR"
        assert bar.error_for("currency") == ""
        assert len(catalog_requests) == 1  # nothing reached the service
        assert pilot.app.focused is bar.input_for("country")  # the first field to fix
        # The picture must not depend on when it is taken: the focused field's cursor stops
        # blinking (Textual then keeps it shown).
        bar.input_for("country").cursor_blink = False
        await pilot.pause()

    assert snap_compare(app_on(sim), terminal_size=SIZE, run_before=snapshot_after(check))


async def test_a_fixed_field_clears_its_message(sim, catalog_requests):
    async with app_on(sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await apply_filters(pilot, page_size="500")
        bar = pilot.app.screen.query_one(FilterBar)
        assert bar.error_for("page_size") == "1 to 100"
        await pilot.press("backspace", "backspace")
        assert bar.error_for("page_size") == ""
        await pilot.press("enter")
        await settle(pilot)
        assert catalog_requests[-1].page_size == 5


def test_target_currency_prices(sim, snap_compare, catalog_requests):
    async def check(pilot):
        await settle(pilot)
        await apply_filters(pilot, brand_id="1", target_currency="eur")
        screen = pilot.app.screen
        await shown_in_full(pilot, "1")
        assert catalog_requests[-1].target_currency == "EUR"
        assert pager_text(screen) == "page 1 of 1 · 1 brand   prices in EUR"
        assert rows(brands(screen))[0][4].endswith(" EUR")
        assert all(row[3].endswith(" EUR") for row in rows(products(screen)))
        assert rows(products(screen))[0][2] == "25.00"  # face values stay in the brand's currency
        assert "face values in USD" in str(screen.query_one("#detail-title").render())

    assert snap_compare(app_on(sim), terminal_size=SIZE, run_before=snapshot_after(check))


# --- the detail pane -----------------------------------------------------------------


def test_out_of_stock_and_range_products(sim, snap_compare):
    async def check(pilot):
        await settle(pilot)
        await apply_filters(pilot, brand_id="4")
        screen = pilot.app.screen
        assert screen.detail.name == "Scarce Sneakers"
        fixed, ranged = rows(products(screen))
        assert fixed[:5] == ["401", "Scarce Sneakers $50", "50.00", "50.00 USD", "out of stock"]
        assert ranged[:5] == ["402", "Scarce Sneakers eGift", "10.00–200.00", "10.00–200.00 USD", "3 left"]
        assert rows(brands(screen))[0][5] == "1 out · 1 limited"

    assert snap_compare(app_on(sim), terminal_size=SIZE, run_before=snapshot_after(check))


async def test_payout_products_are_marked_and_empty_texts_hidden(sim):
    async with app_on(sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await apply_filters(pilot, brand_id="2")
        screen = pilot.app.screen
        name = rows(products(screen))[0][1]  # at 80 columns the name gives way to the values, not its mark
        assert name.startswith("Giftdesk US") and name.endswith("… PAYOUT")
        assert rows(products(screen))[0][4] == "unrestricted"
        await apply_filters(pilot, brand_id="6")  # Bäckerei Blau: every text is null, no categories
        assert screen.detail.name == "Bäckerei Blau"
        assert not screen.query_one("#detail-sections").display


async def test_moving_the_cursor_shows_that_brand(sim):
    async with app_on(sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down")
        assert pilot.app.screen.detail.name == "Scarce Sneakers"


# --- the rows on screen, copying, test orders ---------------------------------------


async def test_slash_filters_the_rows_on_screen_without_a_request(sim, catalog_requests):
    async with app_on(sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        await pilot.press("slash", *"sneak")
        assert [row[0] for row in rows(brands(screen))] == ["Scarce Sneakers"]
        assert screen.detail.name == "Scarce Sneakers"
        await pilot.press("escape")
        assert brands(screen).row_count == 50
        assert pilot.app.focused is brands(screen)
        assert len(catalog_requests) == 1


async def test_c_copies_the_brand_id_then_the_product_id(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        assert app.clipboard == "1"
        await pilot.press("enter", "down", "c")  # into the products, second product
        assert app.clipboard == "102"
        assert notifications(app)[-1] == "Copied the id of product Acme Books eGift: 102"


async def test_enter_on_a_product_opens_a_test_order_for_it(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter", "down", "enter")  # into Acme Books' products, the eGift
        await settle(pilot)
        assert type(app.screen).__name__ == "NewOrderScreen"
        assert app.screen.product.id == 102


async def test_out_of_stock_and_read_only_offer_no_test_order(sim):
    app = app_on(sim, readonly=True)
    opened = []
    async with app.run_test(size=SIZE) as pilot:
        app.open_new_order = opened.append
        await settle(pilot)
        await pilot.press("enter", "enter")
        assert opened == [] and notifications(app)[-1] == "Read-only: no test orders."
        assert pilot.app.screen.check_action("new_test_order", ()) is False  # not offered: hidden


# --- errors and catalog v1 --------------------------------------------------------------


def _app_with_wrong_secret(sim):
    profiles = demo_profiles(sim.base_url)
    profiles["broken"] = dataclasses.replace(
        profiles["demo-sandbox"], name="broken", secret=SecretSource.inline_demo("wrong-secret")
    )
    return build_app(
        AppSettings(profiles=profiles, profile_name="broken", client_options={"retry": RetryPolicy(attempts=1)})
    )


def test_an_error_from_the_service_is_a_notification(sim, snap_compare):
    async def check(pilot):
        await settle(pilot)
        screen = pilot.app.screen
        assert sum("Authentication failed (401)" in m for m in notifications(pilot.app)) == 1
        assert not screen.query_one(Pager).busy and brands(screen).row_count == 0
        assert "could not be loaded: r tries again" in str(screen.query_one("#detail-title").render())
        assert pilot.app.is_running

    assert snap_compare(_app_with_wrong_secret(sim), terminal_size=SIZE, run_before=snapshot_after(check))


async def test_server_errors_leave_the_screen_usable(sim_factory):
    failing = sim_factory(faults="5xx=1")
    app = build_app(
        AppSettings(
            profiles=demo_profiles(failing.base_url),
            profile_name="demo-sandbox",
            client_options={"retry": RetryPolicy(attempts=1)},
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert any("503" in m or "server" in m.lower() for m in notifications(app)), notifications(app)
        assert not app.screen.query_one(Pager).busy


def test_v1_toggle(sim, snap_compare, catalog_requests):
    async def check(pilot):
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = pilot.app.screen
        assert screen.version == 1 and screen.query_one(FilterBar).disabled
        assert pager_text(screen) == "page 1 of 6 · 300 brands   v1: flat list, no filters · as of 12:04 (3 min ago)"
        await pilot.press("n")  # v1 pages are cut here: no request
        await settle(pilot)
        assert screen.page.index == 1 and len(catalog_requests) == 1
        await pilot.press("v")
        await settle(pilot)
        assert screen.version == 2 and screen.v1_brands is None and len(catalog_requests) == 2
        await pilot.press("v")
        await settle(pilot)

    assert snap_compare(app_on(sim), terminal_size=SIZE, run_before=snapshot_after(check))


async def test_the_filter_fields_come_after_the_first_rows(sim_factory):
    # Issue 26: a faster start. The fields (a sixth of the screen's widgets) were mounted in the frame
    # after the screen's first, in front of the first rows; the bar shows a preview of them until then.
    slow = sim_factory(SimulatorSettings(faults="latency=0.5s"))
    app = app_on(slow)
    async with app.run_test(size=SIZE) as pilot:
        bar = app.screen.query_one(FilterBar)
        await pilot.pause(0.3)
        assert not bar.fields_mounted and "Country" in str(bar.render())
        await until(pilot, lambda: app.screen.query_one("#brands", RowTable).row_count > 0)
        await settle(pilot)
        assert bar.fields_mounted
