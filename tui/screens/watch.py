"""Watch: the orders and payouts followed until final, for the active profile.

The list lives in SQLite (tui.local.watchlist) and is followed by the app's
one scheduler (tui.watch_service, tui.core.watching) whether this screen is
open or not; the screen only shows it, adds to it (`a`: the paste dialog) and
removes from it (`x`). Payout weblinks are shown masked; `enter` opens an
order or a payout on its own screen.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from styles import STYLES
from tui.api.limits import wait_words
from tui.core.endings import ended_badly
from tui.core.safe_text import visible
from tui.core.watching import Pasted
from tui.local.watchlist import WatchedItem
from tui.screens.base import BaseScreen
from tui.screens.host import WatchListUnavailable
from tui.screens.watch_paste import PasteDialog
from widgets.context_bar import Context
from widgets.fitted_table import FittedTable
from widgets.safe_text import safe
from widgets.status_badge import status_text

COLUMNS = ("Kind", "Reference", "Status", "Final", "Last change", "Detail")
PINNED_BY = "Pinned by"  # the team's list (tui.team.watchlist): the login that pinned each item, after "Final"
# Below this width the Detail column would be cut at the edge (a RequestId takes 36 cells): the highlighted
# item's detail is said in full on a line under the table instead.
DETAIL_COLUMN_WIDTH = 120


def _when(stamp: str | None) -> str:
    """Stored UTC ISO time, shown in local time: 13:45:07 today, else 2026-01-02 13:45."""
    if not stamp:
        return "—"
    moment = datetime.fromisoformat(stamp).astimezone()
    return (
        moment.strftime("%H:%M:%S")
        if moment.date() == datetime.now().astimezone().date()
        else moment.strftime("%Y-%m-%d %H:%M")
    )


def _final(item: WatchedItem) -> Text:
    if not item.final:
        return Text("watching", style="dim")
    return Text("final ⚠", style="bold red") if ended_badly(item.status) else Text("final", style="green")


def row_cells(item: WatchedItem, shared: bool = False) -> tuple[Text, ...]:
    """A row's cells; `shared` (the team's list): with who pinned it, after "Final"."""
    status = status_text(visible(item.status)) if item.status else Text("…", style="dim")
    cells = (
        Text(item.kind),
        safe(item.label),
        status,
        _final(item),
        Text(_when(item.changed_at or item.added_at)),
        safe(item.detail, limit=60),
    )
    return (*cells[:4], safe(item.pinned_by), *cells[4:]) if shared else cells


class WatchScreen(BaseScreen):
    destination = "watch"
    EXPORT_NAME = "watch"
    CSS_PATH = STYLES / "watch.tcss"
    BINDINGS = [
        Binding("a", "paste", "Add/paste…", id="watch.paste"),
        Binding("x", "remove", "Remove", id="watch.remove"),
    ]

    def compose_body(self) -> ComposeResult:
        yield Static(id="watch-summary")
        yield FittedTable(id="watch-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="watch-detail")

    def on_mount(self) -> None:
        self.shared = False  # whether the list is the team's: its items say who pinned them
        self.columns = self._columns_for(self.app.size.width, self.shared)
        self.query_one(DataTable).add_columns(*self.columns)
        self.watch(self.app, "context", self._context_changed)

    @staticmethod
    def _columns_for(width: int, shared: bool) -> tuple[str, ...]:
        columns = COLUMNS if width >= DETAIL_COLUMN_WIDTH else COLUMNS[:-1]
        return (*columns[:4], PINNED_BY, *columns[4:]) if shared else columns

    def on_resize(self) -> None:
        self._fit_columns()

    def _fit_columns(self) -> None:
        columns = self._columns_for(self.size.width or self.app.size.width, self.shared)
        if columns != self.columns:
            self.columns = columns
            self.query_one(DataTable).clear(columns=True).add_columns(*columns)
            self.show_items()

    @on(DataTable.RowHighlighted, "#watch-table")
    def show_detail(self) -> None:
        """Below DETAIL_COLUMN_WIDTH: the highlighted item's detail, whole, under the table."""
        line = self.query_one("#watch-detail", Static)
        item_id = self._selected_id()
        item = self.app.watch_list.store.get(item_id) if item_id is not None else None
        line.display = item is not None and "Detail" not in self.columns
        if item is not None:
            pinned = f" · pinned by {item.pinned_by}" if item.pinned_by else ""
            line.update(safe(f"{item.label}{pinned} · {item.detail or 'no detail yet'} · enter opens it", limit=300))

    def _context_changed(self, _context: Context) -> None:
        self.show_items()

    def show_items(self) -> None:
        table = self.query_one(DataTable)
        try:
            items = self.app.watch_list.items()
        except WatchListUnavailable as problem:
            table.clear()
            self.query_one("#watch-summary", Static).update(safe(str(problem), multiline=True))
            return
        if any(item.pinned_by for item in items) != self.shared:
            self.shared = not self.shared
            self._fit_columns()
            return  # _fit_columns showed them
        selected = self._selected_id()
        table.clear()
        for item in items:
            table.add_row(*row_cells(item, self.shared)[: len(self.columns)], key=str(item.id))
        if selected is not None and str(selected) in {str(i.id) for i in items}:
            table.move_cursor(row=table.get_row_index(str(selected)))
        watching = sum(not i.final for i in items)
        attention = sum(i.final and ended_badly(i.status) for i in items)
        summary = Text(
            f"{len(items)} pinned: {watching} watching, {attention} need attention, {len(items) - watching - attention} ended well."
            if items
            else "Nothing watched yet: press a to paste RequestIds and card codes, or w on an order or a payout."
        )
        within = self.app.watch_list.looked_again_within()
        if within is not None:  # the freshness line: it refreshes by itself, as often as the limits allow
            summary.append(
                f" Each looked at again within {wait_words(within)}, as the provider's limits allow.", style="dim"
            )
        self.query_one("#watch-summary", Static).update(summary)
        self.show_detail()

    def _selected_id(self) -> int | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return int(key) if key is not None else None

    def action_paste(self) -> None:
        try:
            self.app.watch_list  # noqa: B018 (asking for it says whether it can be used)
        except WatchListUnavailable as problem:
            self.notify(str(problem), title="Watch list", severity="error", timeout=10)
            return

        def add(pasted: list[Pasted] | None) -> None:
            if not pasted:
                return
            added = self.add_all(pasted)
            self.show_items()
            self.notify(f"Watching {added} more.", title="Watch list")

        self.app.push_screen(PasteDialog(), add)

    def add_all(self, pasted: list[Pasted]) -> int:
        """Add each pasted item; one that is not a weblink after all is said, the rest are added."""
        from tui.api.weblink import WeblinkError
        from tui.local.watchlist import NotWatched

        added = 0
        for item in pasted:
            try:
                self.app.watch_list.add(item)
            except (WeblinkError, NotWatched) as error:  # a payout's reference is not shown whole
                self.notify(f"{item.reference[:12]}…: {error}", severity="warning")
            else:
                added += 1
        return added

    def action_remove(self) -> None:
        item_id = self._selected_id()
        if item_id is None:
            self.notify("Nothing to remove: the watch list is empty.", severity="warning")
        else:
            self.app.watch_list.remove(item_id)
            self.show_items()  # at once: the header follows with the next redraw

    @on(DataTable.RowSelected, "#watch-table")
    async def open_item(self) -> None:
        """enter on a row (the table's own key): the order or the payout on its screen."""
        item_id = self._selected_id()
        item = self.app.watch_list.store.get(item_id) if item_id is not None else None
        if item is not None:
            await self.app.open_over(item.kind, item.reference)
