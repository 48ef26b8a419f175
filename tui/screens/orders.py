"""Orders: the triage board. Every order line of a range of days, counts per status, stuck ones flagged.

Opens on the last 24 hours (widgets.date_range.OPENING_DAYS); `t` `d` `k` `R` choose the days (widgets.date_range). One row
per order line of the order history (time, status, order number, product,
denomination, quantity, total, RequestId); the summary counts orders per
status. A line whose order is not final and older than the profile's
threshold (`stuck_after_minutes`, default 15) is flagged stuck. The history
dates orders (its orderDate is the day); the time of a not-final order of
the last day or so is asked of Get order (its createdDate), once per order
and kept for the session, and until it comes the row says its time is not
yet known (tui.core.triage). `/` filters
by text and by status (`status:pending`, `status:stuck`); `f` steps through
the statuses; `s` sorts by the next column (`S` reverses; a click on a
header sorts by it); enter opens the order inspector on the row's RequestId.
Every string from the service is shown literally (widgets.safe_text).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from styles import STYLES
from tui.api.errors import ServiceError
from tui.api.models import OrderHistoryLine
from tui.case_file import needing_attention
from tui.core.board_export import Cell, board_export
from tui.core.dates import DayRange
from tui.core.triage import (
    DEFAULT_STUCK_MINUTES,
    NEWEST_FIRST,
    STUCK,
    BoardRow,
    Narrowing,
    RowQuery,
    board_rows,
    charge_times,
    order_count,
    order_time,
    rows_needing_time,
    sorted_rows,
    status_counts,
    with_attention,
)
from tui.core.words import counted
from tui.local.storage import audit_log
from tui.screens.base import BaseScreen
from tui.screens.freshness import FreshnessMixin
from widgets.date_range import RANGE_BINDINGS, DateRangeKeys, opening_range, range_label
from widgets.filter_bar import RowFilter
from widgets.money import format_money
from widgets.row_table import RowColumn, RowTable
from widgets.safe_text import safe
from widgets.status_badge import status_style

# Keys are the sort keys (tui.core.triage.SORT_KEYS). What matters in an incident comes first (when, status, order,
# money), so 80 columns show it; the product's name and the denomination take the room a wider terminal has.
COLUMNS = (
    RowColumn("time", "Time (UTC)", 11),
    RowColumn("status", "Status", 18),
    RowColumn("order", "Order", 10),
    RowColumn("total", "Total", 14),
    RowColumn("quantity", "Qty", 3),
    RowColumn("product", "Product", 10, grow=3),
    RowColumn("denomination", "Denomination", 12, grow=1),
    RowColumn("request", "RequestId", 36),
)
STUCK_MARK = " ⚑ stuck"
TIME_UNKNOWN_MARK = " ? time"
ATTENTION_MARK = " ⚠"  # its case needs attention (the detail line says why; `/attention` keeps these)
CREATED_CACHE = "orders.created"  # session.cache key: RequestId -> Get order's createdDate, else its first charge's
# time in the transactions' local copies (naive UTC)
NOTE_MARK = " ✎"  # the order has notes (the Order screen shows them)


def _status_cell(row: BoardRow, noted: bool) -> Text:
    cell = safe(row.line.status, style=status_style(row.line.status))
    if noted:
        cell.append(NOTE_MARK, style="bold")
    if row.stuck:
        cell.append(STUCK_MARK, style="bold red")
    elif row.time_unknown:
        cell.append(TIME_UNKNOWN_MARK, style="dim")
    if row.attention and not row.stuck:  # a stuck order's ⚑ says it already (and the column has no room for both)
        cell.append(ATTENTION_MARK, style="bold red")
    return cell


def _total_cell(line: OrderHistoryLine) -> Text:
    if line.sub_total is None:
        return Text("")
    cell = safe(format_money(line.sub_total, line.account_currency or ""))
    cell.justify = "right"
    return cell


def row_cells(row: BoardRow, noted: bool = False) -> tuple[Text, ...]:
    line = row.line
    if row.placed:
        when = row.placed.strftime("%m-%d %H:%M")
    else:  # the history dates an order; its time is known only from Get order
        when = f"{row.day:%m-%d}" + (" --:--" if row.time_unknown else "") if row.day else (line.order_date or "")
    quantity = Text("" if line.quantity is None else str(line.quantity), justify="right")
    return (
        safe(when),
        _status_cell(row, noted),
        safe(line.order_number),
        _total_cell(line),
        quantity,
        safe(line.product_name or ""),
        safe(line.denomination or ""),
        safe(line.client_reference_number),
    )


class OrdersScreen(FreshnessMixin, DateRangeKeys, BaseScreen):
    destination = "orders"
    REFRESHES_BY_ITSELF = True
    LOAD_GROUP = "orders-load"
    EXPORT_NAME = "orders"
    AUTO_FOCUS = "#orders-table"
    CSS_PATH = STYLES / "orders.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]  # the summary's lines (styles/orders.tcss)
    BINDINGS = [
        *RANGE_BINDINGS,
        Binding("slash", "filter", "Filter", id="orders.filter", priority=True),
        Binding("f", "next_status", "Status", id="orders.status"),
        Binding("s", "sort_next", "Sort", id="orders.sort"),
        Binding("S", "sort_reverse", "Reverse", id="orders.reverse"),
        Binding("r", "reload", "Reload", id="orders.reload"),
        Binding("w", "pin", "Watch", id="orders.watch"),
    ]
    REFRESH_GROUPS = frozenset({"orders-load"})

    def __init__(self) -> None:
        super().__init__()
        self.day_range = opening_range()
        self.rows: list[BoardRow] = []  # every line of the range, in the sort order
        self._cells: dict[int, tuple[Text, ...]] = {}  # id(row) -> its drawn cells, built when first drawn
        self.shown: list[BoardRow] = []  # the rows on screen, after the filter
        self._filter = Narrowing()  # the filter over self.rows, a key at a time
        self.status_filter: str | None = None  # `f`: one status (or "stuck"), None for all
        self.sort_column = "time"
        self.descending = True
        self.problem: str | None = None  # why the last load failed
        self.loaded_range: DayRange | None = None  # the range of the last load that succeeded
        self.counts: dict[str, int] = {}  # orders per status (and stuck) of the whole range
        self.orders = 0  # orders in the range
        self._detail_of: BoardRow | None = None  # the row the detail line shows
        self.lines: list[OrderHistoryLine] = []  # the last answer, for re-deciding rows as times come
        self._asked: set[str] = set()  # RequestIds whose time was asked since the last reload: once each
        self.noted: dict[str, int] = {}  # RequestId -> its notes: the ✎ mark
        self.attention: dict[str, str] = {}  # RequestId -> why its case needs attention (issue 38)

    def compose_body(self) -> ComposeResult:
        yield RowFilter(id="orders-filter")
        yield Static(id="orders-summary")
        yield RowTable(COLUMNS, cells=self.cells_of, id="orders-table")
        yield Static(id="orders-detail")

    @property
    def table(self) -> RowTable:
        return self.query_one("#orders-table", RowTable)

    def on_mount(self) -> None:
        self.table.focus()
        self.action_reload()

    @property
    def stuck_after(self) -> timedelta:
        minutes = self.app.session.profile.stuck_after_minutes or DEFAULT_STUCK_MINUTES
        return timedelta(minutes=minutes)

    # --- loading -----------------------------------------------------------------

    def range_changed(self) -> None:
        self._asked = set()
        self.table.loading = True
        self.load(fresh=False)

    def action_reload(self) -> None:
        """The range's orders from the service (within its limits); opening the board or another range
        takes the days the local copy keeps."""
        self._asked = set()
        self.refreshing(self.table, bool(self.rows), self.LOAD_GROUP)
        self.load(fresh=True)

    def renew(self) -> None:
        self.load(fresh=False, keep_place=True)

    @work(exclusive=True, group="orders-load", exit_on_error=False)
    async def load(self, fresh: bool, keep_place: bool = False) -> None:
        """`keep_place`: the cursor stays on the order it was on (a refresh by itself moves nothing)."""
        day_range = self.day_range
        session = self.app.session
        try:
            client = await session.client()
            answer = await session.copies().order_history(client, day_range, fresh=fresh)
            lines = answer.value
        except Exception as error:
            self.problem = str(error)
            if self.loaded_range == day_range:  # this range's last good data stays, said stale (the status line)
                self._show_summary()
            else:
                self.show_lines([])
                self.status_line.forget("orders-load")  # another range's good data is not this one's
            raise  # BaseScreen reports it
        finally:
            self.table.loading = False
        self.problem, self.loaded_range = None, day_range
        place = self.shown[self.table.cursor_row].request_id if keep_place and self.shown else None
        self.show_freshness(answer)
        self._learn_charge_times()
        self.show_lines(lines)
        self.judge(lines)
        if place is not None:
            self.table.action_move_to(next((n for n, row in enumerate(self.shown) if row.request_id == place), 0))

    def show_lines(self, lines: list[OrderHistoryLine]) -> None:
        """Rows from the service's lines; which are stuck is decided now, with the times known so far."""
        self.lines = lines
        rows = board_rows(
            lines, now=datetime.now(UTC).replace(tzinfo=None), stuck_after=self.stuck_after, created=self._created
        )
        rows = with_attention(rows, self.attention)
        self.noted = self.app.notes.noted_orders(self.app.session.profile.name)
        self._cells = {}
        self._sort(rows)
        self.counts = status_counts(rows)
        self.orders = order_count(rows)
        self._show_rows()
        wanted = [request_id for request_id in rows_needing_time(rows) if request_id not in self._asked]
        if wanted:
            self._asked.update(wanted)
            self.fetch_times(wanted)

    @work(exclusive=True, group="orders-judge", exit_on_error=False)
    async def judge(self, lines: list[OrderHistoryLine]) -> None:
        """Which orders need attention (tui.case_file.needing_attention: the report's status, its days'
        transactions from the local copies, the audit): flagged ⚠ and found by `/attention`."""
        session = self.app.session
        client = await session.client()
        found, _ = await needing_attention(lines, client, session.copies(), audit_log().entries())
        self.attention = {request_id: "; ".join(verdict.reasons) for request_id, verdict in found.items()}
        if self._learn_charge_times() or self.attention:  # judging read the lines' days' transactions
            self.show_lines(self.lines)

    def _learn_charge_times(self) -> int:
        """Times from the transactions' local copies for the orders Get order has not dated (its own time wins);
        how many were new."""
        created, before = self._created, len(self._created)
        for request_id, moment in charge_times(self.app.session.copies().charged_orders()).items():
            created.setdefault(request_id, moment)
        return len(created) - before

    @property
    def _created(self) -> dict[str, datetime]:
        created: dict[str, datetime] = self.app.session.cache.setdefault(CREATED_CACHE, {})
        return created

    @work(exclusive=True, group="orders-times", exit_on_error=False)
    async def fetch_times(self, request_ids: list[str]) -> None:
        """Get order for each order whose time decides whether it is stuck: one request each, one at a time."""
        client = await self.app.session.client()
        created, found = self._created, 0
        for request_id in request_ids:
            try:
                order = await client.get_order(request_id)
            except ServiceError:
                continue  # the row keeps saying its time is not known; the next reload asks again
            moment = order_time(order.created_date)
            if moment is not None:
                created[request_id] = moment
                found += 1
        if found:
            self.show_lines(self.lines)

    # --- filter and sort -----------------------------------------------------------

    def row_query(self) -> RowQuery:
        typed = RowQuery.parse(self.query_one(RowFilter).value)
        return typed.with_status(self.status_filter) if self.status_filter and not typed.statuses else typed

    def _show_rows(self) -> None:
        self.shown = self._filter(self.row_query())
        self.table.set_rows(self.shown)  # posts RowHighlighted: the detail line follows
        self._show_summary()

    def action_filter(self) -> None:
        self.query_one(RowFilter).open()

    @on(RowFilter.Changed, "#orders-filter")
    def filter_changed(self) -> None:
        self._show_rows()

    @on(RowFilter.Submitted, "#orders-filter")
    @on(RowFilter.Closed)
    def filter_done(self) -> None:
        self._show_rows()
        self.table.focus()

    def action_next_status(self) -> None:
        """All, then each status on the board (most lines first), then stuck, then all again."""
        choices: list[str | None] = [None, *(s for s in self.counts if s != STUCK)]
        if any(row.stuck for row in self.rows):
            choices.append(STUCK)
        position = choices.index(self.status_filter) if self.status_filter in choices else 0
        self.status_filter = choices[(position + 1) % len(choices)]
        self._show_rows()

    def sort_by(self, column: str, *, descending: bool) -> None:
        self.sort_column, self.descending = column, descending
        self._sort(self.rows)
        self._show_rows()

    def _sort(self, rows: list[BoardRow]) -> None:
        """Every line of the range in the board's order; the filter starts again from them."""
        self.rows = sorted_rows(rows, self.sort_column, descending=self.descending)
        self._filter.reset(self.rows)

    def action_sort_next(self) -> None:
        keys = [column.key for column in COLUMNS]
        column = keys[(keys.index(self.sort_column) + 1) % len(keys)]
        self.sort_by(column, descending=column in NEWEST_FIRST)

    def action_sort_reverse(self) -> None:
        self.sort_by(self.sort_column, descending=not self.descending)

    @on(RowTable.HeaderSelected, "#orders-table")
    def header_selected(self, event: RowTable.HeaderSelected) -> None:
        column = event.column.key
        self.sort_by(column, descending=not self.descending if column == self.sort_column else column in NEWEST_FIRST)

    # --- what is shown around the table ---------------------------------------------

    def draw_freshness(self, text: str) -> None:
        self._show_summary()

    def _show_summary(self) -> None:
        summary = Text(f"{range_label(self.day_range)} · ", style="bold")
        if self.freshness is not None:
            summary.append(f"{self.freshness_text()} · ", style="dim")
        if self.problem is not None and not self.rows:
            summary.append_text(safe(f"could not load: {self.problem}", style="red"))
        elif not self.rows:
            summary.append("no orders · t today · d 24 h · k 7 days · R a range of days", style="dim")
        else:
            summary.append(f"{counted(self.orders, 'order')} ({counted(len(self.rows), 'line')}): ")
            parts = []
            for status, count in self.counts.items():
                style = "bold red" if status == STUCK else status_style(status)
                label = f"stuck > {int(self.stuck_after.total_seconds() // 60)} min" if status == STUCK else status
                parts.append(Text.assemble((str(count), "bold"), " ", safe(label, style=style)))
            summary.append_text(Text(" · ").join(parts))
            title = next(column.title for column in COLUMNS if column.key == self.sort_column)
            summary.append(f"  ·  by {title} {'↓' if self.descending else '↑'}", style="dim")
            flagged = len({row.request_id for row in self.rows if row.attention})
            if flagged:
                summary.append(f"  ·  ⚠ {flagged} need attention (/attention)", style="bold red")
            query = self.row_query()
            if query:
                summary.append_text(safe(f"  ·  {len(self.shown)} shown ({self._describe(query)})", style="italic"))
        self.query_one("#orders-summary", Static).update(summary, layout=False)

    @staticmethod
    def _describe(query: RowQuery) -> str:
        return " ".join([*(f"status:{s}" for s in sorted(query.statuses)), *query.words])

    def export_rows(self) -> tuple[list[str], list[list[Cell]]]:
        """Every line the filter keeps, in the board's order, as data (tui.core.board_export), not screen text."""
        return board_export(self.shown, self.noted)

    def cells_of(self, row: BoardRow) -> tuple[Text, ...]:
        cells = self._cells.get(id(row))
        if cells is None:
            cells = self._cells[id(row)] = row_cells(row, row.request_id in self.noted)
        return cells

    def team_changed(self, change: Mapping[str, Any]) -> None:
        if change.get("what") in ("note", "all"):
            self.noted = self.app.notes.noted_orders(self.app.session.profile.name)
            self._cells = {}
            self.table.redraw()

    def highlighted_row(self) -> BoardRow | None:
        row = self.table.cursor_row
        return self.shown[row] if 0 <= row < len(self.shown) else None

    def action_pin(self) -> None:
        request_id = self.highlighted_request_id()
        if request_id is None:
            self.notify("No order line highlighted: choose days with orders (t, d, k, R).", severity="warning")
            return
        self.pin_order(request_id)

    def highlighted_request_id(self) -> str | None:
        """The RequestId of the highlighted line (enter opens it, `w` watches it)."""
        row = self.highlighted_row()
        return row.request_id if row else None

    @on(RowTable.RowHighlighted, "#orders-table")
    def _show_detail(self) -> None:
        row = self.highlighted_row()
        if row is self._detail_of:  # a keystroke of the filter that keeps the first line
            return
        self._detail_of = row
        detail = Text("")
        if row is not None:
            line = row.line
            if row.placed:
                placed = f"placed {row.placed:%Y-%m-%d %H:%M:%S} UTC"
            elif row.time_unknown:
                placed = f"{row.day} (UTC): time not yet known, asking the order"
            else:
                placed = f"{row.day} (UTC)" if row.day else "date unknown"
            parts = [
                line.order_number,
                f"RequestId {line.client_reference_number}",
                placed,
                line.client_name or "",
                line.channel or "",
                "" if line.total is None else f"order total {format_money(line.total, line.account_currency or '')}",
            ]
            detail = safe(" · ".join(part for part in parts if part))
            if row.stuck and not row.attention:  # its case says more (and the table's ⚑ says stuck)
                detail.append(
                    f"\nnot final after {int(self.stuck_after.total_seconds() // 60)} minutes: enter opens the order",
                    style="bold red",
                )
            if row.attention:
                detail.append("\n⚠ needs attention: ", style="bold red")
                detail.append_text(safe(f"{row.attention} (enter opens its case)"))
        self.query_one("#orders-detail", Static).update(detail, layout=False)

    @on(RowTable.RowSelected, "#orders-table")
    async def open_order(self) -> None:
        request_id = self.highlighted_request_id()
        if request_id:
            await self.app.open_over("order", request_id)
