"""Catalog (home): what can we sell where, at what price, and is it in stock.

One page of brands is on screen and in memory at a time: a new page replaces
the rows of a RowTable (which draws only the rows in view), it never adds
widgets. Every request runs in one exclusive worker group, so a newer filter
or page cancels the request in flight and the newest answer is the one shown. Catalog v1 (the flat list)
has no paging at the service; it is paged here with the same pager.

The screen holds the page and the keys; its parts (docs/architecture.md, "The Catalog screen"): the detail
pane (widgets.brand_detail), the mirror (catalog_mirror.CatalogMirror), the kept first page (catalog_kept),
a brand in words (catalog_rows) and the filters (catalog_filters).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.widgets import DataTable
from textual.worker import Worker, WorkerState

from styles import STYLES
from tui.core.safe_text import visible
from tui.screens.base import BaseScreen
from tui.screens.catalog_filters import CATALOG_FILTERS, DEFAULT_PAGE_SIZE, catalog_query
from tui.screens.catalog_kept import FirstPageFile, KeptPage
from tui.screens.catalog_mirror import MIRROR_BINDINGS, CatalogMirror
from tui.screens.catalog_rows import BRAND_TABLE_COLUMNS, brand_cells, brand_detail, brand_row, row_matches
from tui.screens.freshness import FreshnessMixin
from widgets.brand_detail import BrandDetail
from widgets.filter_bar import FilterBar, RowFilter
from widgets.pager import Pager, PageState
from widgets.row_table import RowTable

if TYPE_CHECKING:  # the models (pydantic) load with the first live page, not before the first frame
    from tui.api.client import ServiceClient
    from tui.api.models import Brand, Category, Product

PAGE_LOADS = frozenset({"fetch_page", "fetch_v1"})  # the workers (by their methods' names) that load a page
V1_NOTE = "v1: flat list, no filters"  # catalog v1 (`v`): the pager says so, with a mirror too


class CatalogScreen(FreshnessMixin, BaseScreen):
    destination = "catalog"
    CSS_PATH = STYLES / "catalog.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    WRITE_ACTIONS = frozenset({"new_test_order"})
    EXPORT_NAME = "catalog-page"  # e: the page's brands as shown (export_rows)
    AUTO_FOCUS = "#brands"  # not BaseScreen's first DataTable: that is the detail pane's products
    COMPACT_FOOTER = True  # every everyday key fits in 80 columns
    REFRESH_GROUPS = frozenset({"catalog"})
    # The footer shows keys in this order and cuts what does not fit (80 columns): the everyday
    # keys first, then paging; first/last/go-to page are said on the page line, in Help and the palette.
    BINDINGS = [
        Binding("f", "edit_filters", "Filters", id="catalog.filters"),
        Binding("slash", "filter_rows", "Filter rows", key_display="/", id="catalog.filter-rows", priority=True),
        Binding("c", "copy_id", "Copy id", id="catalog.copy"),
        Binding("o", "new_test_order", "Test order", id="catalog.order"),
        Binding("s", "check_stock", "Stock", id="catalog.stock", show=False),
        Binding("k", "next_category", "Category", id="catalog.category", show=False),
        Binding("v", "toggle_version", "v1/v2", id="catalog.version"),
        Binding("r", "reload", "Reload", id="catalog.reload"),
        Binding("n", "page(1)", "Next page", id="catalog.next"),
        Binding("p", "page(-1)", "Prev page", id="catalog.previous"),
        *MIRROR_BINDINGS,
        Binding("less_than_sign", "first_page", "First page", key_display="<", id="catalog.first", show=False),
        Binding("greater_than_sign", "last_page", "Last page", key_display=">", id="catalog.last", show=False),
        Binding("g", "jump_to_page", "Go to page", id="catalog.jump", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.version = 2
        self.filters: dict[str, str] = {}
        self.page = PageState(size=DEFAULT_PAGE_SIZE)
        self.brands: list[Brand] = []  # the page on screen: the only brands kept (v2)
        self.shown: list[Brand] = []  # the rows of the table: `brands` after the `/` filter
        self.detail: Brand | None = None
        self.detail_follows = False  # new rows are in the table; their detail comes a frame later
        self.v1_brands: list[Brand] | None = None  # v1 only: the service gives the whole list
        self.country_names: dict[str, str] = {}  # code: name, from the v2.1 catalog once a session
        self.category: Category | None = None  # `k`: only the page's brands of this category
        # The first page as the last start drew it, on screen until the live page comes.
        self.kept: KeptPage | None = None
        self.first_page = FirstPageFile(self)
        self.mirror_source = CatalogMirror(self, self)

    def compose_body(self) -> ComposeResult:
        self.mirror_source.open()
        if not self.from_mirror:
            self.read_kept_page()
        yield FilterBar(CATALOG_FILTERS, id="filters")
        yield Pager("brand", id="pager")
        yield RowFilter(id="row-filter")
        with Container(id="catalog-body"):
            yield RowTable(BRAND_TABLE_COLUMNS, cells=brand_cells, id="brands")
            yield BrandDetail(id="brand-detail")

    def export_rows(self) -> tuple[list[str], list[list[str]]]:
        """The page's brands as the table shows them (it draws only the rows in view)."""
        return [column.title for column in BRAND_TABLE_COLUMNS], [
            [cell.plain for cell in brand_row(brand)] for brand in self.shown
        ]

    def on_mount(self) -> None:
        self.query_one("#brands", RowTable).focus()
        if self.kept is not None:
            self.show_kept_page()
        self.reload(after_kept_page=self.kept is not None)

    def on_unmount(self) -> None:
        self.mirror_source.close()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        allowed = super().check_action(action, parameters)
        return allowed and self.mirror_source.check_action(action)

    @property
    def pager(self) -> Pager:
        return self.query_one(Pager)

    @property
    def detail_pane(self) -> BrandDetail:
        return self.query_one(BrandDetail)

    @property
    def from_mirror(self) -> bool:
        """Whether the rows come from the mirror (CatalogMirror.from_mirror)."""
        return self.mirror_source.from_mirror

    # --- requests -------------------------------------------------------------------

    def reload(self, *, fresh: bool = False, after_kept_page: bool = False) -> None:
        """Ask for what the current version, filters and page say; the pager says which.
        `fresh`: the v1 list from the service (within its limits), not the local copy;
        `after_kept_page`: the v2 page is asked for once the kept page's frame is drawn."""
        if self.mirror_source.mirror is not None:  # v1 is live only: the note says both
            self.pager.note = (f"{V1_NOTE} · " if self.version == 1 else "") + self.mirror_source.note()
        if self.from_mirror:  # answered at once: the pager says "loading" never, and changes once
            self.workers.cancel_group(self, "catalog")  # a live answer still on its way must not replace it
            page, brands = self.mirror_source.page(self.query_one(RowFilter).value)
            if (page, brands) == (self.page, self.brands):  # a key that changes no result draws no rows
                self.pager.busy = False
            else:
                self.show_page(page, brands)
            return
        self.pager.activity = self._loading_words()
        self.pager.busy = True
        if self.version == 1:
            self.fetch_v1(fresh)
        else:
            self.fetch_page(after_kept_page)

    def _loading_words(self) -> str:
        if self.app.session.service_starting:
            words = "starting the demo service…"
        else:
            words = "loading the v1 catalog…" if self.version == 1 else f"loading page {self.page.index + 1:,}…"
        return words + (f" · {self.kept.label}" if self.kept is not None else "")

    async def _client(self) -> ServiceClient:
        client = await self.app.session.client()
        self.pager.activity = self._loading_words()  # the service is up: now the page itself
        return client

    @work(exclusive=True, exit_on_error=False, group="catalog")
    async def fetch_page(self, after_kept_page: bool) -> None:
        if after_kept_page:  # its frame first: the models' and client's imports below take the loop for a while
            await self.app.start_drawn()
        self.app.session.start_service()  # the demo's, if its start put it off for the kept page's frame (tui.demo)
        query = catalog_query(self.filters, self.page)  # the models' import, while the service starts
        client = await self._client()
        page = await client.catalog(query)
        self.show_page(PageState(page.page_index, self.page.size, page.count), page.items)

    @work(exclusive=True, exit_on_error=False, group="catalog-countries")
    async def load_country_names(self) -> None:
        from tui.screens.catalog_v21 import country_names

        self.country_names = await country_names(self.app.session)
        if self.country_names and self.detail is not None:
            self.show_detail(self.detail)

    @work(exclusive=True, exit_on_error=False, group="catalog")
    async def fetch_v1(self, fresh: bool) -> None:
        client = await self._client()
        answer = await self.app.session.copies().catalog_v1(client, fresh=fresh)
        self.v1_brands = answer.value
        self.show_freshness(answer)
        self.show_v1_page(PageState(0, self.page.size, len(self.v1_brands)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # BaseScreen's handler runs too (Textual calls each class's) and reports the error. Only a page's load
        # failing is the catalog's: a test order from the mirror shares its group (a new page cancels it).
        if event.worker.name in PAGE_LOADS and event.state == WorkerState.ERROR:
            self.call_after_refresh(self.first_content_shown)
            self.pager.busy = False
            if self.kept is not None:
                self.pager.note = self.kept.label
            self.detail_pane.retitle(Text("The catalog could not be loaded: r tries again.", style="italic"))

    # --- showing a page ---------------------------------------------------------------

    def show_page(self, page: PageState, brands: list[Brand]) -> None:
        self.page, self.brands = page, brands
        self.pager.state, self.pager.busy = page, False
        self.kept = None
        self.fill_brand_table()
        if not self.country_names and not self.from_mirror:  # after the rows' frame: the names are a help
            self.call_after_refresh(self.load_country_names)
        if self.keeps_first_page():
            self.call_after_refresh(self.keep_first_page)

    # --- the first page, kept for the next start --------------------------------------------

    def read_kept_page(self) -> None:
        self.kept = self.first_page.read(self.page.size)
        if self.kept is not None:
            self.page = self.kept.page  # the pager says no page count until the service answers

    def show_kept_page(self) -> None:
        """The kept page's rows in the first frame; its cursor brand's detail after that frame is drawn
        (the products table is fitted to the pane's width, which the first layout gives)."""
        assert self.kept is not None
        self.query_one("#brands", RowTable).set_rows(self.kept.brands)
        self.run_worker(self._kept_detail_after_start(), group="kept-detail", exit_on_error=False)

    async def _kept_detail_after_start(self) -> None:
        # Not a frame later: the start's first frame is dropped inside Textual's start-up batch (GiftdeskApp
        # _draw_start_whole), so that callback would run before the rows reach the terminal.
        await self.app.start_drawn()
        self.call_after_refresh(self.show_cursor_brand)

    def keeps_first_page(self) -> bool:
        """Whether this page is the first page as a start draws it: live, v2, unfiltered."""
        return (
            self.page.index == 0
            and self.version == 2
            and not self.from_mirror
            and not self.filters
            and not self.query_one(RowFilter).value
            and bool(self.brands)
        )

    def keep_first_page(self) -> None:
        if self.keeps_first_page():
            self.first_page.keep(self.page, [(brand_row(brand), brand_detail(brand)) for brand in self.brands])

    def show_v1_page(self, page: PageState) -> None:
        assert self.v1_brands is not None
        start = page.index * page.size
        self.show_page(page, self.v1_brands[start : start + page.size])

    def fill_brand_table(self) -> None:
        needle = "" if self.from_mirror else self.query_one(RowFilter).value  # the mirror searched already
        self.shown = [
            brand
            for brand in self.brands
            if row_matches(brand, needle)
            and (self.category is None or any(c.id == self.category.id for c in brand.categories))
        ]
        # The rows are drawn first (only those in view); the detail pane (which
        # changes sizes, so costs a layout pass) follows a frame later.
        self.detail_follows = True
        self.query_one("#brands", RowTable).set_rows(self.shown)
        self.call_after_refresh(self.detail_after_rows)

    def detail_after_rows(self) -> None:
        self.detail_follows = False
        self.show_cursor_brand()
        # The rows and their detail are drawn: the app starts what waited for them (a moment later).
        self.call_after_refresh(self.first_content_shown)

    def first_content_shown(self) -> None:
        """The first rows (or why there are none) are on screen: what the start put off comes now,
        the filter bar's fields (a preview of them until then), and the app's watch list."""
        self.call_later(self.query_one(FilterBar).mount_fields)
        self.app.start_screen_shown()

    @on(RowTable.RowHighlighted, "#brands")
    def cursor_moved(self) -> None:
        if not self.detail_follows:  # not the highlight of new rows: that one waits for their frame
            self.show_cursor_brand()

    def show_cursor_brand(self) -> None:
        row = self.query_one("#brands", RowTable).cursor_row
        if self.kept is not None:
            if 0 <= row < len(self.kept.brands):
                self.detail_pane.show(*self.kept.brands[row].detail)
            return
        brand = self.shown[row] if 0 <= row < len(self.shown) else None
        if brand is None or brand is not self.detail:
            self.show_detail(brand)

    def show_detail(self, brand: Brand | None) -> None:
        self.detail = brand
        if brand is None:
            self.detail_pane.show_message(
                "No brands match these filters." if not self.brands else "No rows on this page match the / filter."
            )
        else:
            self.detail_pane.show(*brand_detail(brand, self.country_names.get(brand.country_code)))

    def on_resize(self) -> None:
        # The products' room changed (e.g. the pane moved beside the table); the layout after this says how much.
        self.call_after_refresh(self.detail_pane.refit)

    # --- filters and paging ------------------------------------------------------------

    @on(FilterBar.Applied)
    def apply_filters(self, event: FilterBar.Applied) -> None:
        self.filters = event.values
        self.page = PageState(0, int(event.values.get("page_size", DEFAULT_PAGE_SIZE)), self.page.count)
        target = self.filters.get("target_currency")
        self.pager.note = f"prices in {target.upper()}" if target else ""
        self.query_one("#brands", RowTable).focus()
        self.reload()

    def action_reload(self) -> None:
        self.reload(fresh=True)

    def draw_freshness(self, text: str) -> None:
        if self.version == 1:
            note = self.mirror_source.note()  # "" without a mirror
            self.pager.note = f"{V1_NOTE} · {text}" + (f" · {note}" if note else "")

    def go_to_page(self, index: int) -> None:
        page = self.page.at(index)
        if page == self.page and self.brands:
            return
        self.page = page
        if self.version == 1 and self.v1_brands is not None:
            self.show_v1_page(page)
        else:
            self.reload()

    def action_page(self, step: int) -> None:
        self.go_to_page(self.page.index + step)

    def action_first_page(self) -> None:
        self.go_to_page(0)

    def action_last_page(self) -> None:
        self.go_to_page(self.page.pages - 1)

    def action_jump_to_page(self) -> None:
        self.pager.focus_jump()

    @on(Pager.JumpRequested)
    def jump_requested(self, event: Pager.JumpRequested) -> None:
        self.query_one("#brands", RowTable).focus()
        self.go_to_page(event.index)

    def action_edit_filters(self) -> None:
        self.query_one(FilterBar).focus_field("country")

    def accept_jump(self, argument: str) -> None:
        """`:catalog 42` shows brand 42; `:catalog tea` filters by name."""
        values = {"brand_id": argument} if argument.strip().isdigit() else {"name": argument.strip()}
        if self.version == 1:
            self.action_toggle_version()
        self.filter_by(values)

    def filter_by(self, values: dict[str, str]) -> None:
        """The filter bar shows `values`, and they apply as if typed there."""
        self.query_one(FilterBar).set_values(values)
        self.post_message(FilterBar.Applied(values))

    def action_toggle_version(self) -> None:
        self.version = 1 if self.version == 2 else 2
        self.v1_brands = None  # the whole v1 list is dropped as soon as v1 is left
        self.query_one(FilterBar).disabled = self.version == 1
        self.pager.note = V1_NOTE if self.version == 1 else ""
        self.reload_from_start()

    def reload_from_start(self) -> None:
        """Page 1 again, its count unknown: what the rows come from changed (v1 or v2, live or the mirror)."""
        self.page = PageState(0, self.page.size, 0)
        self.reload()

    # --- the mirror (CatalogMirror: Textual looks for the actions on the screen) --------------

    def action_toggle_live(self) -> None:
        self.mirror_source.toggle_live()

    def action_mirror_changes(self) -> None:
        self.mirror_source.show_changes()

    @work(exclusive=True, exit_on_error=False, group="mirror-sync")
    async def action_sync_mirror(self) -> None:
        await self.mirror_source.sync()

    @work(exclusive=True, exit_on_error=False, group="catalog")
    async def order_live_product(self, product_id: int) -> None:
        """A test order from the mirror, in the catalog's group: a page asked for meanwhile cancels it."""
        await self.mirror_source.order_live_product(product_id)

    # --- the rows on screen -------------------------------------------------------------

    def action_filter_rows(self) -> None:
        row_filter = self.query_one(RowFilter)
        row_filter.placeholder = (
            "search the mirror: brands, products, categories, every country (esc closes)"
            if self.from_mirror
            else "filter the rows on screen (esc closes)"
            if self.version == 1 or self.page.count <= len(self.brands)
            else f"filter this page's {len(self.brands)} rows only; enter: the whole catalog by name (esc closes)"
        )
        row_filter.open()

    @on(RowFilter.Changed, "#row-filter")
    def row_filter_changed(self) -> None:
        if self.from_mirror:  # search as you type, over every page
            self.page = PageState(0, self.page.size, self.page.count)
            self.reload()
        else:
            self.fill_brand_table()

    @on(RowFilter.Submitted, "#row-filter")
    @on(RowFilter.Closed)
    def row_filter_done(self, event: RowFilter.Submitted | RowFilter.Closed) -> None:
        needle = event.value.strip() if isinstance(event, RowFilter.Submitted) else ""
        if needle and not self.from_mirror and self.version == 2 and self.page.count > len(self.brands):
            self.query_one(RowFilter).action_close()  # the page's filter gives way to the service's, over every page
            self.filter_by({**self.query_one(FilterBar).values(), "name": needle})
            self.notify(f"The whole catalog, by name: {needle} (/ filters only the page shown).", title="Catalog")
        self.query_one("#brands", RowTable).focus()

    def _say_if_still_loading(self) -> bool:
        """The kept page's rows are pictures: what needs a brand waits for the live page."""
        if self.kept is not None:
            self.notify("The catalog is still loading: a moment.", severity="warning")
        return self.kept is not None

    def _selected_product(self) -> Product | None:
        products = self.detail_pane.products
        if self.detail is None or not products.display or not self.detail.products:
            return None
        return self.detail.products[min(products.cursor_row, len(self.detail.products) - 1)]

    def action_copy_id(self) -> None:
        """The product's id when the product list has focus, else the brand's."""
        product = self._selected_product() if self.focused is self.detail_pane.products else None
        if product is not None:
            what, value = f"product {product.name}", str(product.id)
        elif self.detail is not None and self.detail.internal_id is not None:  # a v1 brand has no id
            what, value = f"brand {self.detail.name}", self.detail.internal_id
        else:
            if not self._say_if_still_loading():
                self.notify(
                    "A v1 brand has no id to copy." if self.detail is not None else "No brand to copy yet.",
                    severity="warning",
                )
            return
        self.app.copy_to_clipboard(value)
        self.notify(f"Copied the id of {what}: {value}")

    @on(RowTable.RowSelected, "#brands")
    def brand_selected(self) -> None:
        if self.detail_pane.products.display:
            self.detail_pane.products.focus()

    @on(DataTable.RowSelected, "#products")
    def product_selected(self) -> None:
        if self.app.readonly:
            self.notify("Read-only: no test orders.", severity="warning")
        else:
            self.action_new_test_order()

    def _chosen_product(self) -> Product | None:
        """The highlighted product; without one, says why (none chosen, or the catalog still loading)."""
        product = self._selected_product()
        if product is None and not self._say_if_still_loading():
            self.notify("Choose a product first: enter on a brand, then a product.", severity="warning")
        return product

    def action_check_stock(self) -> None:
        """The highlighted product's stock at its face value (the least of a range), by its SKU, before ordering."""
        if (product := self._chosen_product()) is not None:
            self.check_stock(product)

    @work(exclusive=True, exit_on_error=False, group="catalog-stock")
    async def check_stock(self, product: Product) -> None:
        from tui.screens.catalog_v21 import stock_check

        words, stocked = await stock_check(self.app.session, product)
        self.notify(words, title="Stock", severity="information" if stocked else "warning")

    def action_next_category(self) -> None:
        """The next category (from the v2.1 catalog's categories), then none: the page's brands of it only."""
        if self._say_if_still_loading():  # it filters the live page's brands: none yet
            return
        if self.version == 1 or self.from_mirror:
            self.notify("The category filter is for the live v2 page (v, l).", severity="warning")
            return
        self.choose_next_category()

    @work(exclusive=True, exit_on_error=False, group="catalog-category")
    async def choose_next_category(self) -> None:
        from tui.screens.catalog_v21 import categories, next_category

        self.category = next_category(await categories(self.app.session), self.category)
        self.pager.note = f"category {visible(self.category.name)} (k: next)" if self.category else ""
        self.fill_brand_table()

    def action_new_test_order(self) -> None:
        product = self._chosen_product()
        if product is None:
            return
        if product.count == 0:
            self.notify(f"{product.name} is out of stock.", severity="warning")
            return
        if self.from_mirror:
            self.order_live_product(product.id)
            return
        self.app.open_new_order(product, self.detail.currency_code if self.detail else None)
