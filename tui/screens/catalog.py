"""Catalog (home): what can we sell where, at what price, and is it in stock.

One page of brands is on screen and in memory at a time: a new page replaces
the rows of a RowTable (which draws only the rows in view), it never adds
widgets. Every request runs in one exclusive worker group, so a newer filter
or page cancels the request in flight and the newest answer is the one shown. Catalog v1 (the flat list)
has no paging at the service; it is paged here with the same pager.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from styles import STYLES
from tui.core.safe_text import visible
from tui.local.first_pages import first_page_path, read_first_page, write_first_page
from tui.screens.catalog_kept import Detail, KeptBrand, KeptPage, kept_page, kept_page_json, worth_keeping
from tui.screens.catalog_mirror import MIRROR_BINDINGS, MirrorSource
from tui.screens.freshness import FreshnessMixin
from widgets.filter_bar import FilterBar, FilterField, RowFilter, int_between, letters, positive_int, real_date
from widgets.money import format_amount, format_range, to_decimal
from widgets.pager import Pager, PageState
from widgets.row_table import RowColumn, RowTable
from widgets.safe_text import CELL_LIMIT, safe, safe_row

if TYPE_CHECKING:  # the models (pydantic) load with the first live page, not before the first frame
    from pathlib import Path

    from tui.api.client import ServiceClient
    from tui.api.models import Brand, CatalogQuery, Category, Product

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100  # DESIGN: the service publishes no maximum; we cap at 100
V1_NOTE = "v1: flat list, no filters"  # catalog v1 (`v`): the pager says so, with a mirror too

CATALOG_FILTERS = (
    FilterField("country", "Country", "US", 4, (letters(2, "US"),)),
    FilterField("currency", "Currency", "USD", 5, (letters(3, "USD"),)),
    FilterField("name", "Name", "part of name", 14),
    FilterField("brand_id", "Brand id", "", 8, (positive_int(),)),
    FilterField("product_id", "Product id", "", 8, (positive_int(),)),
    FilterField("modified_since", "Since", "YYYY-MM-DD", 11, (real_date(),)),
    FilterField("target_currency", "Prices in", "EUR", 5, (letters(3, "EUR"),)),
    FilterField("page_size", "Per page", str(DEFAULT_PAGE_SIZE), 5, (int_between(1, MAX_PAGE_SIZE),)),
)

# Fixed widths: a new page then only repaints the table, with no layout pass
# (a whole-screen reflow); the detail pane holds the full name.
# The brand's name takes what room there is: every column shows whole in 80 columns and in the wide layout's 78.
BRAND_COLUMNS = (("Brand", 17), ("Ctry", 4), ("Cur", 3), ("Prods", 5), ("Price", 18), ("Stock", 17))
BRAND_TABLE_COLUMNS = tuple(
    RowColumn(label.lower(), label, width, grow=int(label == "Brand")) for label, width in BRAND_COLUMNS
)
PRODUCT_COLUMNS = ("Id", "Product", "Face value", "Client price", "Stock", "Modified")
PAYOUT_MARK = " PAYOUT"  # after a payout product's name; kept when the name is cut
SHRINKS, SHRINK_LEAST = 1, 16  # the product's name gives way first, to a readable width (whole at wider sizes)
KEEP_LEAST = 4  # id, name, face value and price: never left out
TEXT_SECTIONS = (
    ("description", "Description"),
    ("redemption_instructions", "How to redeem"),
    ("terms", "Terms"),
    ("disclaimer", "Disclaimer"),
)


# --- what a brand and a product look like in words ------------------------------


def is_payout_product(product: Product) -> bool:
    """Payout products are known by name (their card codes are payout URLs)."""
    return "payout" in product.name.lower()


def stock_words(count: int | None) -> str:
    if count is None:
        return "unrestricted"
    if count == 0:
        return "out of stock"
    return f"{count:,} left"


def stock_summary(products: list[Product]) -> str:
    if not products:
        return "no products"
    out = sum(1 for p in products if p.count == 0)
    limited = sum(1 for p in products if p.count)
    if out == len(products):
        return "out of stock"
    parts = ([f"{out} out"] if out else []) + ([f"{limited} limited"] if limited else [])
    return " · ".join(parts) or "in stock"


def price_span(products: list[Product]) -> str:
    """Cheapest to dearest client price over the brand's products."""
    if not products:
        return "—"
    currencies = {p.price.currency_code for p in products}
    if len(currencies) > 1:
        return "mixed currencies"
    low = min(to_decimal(p.price.min) for p in products)
    high = max(to_decimal(p.price.max) for p in products)
    return format_range(low, high, currencies.pop())


