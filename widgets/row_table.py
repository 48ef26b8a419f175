"""A read-only table that draws only the rows in view: thousands of rows, swapped in one step.

DataTable measures every cell of every row it is given (about 80 µs a row),
so refilling it with 6,000 rows on each keystroke of a filter takes half a
second. `RowTable` has fixed column widths and keeps the rows as a list:
`set_rows` costs nothing per row, and a frame draws again only the lines in
view whose row or cursor changed (each row's line is drawn once and kept).
A column's width is the least it gets; columns that `grow` share the room a
wider table has (`grown_widths`), so a wide terminal shows more of what
matters instead of an empty right half.
Rows can be any objects: `cells(row)` gives a row's cells, asked only for
the rows drawn (and for `get_row_at`). Cells are Rich `Text` (outside
strings through `widgets.safe_text.safe`).

Keys: up/down, page up/down, home/end move the cursor; left/right scroll
the columns; enter selects. A
click highlights a row (a click on the highlighted row selects it); a click
on a header posts `HeaderSelected`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import Reactive, reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

PADDING = 1  # cells either side of every column
CACHE_LINES = 5_000  # lines kept drawn, per cache (about 5 KB a row with its styled copy); past it a cache starts again


@dataclass(frozen=True)
class RowColumn:
    key: str
    title: str
    width: int  # the least it gets; longer cells are cut with …
    grow: int = 0  # its share of the room beyond every column's width


def grown_widths(columns: Sequence[RowColumn], room: int) -> list[int]:
    """Each column's width in `room` cells (padding included in the room, not in the widths)."""
    widths = [column.width for column in columns]
    spare = room - sum(width + 2 * PADDING for width in widths)
    shares = sum(column.grow for column in columns)
    if spare <= 0 or not shares:
        return widths
    growing = [index for index, column in enumerate(columns) if column.grow]
    for index in growing:
        widths[index] += spare * columns[index].grow // shares
    widths[growing[-1]] += room - sum(width + 2 * PADDING for width in widths)  # what rounding left
    return widths


