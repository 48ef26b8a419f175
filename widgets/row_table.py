"""A read-only table that draws only the rows in view: thousands of rows, swapped in one step.

DataTable measures every cell of every row it is given (about 80 µs a row),
so refilling it with 6,000 rows on each keystroke of a filter takes half a
second. `RowTable` has fixed column widths and keeps the rows as a list:
`set_rows` costs nothing per row, and each frame draws the lines in view.
Rows can be any objects: `cells(row)` gives a row's cells, asked only for
the rows drawn (and for `get_row_at`). Cells are Rich `Text` (outside
strings through `widgets.safe_text.safe`).

Keys: up/down, page up/down, home/end move the cursor; left/right scroll
the columns; enter selects. A
click highlights a row (a click on the highlighted row selects it); a click
on a header posts `HeaderSelected`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

PADDING = 1  # cells either side of every column


@dataclass(frozen=True)
class RowColumn:
    key: str
    title: str
    width: int


class RowTable(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    RowTable { height: 1fr; background: $surface; }
    RowTable > .row-table--header { background: $panel; color: $text; text-style: bold; }
    RowTable > .row-table--even { background: $surface-lighten-1; }
    RowTable > .row-table--cursor { background: $block-cursor-blurred-background; }
    RowTable:focus > .row-table--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    """
    COMPONENT_CLASSES = {"row-table--header", "row-table--even", "row-table--cursor"}
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False, id="row-table.up"),
        Binding("down", "move(1)", "Down", show=False, id="row-table.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="row-table.page-up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="row-table.page-down"),
        Binding("home", "move_to(0)", "First", show=False, id="row-table.first"),
        Binding("end", "move_to(-1)", "Last", show=False, id="row-table.last"),
        Binding("enter", "select", "Open", show=False, id="row-table.select"),
        Binding("left", "scroll_left", "Left", show=False, id="row-table.left"),
        Binding("right", "scroll_right", "Right", show=False, id="row-table.right"),
    ]

    cursor_row: reactive[int] = reactive(0)

    class RowHighlighted(Message):
        def __init__(self, table: RowTable, row: int) -> None:
            super().__init__()
            self.table, self.row = table, row

        @property
        def control(self) -> RowTable:
            return self.table

    class RowSelected(RowHighlighted):
        pass

    class HeaderSelected(Message):
        def __init__(self, table: RowTable, column: RowColumn) -> None:
            super().__init__()
            self.table, self.column = table, column

        @property
        def control(self) -> RowTable:
            return self.table

    def __init__(self, columns: Sequence[RowColumn], *, cells: Callable[[Any], Sequence[Text]] = lambda row: row,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.columns = tuple(columns)
        self.cells = cells
        self.rows: Sequence[Any] = ()
        self._strips: dict[int, tuple[Any, Strip]] = {}
        self._style_key: tuple[bool, str] | None = None
        self._style_set: tuple[Style, Style, Style, Style] = (Style(), Style(), Style(), Style())
        self._width = sum(column.width + 2 * PADDING for column in self.columns)
        self.virtual_size = Size(self._width, 1)

    # --- data -------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def get_row_at(self, index: int) -> Sequence[Text]:
        return self.cells(self.rows[index])

    def set_rows(self, rows: Sequence[Any]) -> None:
        """Show these rows (kept, not copied); the cursor goes back to the first."""
        self.rows = rows
        self.virtual_size = Size(self._width, len(rows) + 1)
        self.scroll_to(y=0, animate=False)
        self.cursor_row = 0
        self.post_message(self.RowHighlighted(self, 0))
        self.refresh()

    # --- drawing ------------------------------------------------------------------------

    def _line(self, cells: Sequence[Text]) -> Strip:
        line = Text(end="", no_wrap=True)
        for column, cell in zip(self.columns, cells, strict=False):
            piece = cell.copy()
            piece.no_wrap = True
            piece.truncate(column.width, overflow="ellipsis")
            gap = column.width - piece.cell_len
            before, after = (PADDING + gap, PADDING) if cell.justify == "right" else (PADDING, PADDING + gap)
            line.append(" " * before)
            line.append_text(piece)
            line.append(" " * after)
        return Strip(line.render(self.app.console), line.cell_len)

    def _row_strip(self, row: Any) -> Strip:
        """A row drawn once, unstyled; kept with the row itself, so a reused id never matches."""
        cached = self._strips.get(id(row))
        if cached is None or cached[0] is not row:
            cached = self._strips[id(row)] = (row, self._line(self.cells(row)))
        return cached[1]

    def _styles(self) -> tuple[Style, Style, Style, Style]:
        """Base, header, even-row and cursor styles (they change with focus and theme only)."""
        key = (self.has_focus, self.app.theme)
        if self._style_key != key:
            self._style_key = key
            component = self.get_component_rich_style
            self._style_set = (self.rich_style, component("row-table--header"), component("row-table--even"),
                               component("row-table--cursor"))
        return self._style_set

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        base, header, even, cursor = self._styles()
        if y == 0:
            style = header
            strip = self._line([Text(column.title) for column in self.columns])
        else:
            index = scroll_y + y - 1
            if index >= len(self.rows):
                return Strip.blank(width, base)
            style = base + even if index % 2 else base
            if index == self.cursor_row:
                style += cursor
            strip = self._row_strip(self.rows[index])
        return strip.apply_style(style).extend_cell_length(scroll_x + width, style).crop(scroll_x, scroll_x + width)

    # --- the cursor ---------------------------------------------------------------------

    @property
    def _page(self) -> int:
        return max(1, self.size.height - 2)

    def watch_cursor_row(self, row: int) -> None:
        top = self.scroll_offset.y
        if row < top:
            self.scroll_to(y=row, animate=False)
        elif row > top + self.size.height - 2:
            self.scroll_to(y=row - self.size.height + 2, animate=False)
        self.refresh()

    def _go(self, row: int) -> None:
        if not self.rows:
            return
        row = max(0, min(row, len(self.rows) - 1))
        if row != self.cursor_row:
            self.cursor_row = row
            self.post_message(self.RowHighlighted(self, row))

    def action_move(self, step: int) -> None:
        self._go(self.cursor_row + step)

    def action_page(self, pages: int) -> None:
        self._go(self.cursor_row + pages * self._page)

    def action_move_to(self, row: int) -> None:
        self._go(row if row >= 0 else len(self.rows) - 1)

    def action_select(self) -> None:
        if self.rows:
            self.post_message(self.RowSelected(self, self.cursor_row))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        x = offset.x + self.scroll_offset.x
        if offset.y == 0:
            for column in self.columns:
                x -= column.width + 2 * PADDING
                if x < 0:
                    self.post_message(self.HeaderSelected(self, column))
                    return
            return
        row = self.scroll_offset.y + offset.y - 1
        if row == self.cursor_row:
            self.action_select()
        else:
            self._go(row)
