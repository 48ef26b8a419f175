"""A brand's detail pane: its title line, its products and its texts, fitted to the pane's width.

The pane draws what it is given (Rich `Text` built from outside strings with
`widgets.safe_text`), not the service's models: a first page kept from the
last start (tui/screens/catalog_kept.py) draws the same as a live one. The
products table is fitted to the pane: nothing is cut but the product names,
which give way first (with …, down to SHRINK_LEAST), then the last columns
(the date, then stock) are left out whole, so that the values and prices show
at 80 columns. `refit()` draws the brand again when the pane's width changed.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from widgets.fitted_table import FittedTable
from widgets.safe_text import safe

PRODUCT_COLUMNS = ("Id", "Product", "Face value", "Client price", "Stock", "Modified")
PAYOUT_MARK = " PAYOUT"  # after a payout product's name; kept when the name is cut
SHRINKS, SHRINK_LEAST = 1, 16  # the product's name gives way first, to a readable width (whole at wider sizes)
KEEP_LEAST = 4  # id, name, face value and price: never left out
MAX_PRODUCT_ROWS = 11  # more scroll inside the table
TEXT_SECTIONS = (  # a brand's texts by attribute, as the pane titles them, in its order (after the categories)
    ("description", "Description"),
    ("redemption_instructions", "How to redeem"),
    ("terms", "Terms"),
    ("disclaimer", "Disclaimer"),
)
SECTION_TITLES = {"categories": "Categories", **dict(TEXT_SECTIONS)}

Detail = tuple[Text, list[tuple[Text, ...]], dict[str, str]]  # title, product rows, texts by section


class BrandDetail(VerticalScroll):
    """The title (#detail-title), the products (#products, a row per product) and the texts (#detail-sections)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._brand: Detail | None = None  # what `refit` draws again: the brand shown, if any

    def compose(self) -> ComposeResult:
        yield Static("", id="detail-title")
        yield FittedTable(id="products", cursor_type="row")
        yield Static("", id="detail-sections")

    @property
    def products(self) -> DataTable:
        return self.query_one("#products", DataTable)

    def show(self, title: Text, product_rows: list[tuple[Text, ...]], sections: dict[str, str]) -> None:
        """A brand: its title, its products' rows (the name second) and its texts by section (SECTION_TITLES)."""
        self._brand = (title, product_rows, sections)
        self._draw(title, product_rows, sections)

    def show_message(self, message: str) -> None:
        """No brand: why, in the title line (in italics), nothing under it."""
        self._brand = None
        self._draw(Text(message, style="italic"), [], {})

    def retitle(self, title: Text) -> None:
        """The title line alone (a failed load says so there, over the last brand's products)."""
        # One line, fixed height: no whole-screen layout pass for it.
        self.query_one("#detail-title", Static).update(title, layout=False)

    def refit(self) -> None:
        """The brand drawn again to the pane's width (after a resize: the products' room changed)."""
        if self._brand is not None:
            self._draw(*self._brand)

    def _draw(self, title: Text, product_rows: list[tuple[Text, ...]], sections: dict[str, str]) -> None:
        products = self.products
        products.display = bool(product_rows)
        self.retitle(title)
        if not product_rows:
            products.clear()
        else:
            refill(products, PRODUCT_COLUMNS, product_rows, self._products_room(len(product_rows)))
            # An explicit height: DataTable measures its rows on idle and does not
            # re-lay out an "auto" height, so it could stay 0 rows tall.
            # + the header, + a line for the horizontal scrollbar narrow screens need.
            products.styles.height = min(len(product_rows), MAX_PRODUCT_ROWS) + 2
        self._show_sections(sections)

    def _products_room(self, rows: int) -> int:
        """The cells the products table has across (0 before the first layout: no fitting then)."""
        # Narrow (the screen's breakpoint class), the pane is short and its texts nearly always scroll:
        # its scroll bar is kept room for.
        scrollbar = 0 if self.screen.has_class("-wide") else self.styles.scrollbar_size_vertical
        room = self.content_region.width - scrollbar
        return max(0, room - (2 if rows > MAX_PRODUCT_ROWS else 0))  # the table's own scroll bar past that

    def _show_sections(self, texts: dict[str, str]) -> None:
        """The texts, a blank line apart, in one widget; a section with no text is left out."""
        parts = [
            Text.assemble((f"{title}\n", "bold"), safe(text, multiline=True))
            for section, title in SECTION_TITLES.items()
            if (text := (texts.get(section) or "").strip())
        ]
        sections = self.query_one("#detail-sections", Static)
        sections.display = bool(parts)
        shown = Text("\n\n").join(parts)
        if parts and sections.content != shown:  # neighbours often share texts: skip a layout pass
            sections.update(shown)


def refill(table: DataTable, columns: tuple[str, ...], rows: Iterable[tuple[Text, ...]], room: int = 0) -> None:
    """Replace every row in one go, each column as wide as its widest cell. The widths are
    given, not left to DataTable: it measures new cells when next idle, and a frame drawn
    before that (a loaded machine) kept the labels' widths.

    With a `room` (cells), nothing is cut but the product names: they give way (with …, down
    to SHRINK_LEAST), then the last columns (the date, then stock) are left out whole.
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
        # Text, not str: a str label is parsed as markup, and the first such parse imports Rich's emoji table
        # (~15 ms, on the start's path: the kept page's detail).
        table.add_column(Text(columns[index]), width=widths[index])
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