def whole_columns(widths: Sequence[int], room: int) -> int:
    """The cells the leading columns take that fit `room` whole (padding included)."""
    used = 0
    for width in widths:
        if used + width + 2 * PADDING > room:
            break
        used += width + 2 * PADDING
    return used


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

    # Neither repaints the whole table: set_rows and watch_cursor_row say which lines changed. (A new
    # count of rows still makes a layout, which sizes the scroll bar.)
    cursor_row: reactive[int] = reactive(0, repaint=False)
    virtual_size = Reactive(Size(0, 0), layout=True, repaint=False)

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

    def __init__(
        self,
        columns: Sequence[RowColumn],
        *,
        cells: Callable[[Any], Sequence[Text]] = lambda row: row,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.columns = tuple(columns)
        self.cells = cells
        self.rows: Sequence[Any] = ()
        self._strips: dict[int, tuple[Any, Strip]] = {}  # id(row) -> (row, its line unstyled)
        self._drawn: dict[tuple[int, int], tuple[Any, Strip]] = {}  # (id(row), look) -> (row, its line as drawn)
        self._frame: tuple[tuple[Style, ...], int, int] | None = (
            None  # what the drawn lines share: styles, scroll x, width
        )
        self._top = 0  # the first row in view, as of this frame
        self._style_key: tuple[bool, str] | None = None
        self._style_set: tuple[Style, Style, Style, Style] = (Style(), Style(), Style(), Style())
        self.widths = [column.width for column in self.columns]
        self._width = sum(width + 2 * PADDING for width in self.widths)
        self._whole = self._width  # unscrolled, the cells up to the last column that shows whole
        self._header: Strip | None = None  # the titles, drawn when first shown
        self.virtual_size = Size(self._width, 1)

    def on_resize(self) -> None:
        # The vertical scroll bar's room is kept whether it shows or not: widths do not jump with the rows.
        room = self.size.width - self.styles.scrollbar_size_vertical
        widths = grown_widths(self.columns, room)
        self._whole = whole_columns(widths, room)
        if widths != self.widths:
            self.widths = widths
            self._width = sum(width + 2 * PADDING for width in widths)
            self._strips.clear()
            self._drawn.clear()
            self._header = None
            self.virtual_size = Size(self._width, len(self.rows) + 1)
            self.refresh()

    # --- data -------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def get_row_at(self, index: int) -> Sequence[Text]:
        return self.cells(self.rows[index])

    def set_rows(self, rows: Sequence[Any]) -> None:
        """Show these rows (kept, not copied); the cursor goes back to the first.

        Only the lines whose row changed are drawn again: a filter that keeps
        the top of the list as it was costs no drawing there.
        """
        top, page = self.scroll_offset.y, max(0, self.size.height - 1)
        before = self.rows[top : top + page]
        self.rows = rows
        # Lines are kept for the rows in the new view only (it starts at the top): a new page drops
        # the last one's (and lets its rows go); a filter keeps the lines of the rows it keeps there.
        # Only the view's rows are looked at, so a keystroke costs the same for 50 rows or 50,000.
        shown = {id(row) for row in rows[:page]}
        self._strips = {key: kept for key, kept in self._strips.items() if key in shown}
        self._drawn = {key: kept for key, kept in self._drawn.items() if key[0] in shown}
        self.virtual_size = Size(self._width, len(rows) + 1)
        self.post_message(self.RowHighlighted(self, 0))
        if top or self.cursor_row:  # the view moves: every line is drawn again
            self.scroll_to(y=0, animate=False)
            self.cursor_row = 0
            self.refresh()
            return
        after = rows[:page]
        changed = [
            index
            for index in range(max(len(before), len(after)))
            if index >= len(before) or index >= len(after) or before[index] is not after[index]
        ]
        if changed:  # one region from the first changed line to the last (line 0 is the header)
            self.refresh_lines(changed[0] + 1, changed[-1] - changed[0] + 1)

    def redraw(self) -> None:
        """The rows' cells changed (not the rows): draw every line again, cursor and scroll kept."""
        self._strips.clear()
        self._drawn.clear()
        self.refresh()

    # --- drawing ------------------------------------------------------------------------

    def _line(self, cells: Sequence[Text]) -> Strip:
        """Cells in their columns, as segments: the unstyled runs (padding included) as one segment each."""
        console = self.app.console
        segments: list[Segment] = []
        plain = ""
        for width, cell in zip(self.widths, cells, strict=False):
            if cell.cell_len > width:
                cell = cell.copy()
                cell.truncate(width, overflow="ellipsis")
            gap = width - cell.cell_len
            before, after = (PADDING + gap, PADDING) if cell.justify == "right" else (PADDING, PADDING + gap)
            plain += " " * before
            style = console.get_style(cell.style) if cell.style else None
            if not cell.spans:  # most cells: one run of text, without Text.render's machinery
                if style is None:
                    plain += cell.plain + " " * after
                    continue
                pieces: Iterable[Segment] = (Segment(cell.plain, style),)
            else:
                pieces = Segment.apply_style(cell.render(console), style)
            for piece in pieces:
                if piece.style:
                    segments += [Segment(plain), piece] if plain else [piece]
                    plain = ""
                else:
                    plain += piece.text
            plain += " " * after
        segments.append(Segment(plain))
        return Strip(segments)

    def _row_strip(self, row: Any) -> Strip:
        """A row drawn once, unstyled; kept with the row itself, so a reused id never matches."""
        cached = self._strips.get(id(row))
        if cached is None or cached[0] is not row:
            if len(self._strips) >= CACHE_LINES:
                self._strips.clear()
            cached = self._strips[id(row)] = (row, self._line(self.cells(row)))
        return cached[1]

    def _styles(self) -> tuple[Style, Style, Style, Style]:
        """Base, header, even-row and cursor styles (they change with focus and theme only)."""
        key = (self.has_focus, self.app.theme)
        if self._style_key != key:
            self._style_key = key
            component = self.get_component_rich_style
            self._style_set = (
                self.rich_style,
                component("row-table--header"),
                component("row-table--even"),
                component("row-table--cursor"),
            )
        return self._style_set

    def render_lines(self, crop: Region) -> list[Strip]:
        """Once a frame: what its lines share. Lines drawn the same way before are reused."""
        scroll_x, self._top = self.scroll_offset
        base, header, even, cursor = self._styles()
        # By look: the header, then rows odd and even, without and with the cursor.
        looks = (header, base, base + even, base + cursor, base + even + cursor)
        frame = (looks, scroll_x, self.size.width)
        if frame != self._frame:
            self._frame = frame
            self._drawn.clear()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        assert self._frame is not None  # render_lines sets it first
        looks, _, width = self._frame
        if y == 0:
            if self._header is None:
                self._header = self._line([Text(column.title) for column in self.columns])
            return self._finish(self._header, looks[0])
        index = self._top + y - 1
        if index >= len(self.rows):
            return Strip.blank(width, looks[1])
        row = self.rows[index]
        look = 1 + index % 2 + 2 * (index == self.cursor_row)
        cached = self._drawn.get((id(row), look))
        if cached is None or cached[0] is not row:
            if len(self._drawn) >= CACHE_LINES:
                self._drawn.clear()
            cached = self._drawn[id(row), look] = (row, self._finish(self._row_strip(row), looks[look]))
        return cached[1]

    def _finish(self, strip: Strip, style: Style) -> Strip:
        """A line styled and cut to the view, scrolled left or right."""
        assert self._frame is not None
        _, scroll_x, width = self._frame
        if scroll_x == 0 and strip.cell_length > self._whole:  # a column cut at the edge shows once scrolled to
            strip = strip.crop(0, self._whole)
        if scroll_x == 0 and strip.cell_length <= width:  # not scrolled: one new line, not three
            segments = list(Segment.apply_style(strip, style))
            if strip.cell_length < width:
                segments.append(Segment(" " * (width - strip.cell_length), style))
            return Strip(segments, width)
        return strip.apply_style(style).extend_cell_length(scroll_x + width, style).crop(scroll_x, scroll_x + width)

    # --- the cursor ---------------------------------------------------------------------

    @property
    def _page(self) -> int:
        return max(1, self.size.height - 2)

    def watch_cursor_row(self, old: int, row: int) -> None:
        top, page = self.scroll_offset.y, self.size.height - 1
        if top <= row < top + page:  # in view: only the two lines change
            self.refresh_lines(old + 1)
            self.refresh_lines(row + 1)
            return
        self.scroll_to(y=row if row < top else row - page + 1, animate=False)
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
            for column, width in zip(self.columns, self.widths, strict=True):
                x -= width + 2 * PADDING
                if x < 0:
                    self.post_message(self.HeaderSelected(self, column))
                    return
            return
        row = self.scroll_offset.y + offset.y - 1
        if row == self.cursor_row:
            self.action_select()
        else:
            self._go(row)