def face_value(product: Product, currency: str) -> str:
    """Fixed, or the allowed range; the currency is said once, in the detail title."""
    if product.is_fixed_value:
        return format_amount(product.min_face_value, currency)
    return f"{format_amount(product.min_face_value, currency)}–{format_amount(product.max_face_value, currency)}"


def brand_row(brand: Brand) -> tuple[Text, ...]:
    return safe_row(
        brand.name,
        brand.country_code,
        brand.currency_code,
        str(len(brand.products)),
        price_span(brand.products),
        stock_summary(brand.products),
    )


def detail_title(brand: Brand, country_name: str | None = None) -> Text:
    title = safe(brand.name, style="bold")  # the whole line's style: the dim part is bold too
    country = f"{brand.country_code} {country_name}" if country_name else brand.country_code
    title.append_text(
        safe(
            f"  id {brand.internal_id or '(none: v1)'} · {country} · face values in {brand.currency_code}",
            style="dim",
        )
    )
    if not brand.products:
        title.append(" · no products", style="italic")
    return title


def brand_sections(brand: Brand) -> dict[str, str]:
    """The detail pane's texts by section (TEXT_SECTIONS, and the categories)."""
    sections = {attribute: getattr(brand, attribute) or "" for attribute, _ in TEXT_SECTIONS}
    sections["categories"] = ", ".join(category.name for category in brand.categories)
    return sections


def product_row(product: Product, currency: str) -> tuple[Text, ...]:
    name = safe(product.name, limit=CELL_LIMIT)
    if is_payout_product(product):
        name.append(PAYOUT_MARK, style="bold magenta")
    stock = Text(stock_words(product.count), style="bold red" if product.count == 0 else "")
    return safe_row(
        product.id,
        name,
        face_value(product, currency),
        format_range(product.price.min, product.price.max, product.price.currency_code),
        stock,
        (product.modified_date or "")[:10],
    )


def row_matches(brand: Brand, needle: str) -> bool:
    """The `/` filter: brand name, id, country or currency, or a product's name or id."""
    needle = needle.strip().lower()
    if not needle:
        return True
    haystack = [brand.name, brand.internal_id or "", brand.country_code, brand.currency_code]
    haystack += [f"{p.id} {p.name}" for p in brand.products]
    return any(needle in text.lower() for text in haystack)


def catalog_query(filters: dict[str, str], page: PageState) -> CatalogQuery:
    """Validated filter values (FilterBar) -> the v2 query for one page."""
    from tui.api.models import CatalogQuery

    def code(name: str) -> str | None:
        value = filters.get(name)
        return value.upper() if value else None

    def number(name: str) -> int | None:
        value = filters.get(name)
        return int(value) if value else None

    return CatalogQuery(
        country_code=code("country"),
        currency_code=code("currency"),
        name=filters.get("name"),
        brand_id=number("brand_id"),
        product_id=number("product_id"),
        modified_date=filters.get("modified_since"),
        target_currency=code("target_currency"),
        page_size=page.size,
        page_index=page.index,
    )


MAX_PRODUCT_ROWS = 11  # more scroll inside the table


