"""The Catalog screen over the local mirror (issue 15), against the real simulator.

The mirror is synced for the demo profile "demo-sandbox" (environment sandbox) into
the test's own data dir, by the screen's `S` or by tui.local.mirror directly.
"""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from apps import app_on, notifications, screen_lines, settle, until
from textual.widgets import DataTable, ProgressBar
from textual.widgets._progress_bar import Bar

from tui.api.client import ServiceClient
from tui.local.fileio import mirror_path
from tui.local.mirror import Mirror
from tui.local.mirror_sync import sync
from tui.screens.catalog_mirror import ChangesScreen
from widgets.filter_bar import FilterBar
from widgets.row_table import RowTable

SIZE = (80, 24)


async def synced_mirror(sim, credential) -> None:
    """What `giftdesk catalog sync --profile demo-sandbox` leaves behind."""
    async with ServiceClient(sim.base_url, credential.client_id, credential.client_secret) as client:
        with Mirror(mirror_path("demo-sandbox", "sandbox")) as mirror:
            await sync(mirror, client)


def rows(table: DataTable | RowTable) -> list[list[str]]:
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def note(screen) -> str:
    return str(screen.query_one("#pager-status").render())


async def search(pilot, text: str) -> None:
    """Type into the `/` box (opened first if it is not)."""
    if not pilot.app.focused or pilot.app.focused.id != "row-filter":
        await pilot.press("slash")
    await pilot.press(*text)
    await settle(pilot)


@pytest.fixture
def own_sim(sim_factory):
    return sim_factory(brands=300)


def idle_bar(screen) -> bool:
    """The hidden sync bar does not animate (an indeterminate bar redraws 15 times a second)."""
    return screen.query_one("#sync-progress", ProgressBar).query_one(Bar).auto_refresh is None


