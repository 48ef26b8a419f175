"""Audit: the local log of redeems, test orders, notification changes and card reveals.

Read-only view of tui.local.storage.AuditLog (or the team's, tui.team.audit), newest
first. `/` filters the rows on any field; the line under the table shows the
highlighted entry in full. The columns are sized by what they hold: each gets
what its longest cell needs when the screen has room, else its least width
plus a fair share of what is left. The team's entries say who wrote them (the
database login) and from which host, in the table and below it; an entry the
team log could not read is said by its id, and hides nothing else. Values are
stored masked, so nothing here needs masking again.
"""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from styles import STYLES
from tui.core.words import counted
from tui.local.storage import AuditEntry, audit_log
from tui.screens.base import BaseScreen
from widgets.filter_bar import RowFilter
from widgets.fitted_table import FittedTable
from widgets.row_table import PADDING, RowColumn
from widgets.safe_text import safe, safe_row

# Least widths chosen so that what matters in an incident (when, where, what, how it ended) fits 80 columns;
# a wider terminal gives each column what its content needs (`content_widths`).
COLUMNS = (
    RowColumn("time", "Time (UTC)", 16),
    RowColumn("env", "Env", 7),
    RowColumn("action", "Action", 11),
    RowColumn("outcome", "Outcome", 24),
    RowColumn("subject", "Subject", 12),
    RowColumn("recipient", "Recipient", 12),
    RowColumn("wallet", "Wallet", 6),
    RowColumn("profile", "Profile", 16),
)
# The team's entries (tui.team.audit) also say who wrote them and where (login@host), after the outcome.
BY = RowColumn("by", "By", 10)
TEAM_COLUMNS = (*COLUMNS[:4], BY, *COLUMNS[4:])
MAX_CELL = 100  # a column never asks for more than this: the line under the table says an entry whole
SCROLLBAR = 2  # the table's vertical scroll bar, kept whether it shows or not


def _time(entry: AuditEntry, *, seconds: bool = True) -> str:
    """ISO 8601 UTC as stored, made readable: 2026-01-02 13:45:07."""
    return entry.time.replace("T", " ")[: 19 if seconds else 16]


def _environment(entry: AuditEntry) -> Text:
    if entry.environment == "production":
        return Text("PROD", style="bold red")
    return safe(entry.environment)


def _short_subject(subject: str) -> str:
    """A masked payout URL by its masked token: the host is the same on every line."""
    head, slash, tail = subject.rpartition("/")
    return f"…/{tail}" if slash and head else subject


def _said_by(entry: AuditEntry) -> tuple[str, str]:
    """Who wrote a team entry (the database login the database stamped) and from which host; "" on this machine's."""
    who, host = getattr(entry, "who", None), getattr(entry, "host", None)
    return (who if isinstance(who, str) else "", host if isinstance(host, str) else "")


def _row(entry: AuditEntry, team: bool = False) -> tuple[Text, ...]:
    cells = safe_row(
        _time(entry, seconds=False),
        _environment(entry),
        entry.action,
        entry.outcome,
        _short_subject(entry.subject),
        entry.recipient or "",
        entry.wallet or "",
        entry.profile,
    )
    if not team:
        return cells
    who, host = _said_by(entry)
    return (*cells[:4], safe(f"{who}@{host}" if host else who), *cells[4:])