def refill(table: DataTable, columns: tuple[str, ...], rows: Iterable[tuple[Text, ...]], room: int = 0) -> None:
    """Replace every row in one go, each column as wide as its widest cell. The widths are
    given, not left to DataTable: it measures new cells when next idle, and a frame drawn
    before that (a loaded machine) kept the labels' widths.

    With a `room` (cells), nothing is cut but the product names: they give way (with …, down
    to SHRINK_LEAST), then the last columns (the date, then stock) are left out whole, so that
    the values and prices show at 80 columns.
    """
    rows = list(rows)
    widths = [max([cell_len(label), *(row[index].cell_len for row in rows)]) for index, label in enumerate(columns)]
    keep = list(range(len(columns)))

    def others() -> int:  # DataTable pads each cell by 1 either side
        return sum(widths[index] + 2 for index in keep if index != SHRINKS) + 2

    while room and len(keep) > KEEP_LEAST and others() + SHRINK_LEAST > room:
        keep.pop()
    if room:
        widths[SHRINKS] = max(SHRINK_LEAST, min(widths[SHRINKS], room - others()))
    table.clear(columns=True)
    for index in keep:
        table.add_column(columns[index], width=widths[index])
    table.add_rows(
        [tuple(_cut(row[index], widths[index]) if index == SHRINKS else row[index] for index in keep) for row in rows]
    )


def _cut(cell: Text, width: int) -> Text:
    """The cell in `width` cells, its end an ellipsis; a payout product keeps its mark whole."""
    if cell.cell_len <= width:
        return cell
    mark = len(PAYOUT_MARK) if cell.plain.endswith(PAYOUT_MARK) else 0
    name = cell[: len(cell.plain) - mark]
    name.truncate(width - mark, overflow="ellipsis")
    return name + cell[len(cell.plain) - mark :] if mark else name


def brand_detail(brand: Brand, country_name: str | None = None) -> Detail:
    """The detail pane's parts for `brand`: title (the country's name beside its code when known), products, texts."""
    return (
        detail_title(brand, country_name),
        [product_row(product, brand.currency_code) for product in brand.products],
        brand_sections(brand),
    )


def brand_cells(brand: Brand | KeptBrand) -> tuple[Text, ...]:
    return brand.row if isinstance(brand, KeptBrand) else brand_row(brand)


# --- the screen -------------------------------------------------------------------