async def test_without_a_mirror_the_screen_is_live_and_s_syncs_one(own_sim):
    async with app_on(own_sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert "mirror" not in note(screen) and screen.mirror_source.mirror is None
        assert screen.check_action("mirror_changes", ()) is None  # dimmed: nothing to show yet
        assert not screen.query("#sync-progress")  # no bar until a sync needs one
        await pilot.press("S")
        await until(pilot, lambda: screen.mirror_source.mirror is not None)
        await settle(pilot)
        assert "mirror, synced just now" in note(screen)
        assert not screen.query_one("#sync-progress", ProgressBar).display and idle_bar(screen)
        assert any("Catalog mirror synced (full): 1,288 products" in n for n in notifications(pilot.app))


async def test_search_as_you_type_covers_every_country_and_page(own_sim, demo_credentials):
    await synced_mirror(own_sim, demo_credentials["acme-sandbox"])
    async with app_on(own_sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        table = screen.query_one("#brands", RowTable)
        assert "mirror, synced just now" in note(screen)
        await search(pilot, "te")
        assert screen.page.count > 1
        await search(pilot, "a")  # "tea"
        assert [row[0] for row in rows(table)] == ["Tea & Co"]
        assert screen.detail.name == "Tea & Co"
        await pilot.press("escape")  # closes the search: the whole mirror again
        await settle(pilot)
        assert screen.page.count == 300


async def test_v2_filters_apply_to_the_mirror_and_live_is_one_key_away(own_sim, demo_credentials):
    await synced_mirror(own_sim, demo_credentials["acme-sandbox"])
    async with app_on(own_sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        bar = screen.query_one(FilterBar)
        bar.input_for("country").focus()
        await pilot.press(*"gb", "enter")
        await settle(pilot)
        table = screen.query_one("#brands", RowTable)
        gb = sum(1 for b in own_sim.state.catalog.brands if b.country == "GB")
        assert screen.page.count == gb and {row[1] for row in rows(table)} == {"GB"}
        await search(pilot, "gift")
        assert {row[1] for row in rows(table)} == {"GB"} and 0 < screen.page.count <= gb
        await pilot.press("escape", "l")
        await settle(pilot)
        assert note(screen).endswith("live; mirror synced just now")
        # Drawn whole at 80 columns (issue 26: `live service (mirror` was cut).
        assert any("live; mirror synced just now" in line for line in screen_lines(pilot.app))
        assert screen.page.count == gb  # the service's own answer to CountryCode=GB


async def test_the_mirror_keeps_working_with_the_service_stopped(sim_factory, demo_credentials):
    sim = sim_factory(brands=300)
    await synced_mirror(sim, demo_credentials["acme-sandbox"])
    app = app_on(sim)
    sim.stop()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        await search(pilot, "sneak")
        assert [row[0] for row in rows(screen.query_one("#brands", RowTable))] == ["Scarce Sneakers"]
        await pilot.press("escape", "n")
        await settle(pilot)
        assert screen.page.index == 1 and screen.query_one("#brands", RowTable).row_count == 50


async def test_changes_view_lists_what_the_last_sync_found(own_sim, demo_credentials):
    await synced_mirror(own_sim, demo_credentials["acme-sandbox"])
    changed = own_sim.change_catalog(prices=3, stock=2, removed=1)
    async with app_on(own_sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        await pilot.press("S")
        await until(pilot, lambda: any("incremental" in n for n in notifications(pilot.app)))
        await pilot.press("H")
        await until(pilot, lambda: isinstance(pilot.app.screen, ChangesScreen))
        table = pilot.app.screen.query_one(DataTable)
        listed = {int(row[2]) for row in rows(table)}
        assert listed == {*changed.priced, *changed.out_of_stock, *changed.back_in_stock, *changed.removed}
        kinds = {row[1] for row in rows(table)}
        assert "removed" in kinds and kinds <= {"price up", "price down", "out of stock", "back in stock", "removed"}
        await pilot.press("escape")
        await until(pilot, lambda: pilot.app.screen is screen)


async def test_a_test_order_from_the_mirror_starts_from_the_live_product(own_sim, demo_credentials):
    from tui.screens.new_order import NewOrderScreen

    await synced_mirror(own_sim, demo_credentials["acme-sandbox"])
    async with app_on(own_sim).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search(pilot, "acme")
        await pilot.press("enter")  # leaves the search for the brands table
        await pilot.press("enter", "enter")  # the brand, then its first product
        await until(pilot, lambda: isinstance(pilot.app.screen, NewOrderScreen))
        assert pilot.app.screen.product.id == 101


async def test_a_test_order_from_the_mirror_that_cannot_reach_the_service_says_so_and_not_that_the_catalog_failed(
    own_sim, sim_factory, demo_credentials
):
    from tui.api.client import RetryPolicy

    await synced_mirror(own_sim, demo_credentials["acme-sandbox"])
    failing = sim_factory(faults="5xx=1")  # the mirror's rows show; the live product cannot be asked for
    app = app_on(failing, client_options={"retry": RetryPolicy(attempts=1)})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        await search(pilot, "acme")
        await pilot.press("enter")  # leaves the search for the brands table
        await until(pilot, lambda: screen.detail is not None)
        title = screen.query_one("#detail-title").content
        await pilot.press("enter", "enter")  # the brand, then its first product: the live product is asked for
        await until(pilot, lambda: any("server error 503" in n for n in notifications(pilot.app)))
        await pilot.pause()
        assert screen.query_one("#detail-title").content == title  # the brand's rows and detail stand
        assert not screen.pager.busy


def test_mirror_search_snapshot(own_sim, demo_credentials, snap_compare):
    asyncio.run(synced_mirror(own_sim, demo_credentials["acme-sandbox"]))

    async def check(pilot):
        await settle(pilot)
        await search(pilot, "books")
        screen = pilot.app.screen
        screen.query_one("#row-filter").cursor_blink = False  # shown, not blinking: the same picture every time
        await until(pilot, lambda: screen.detail is not None and not screen.pager.busy)
        await pilot.wait_for_scheduled_animations()

    app = app_on(own_sim)
    assert snap_compare(app, terminal_size=(160, 48), run_before=check)


async def test_back_on_the_mirror_a_live_page_still_on_its_way_does_not_replace_it(sim_factory, demo_credentials):
    await synced_mirror(sim_factory(brands=300), demo_credentials["acme-sandbox"])
    slow = sim_factory(brands=300, faults="latency=1s")  # the same catalog, every answer a second late
    async with app_on(slow).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        table = screen.query_one("#brands", RowTable)
        await pilot.press("l")  # live: page 1 of the service is asked for...
        await pilot.pause()
        await pilot.press("l", "n")  # ...and the mirror's page 2 is on screen before it comes
        await pilot.pause()
        second = rows(table)
        await pilot.pause(1.5)
        await settle(pilot)
        assert note(screen).endswith("   mirror, synced just now") and screen.page.index == 1
        assert rows(table) == second


async def test_a_sync_that_fails_removes_its_bar_and_says_why(own_sim):
    """The mirror locked by another sync throughout: the bar does not stay (issue 24 item 4)."""
    path = mirror_path("demo-sandbox", "sandbox")
    Mirror(path).close()  # made, never synced
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        async with app_on(own_sim).run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = pilot.app.screen
            await pilot.press("S")
            await until(pilot, lambda: any("being written by another sync" in n for n in notifications(pilot.app)))
            await settle(pilot)
            assert not screen.query_one("#sync-progress", ProgressBar).display and idle_bar(screen)
            assert screen.mirror_source.mirror is None
    finally:
        holder.rollback()
        holder.close()