def content_widths(columns: tuple[RowColumn, ...], needs: list[int], room: int) -> list[int]:
    """Each column's width in `room` cells (padding included in the room): what its content `needs` when
    everything fits; else at least its least width (less when its content is shorter), and what is left
    shared fairly among the columns that need more, the smallest need served first."""
    widths = [min(column.width, need) for column, need in zip(columns, needs, strict=True)]
    spare = room - sum(width + 2 * PADDING for width in widths)
    short = sorted(
        (index for index, need in enumerate(needs) if need > widths[index]), key=lambda i: needs[i] - widths[i]
    )
    for served, index in enumerate(short):
        given = max(0, min(needs[index] - widths[index], spare // (len(short) - served)))
        widths[index] += given
        spare -= given
    return widths


def _unreadable(ids: list[int]) -> str:
    return f"{counted(len(ids), 'entry')} unreadable (id{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))})"


def _describe(entry: AuditEntry) -> Text:
    writer, host = _said_by(entry)
    by = f" · by {writer}" + (f" on {host}" if host else "") if writer else ""
    who = f"{_time(entry)} UTC · {entry.profile} ({entry.environment}){by}"
    what = " · ".join(part for part in (entry.action, entry.subject, entry.wallet, entry.recipient) if part)
    lines = [safe(who, style="dim"), safe(what), safe(entry.outcome, style="bold")]
    if entry.detail:
        lines.append(safe(entry.detail, style="italic"))
    return Text("\n").join(lines)


class AuditScreen(BaseScreen):
    destination = "audit"
    EXPORT_NAME = "audit"
    CSS_PATH = STYLES / "audit.tcss"
    BINDINGS = [
        Binding("slash", "filter", "Filter", id="audit.filter", priority=True),
        Binding("r", "reload", "Reload", id="audit.reload"),
    ]
    REFRESH_GROUPS = frozenset({"audit-read"})

    def __init__(self) -> None:
        super().__init__()
        self.audit_log = audit_log()
        self.entries: list[AuditEntry] = []  # the whole log, newest first
        self.shown: list[AuditEntry] = []  # the rows on screen, after the filter
        self.widths: list[int] = []  # the columns' widths for the screen's width and the entries
        self.team = False  # whether the entries say who wrote them (the team's log): the By column
        self.unreadable: list[int] = []  # ids of the team log's entries that could not be read

    def compose_body(self) -> ComposeResult:
        yield RowFilter(id="audit-filter")
        yield Static(id="audit-summary")
        yield FittedTable(id="audit-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="audit-detail")

    def on_mount(self) -> None:
        self._fit_columns(self.app.size.width)
        self.query_one(DataTable).focus()  # not the filter: it is hidden until `/`

    def on_resize(self) -> None:
        self._fit_columns(self.size.width)

    def _fit_columns(self, width: int) -> None:
        team = any(_said_by(entry)[0] for entry in self.entries)
        columns = TEAM_COLUMNS if team else COLUMNS
        needs = [len(column.title) for column in columns]
        for entry in self.entries:
            needs = [
                max(need, min(cell.cell_len, MAX_CELL)) for need, cell in zip(needs, _row(entry, team), strict=True)
            ]
        widths = content_widths(columns, needs, width - SCROLLBAR)
        if (team, widths) == (self.team, self.widths):
            return
        self.team, self.widths = team, widths
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for column, column_width in zip(columns, widths, strict=True):
            table.add_column(column.title, width=column_width)
        self._show_rows()

    def on_screen_resume(self) -> None:
        # Other screens append while this one is hidden: read again on every visit.
        self.action_reload()

    @work(exclusive=True, group="audit-read", exit_on_error=False)
    async def action_reload(self) -> None:
        self.entries = await asyncio.to_thread(self.audit_log.entries)
        self.unreadable = list(getattr(self.audit_log, "unreadable", ()))  # the team log's (tui.team.audit)
        self._fit_columns(self.size.width or self.app.size.width)
        self._show_rows()

    def action_filter(self) -> None:
        self.query_one(RowFilter).open()

    @on(RowFilter.Changed, "#audit-filter")
    def filter_changed(self) -> None:
        self._show_rows()

    @on(RowFilter.Submitted, "#audit-filter")
    @on(RowFilter.Closed)
    def filter_done(self) -> None:
        self._show_rows()
        self.query_one(DataTable).focus()

    def _show_rows(self) -> None:
        text = self.query_one(RowFilter).value.strip()
        self.shown = [entry for entry in self.entries if not text or entry.matches(text)]
        table = self.query_one(DataTable)
        table.clear()
        for entry in self.shown:
            table.add_row(*_row(entry, self.team))
        self._show_summary(text)
        self._show_detail()

    def _show_summary(self, text: str) -> None:
        if not self.entries and not self.unreadable:
            summary = f"No audit entries yet in {self.audit_log.where}. Redeems, test orders, notification changes and card reveals are recorded here."
        elif text:
            summary = f"{len(self.shown)} of {counted(len(self.entries), 'entry')} match “{text}” · newest first"
        else:
            summary = f"{counted(len(self.entries), 'entry')} · newest first · / filters · {self.audit_log.where}"
        if self.unreadable:
            summary += f" · {_unreadable(self.unreadable)}: `giftdesk audit verify` names it"
        self.query_one("#audit-summary", Static).update(safe(summary))

    @on(DataTable.RowHighlighted, "#audit-table")
    def _show_detail(self) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        pane = self.query_one("#audit-detail", Static)
        pane.display = 0 <= row < len(self.shown)  # no empty pane under an empty table
        pane.update(_describe(self.shown[row]) if pane.display else Text(""))