class CatalogScreen(FreshnessMixin, MirrorSource):
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
        Binding("slash", "filter_rows", "Filter rows", key_display="/", id="catalog.filter-rows"),
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
        self.kept_json: dict[str, Any] | None = None  # what is kept, as read or last written (`worth_keeping`)

    def compose_body(self) -> ComposeResult:
        self.open_mirror()
        if not self.from_mirror:
            self.read_kept_page()
        yield FilterBar(CATALOG_FILTERS, id="filters")
        yield Pager("brand", id="pager")
        yield RowFilter(id="row-filter")
        with Container(id="catalog-body"):
            yield RowTable(BRAND_TABLE_COLUMNS, cells=brand_cells, id="brands")
            with VerticalScroll(id="brand-detail"):
                yield Static("", id="detail-title")
                yield DataTable(id="products", cursor_type="row")
                yield Static("", id="detail-sections")

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
        self.close_mirror()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        allowed = super().check_action(action, parameters)
        return allowed and self.check_mirror_action(action)

    @property
    def pager(self) -> Pager:
        return self.query_one(Pager)

    # --- requests -------------------------------------------------------------------

    def reload(self, *, fresh: bool = False, after_kept_page: bool = False) -> None:
        """Ask for what the current version, filters and page say; the pager says which.
        `fresh`: the v1 list from the service (within its limits), not the local copy;
        `after_kept_page`: the v2 page is asked for once the kept page's frame is drawn."""
        if self.mirror is not None:  # v1 is live only: the note says both
            self.pager.note = (f"{V1_NOTE} · " if self.version == 1 else "") + self.source_note()
        if self.from_mirror:  # answered at once: the pager says "loading" never, and changes once
            self.workers.cancel_group(self, "catalog")  # a live answer still on its way must not replace it
            page, brands = self.mirror_page(self.query_one(RowFilter).value)
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
        # BaseScreen's handler runs too (Textual calls each class's) and reports the error.
        if event.worker.group == "catalog" and event.state == WorkerState.ERROR:
            self.call_after_refresh(self.first_content_shown)
            self.pager.busy = False
            if self.kept is not None:
                self.pager.note = self.kept.label
            self.query_one("#detail-title", Static).update(
                Text("The catalog could not be loaded: r tries again.", style="italic")
            )

    # --- showing a page ---------------------------------------------------------------

    def show_page(self, page: PageState, brands: list[Brand]) -> None:
        self.page, self.brands = page, brands
        self.pager.state, self.pager.busy = page, False
        self.kept = None
        self.fill_brand_table()
        if not self.country_names and not self.from_mirror:
            self.load_country_names()
        if self.keeps_first_page():
            self.call_after_refresh(self.keep_first_page)

    # --- the first page, kept for the next start --------------------------------------------

    @property
    def first_page_path(self) -> Path:
        profile = self.app.session.profile
        return first_page_path(profile.mirror_name, self.app.session.environment, demo=profile.is_demo)

    def read_kept_page(self) -> None:
        """The first page as the last start drew it, if one was kept (in this shape, of this page size)."""
        kept = read_first_page(self.first_page_path)
        found = kept_page(kept, self.page.size) if kept is not None else None
        if found is not None:
            self.kept_json, self.kept = kept, found
            self.page = found.page  # the pager says no page count until the service answers

    def show_kept_page(self) -> None:
        """The kept page's rows in the first frame; its cursor brand's detail a frame later, as a live page's
        (the products table is fitted to the pane's width, which the first layout gives)."""
        assert self.kept is not None
        self.query_one("#brands", RowTable).set_rows(self.kept.brands)
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
        if not self.keeps_first_page():
            return
        page = kept_page_json(self.page, [(brand_row(brand), brand_detail(brand)) for brand in self.brands])
        if worth_keeping(self.kept_json, page):
            self.kept_json = page
            self.run_worker(
                partial(write_first_page, self.first_page_path, page),
                thread=True,
                group="keep-first-page",
                exit_on_error=False,
            )

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
                self._show_detail_parts(*self.kept.brands[row].detail)
            return
        brand = self.shown[row] if 0 <= row < len(self.shown) else None
        if brand is None or brand is not self.detail:
            self.show_detail(brand)

    def show_detail(self, brand: Brand | None) -> None:
        self.detail = brand
        if brand is None:
            self._show_detail_parts(
                Text(
                    "No brands match these filters." if not self.brands else "No rows on this page match the / filter.",
                    style="italic",
                ),
                [],
                {},
            )
        else:
            self._show_detail_parts(*brand_detail(brand, self.country_names.get(brand.country_code)))

    def on_resize(self) -> None:
        self.call_after_refresh(self._refit_products)  # their room changed (e.g. the detail moved beside the table)

    def _refit_products(self) -> None:
        if self.kept is not None:
            self.show_cursor_brand()
        elif self.detail is not None:
            self.show_detail(self.detail)

    def _products_room(self, rows: int) -> int:
        """The cells the products table has across (0 before the first layout: no fitting then)."""
        # Narrow, the pane is short and its texts nearly always scroll: its scroll bar is kept room for.
        detail = self.query_one("#brand-detail")
        room = detail.content_region.width - (0 if self.has_class("-wide") else detail.styles.scrollbar_size_vertical)
        return max(0, room - (2 if rows > MAX_PRODUCT_ROWS else 0))  # the table's own scroll bar past that

    def _show_detail_parts(self, title: Text, product_rows: list[tuple[Text, ...]], sections: dict[str, str]) -> None:
        products = self.query_one("#products", DataTable)
        products.display = bool(product_rows)
        # One line, fixed height: no whole-screen layout pass for it.
        self.query_one("#detail-title", Static).update(title, layout=False)
        if not product_rows:
            products.clear()
        else:
            refill(products, PRODUCT_COLUMNS, product_rows, self._products_room(len(product_rows)))
            # An explicit height: DataTable measures its rows on idle and does not
            # re-lay out an "auto" height, so it could stay 0 rows tall.
            # + the header, + a line for the horizontal scrollbar narrow screens need.
            products.styles.height = min(len(product_rows), MAX_PRODUCT_ROWS) + 2
        self._show_sections(sections)

    def _show_sections(self, texts: dict[str, str]) -> None:
        """Categories and the brand's texts, a blank line apart, in one widget; a section with no text is left out."""
        titles = {"categories": "Categories", **dict(TEXT_SECTIONS)}
        parts = [
            Text.assemble((f"{title}\n", "bold"), safe(text, multiline=True))
            for attribute, title in titles.items()
            if (text := (texts.get(attribute) or "").strip())
        ]
        sections = self.query_one("#detail-sections", Static)
        sections.display = bool(parts)
        shown = Text("\n\n").join(parts)
        if parts and sections.content != shown:  # neighbours often share texts: skip a layout pass
            sections.update(shown)

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
            self.pager.note = f"{V1_NOTE} · {text}" + (f" · {self.source_note()}" if self.mirror is not None else "")

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
        self.query_one(FilterBar).set_values(values)
        self.post_message(FilterBar.Applied(values))

    def action_toggle_version(self) -> None:
        self.version = 1 if self.version == 2 else 2
        self.v1_brands = None  # the whole v1 list is dropped as soon as v1 is left
        self.query_one(FilterBar).disabled = self.version == 1
        self.pager.note = V1_NOTE if self.version == 1 else ""
        self.page = PageState(0, self.page.size, 0)
        self.reload()

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
            bar = self.query_one(FilterBar)
            values = {**bar.values(), "name": needle}
            bar.set_values(values)
            self.post_message(FilterBar.Applied(values))
            self.notify(f"The whole catalog, by name: {needle} (/ filters only the page shown).", title="Catalog")
        self.query_one("#brands", RowTable).focus()

    def _say_if_still_loading(self) -> bool:
        """The kept page's rows are pictures: what needs a brand waits for the live page."""
        if self.kept is not None:
            self.notify("The catalog is still loading: a moment.", severity="warning")
        return self.kept is not None

    def _selected_product(self) -> Product | None:
        products = self.query_one("#products", DataTable)
        if self.detail is None or not products.display or not self.detail.products:
            return None
        return self.detail.products[min(products.cursor_row, len(self.detail.products) - 1)]

    def action_copy_id(self) -> None:
        """The product's id when the product list has focus, else the brand's."""
        product = self._selected_product() if self.focused is self.query_one("#products") else None
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
        if self.query_one("#products", DataTable).display:
            self.query_one("#products", DataTable).focus()

    @on(DataTable.RowSelected, "#products")
    def product_selected(self) -> None:
        if self.app.readonly:
            self.notify("Read-only: no test orders.", severity="warning")
        else:
            self.action_new_test_order()

    def action_check_stock(self) -> None:
        """The highlighted product's stock at its face value (the least of a range), by its SKU, before ordering."""
        product = self._selected_product()
        if product is None:
            if not self._say_if_still_loading():
                self.notify("Choose a product first: enter on a brand, then a product.", severity="warning")
            return
        self.check_stock(product)

    @work(exclusive=True, exit_on_error=False, group="catalog-stock")
    async def check_stock(self, product: Product) -> None:
        from tui.screens.catalog_v21 import product_sku, stock_answer_words

        client = await self.app.session.client()
        sku = await product_sku(client, product)
        if sku is None:
            self.notify(
                f"{product.name} has no SKU in the v2.1 catalog: its stock cannot be checked.",
                title="Stock",
                severity="warning",
            )
            return
        face_value = to_decimal(product.min_face_value)
        stock = await client.stock(sku, face_value)
        self.notify(
            stock_answer_words(product, face_value, stock),
            title="Stock",
            severity="information" if stock.is_stocked else "warning",
        )

    def action_next_category(self) -> None:
        """The next category (from the v2.1 catalog's categories), then none: the page's brands of it only."""
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
        product = self._selected_product()
        if product is None:
            if not self._say_if_still_loading():
                self.notify("Choose a product first: enter on a brand, then a product.", severity="warning")
            return
        if product.count == 0:
            self.notify(f"{product.name} is out of stock.", severity="warning")
            return
        if self.from_mirror:
            self.order_live_product(product.id)
            return
        self.app.open_new_order(product, self.detail.currency_code if self.detail else None)
