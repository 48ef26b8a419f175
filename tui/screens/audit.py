"""Audit: the local log of redeems, test orders, notification changes and card reveals.

Read-only view of tui.local.storage.AuditLog, newest first. `/` filters the rows
on any field; the line under the table shows the highlighted entry in full
(the table crops long outcomes at 80 columns). Values are stored masked, so
nothing here needs masking again.
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
from widgets.row_table import RowColumn, grown_widths
from widgets.safe_text import safe, safe_row

# Widths chosen so that what matters in an incident (when, where, what, how it ended) fits 80 columns;
# a wider terminal gives its room to the outcome first, then to what it was about.
COLUMNS = (
    RowColumn("time", "Time (UTC)", 16),
    RowColumn("env", "Env", 7),
    RowColumn("action", "Action", 11),
    RowColumn("outcome", "Outcome", 24, grow=3),
    RowColumn("subject", "Subject", 12, grow=1),
    RowColumn("recipient", "Recipient", 12, grow=1),
    RowColumn("wallet", "Wallet", 6),
    RowColumn("profile", "Profile", 16),
)
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


def _row(entry: AuditEntry) -> tuple[Text, ...]:
    return safe_row(
        _time(entry, seconds=False),
        _environment(entry),
        entry.action,
        entry.outcome,
        _short_subject(entry.subject),
        entry.recipient or "",
        entry.wallet or "",
        entry.profile,
    )


def _describe(entry: AuditEntry) -> Text:
    who = f"{_time(entry)} UTC · {entry.profile} ({entry.environment})"
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
        Binding("slash", "filter", "Filter", id="audit.filter"),
        Binding("r", "reload", "Reload", id="audit.reload"),
    ]
    REFRESH_GROUPS = frozenset({"audit-read"})

    def __init__(self) -> None:
        super().__init__()
        self.audit_log = audit_log()
        self.entries: list[AuditEntry] = []  # the whole log, newest first
        self.shown: list[AuditEntry] = []  # the rows on screen, after the filter
        self.widths: list[int] = []  # the columns' widths for the screen's width

    def compose_body(self) -> ComposeResult:
        yield RowFilter(id="audit-filter")
        yield Static(id="audit-summary")
        yield DataTable(id="audit-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="audit-detail")

    def on_mount(self) -> None:
        self._fit_columns(self.app.size.width)
        self.query_one(DataTable).focus()  # not the filter: it is hidden until `/`

    def on_resize(self) -> None:
        self._fit_columns(self.size.width)

    def _fit_columns(self, width: int) -> None:
        widths = grown_widths(COLUMNS, width - SCROLLBAR)
        if widths == self.widths:
            return
        self.widths = widths
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for column, column_width in zip(COLUMNS, widths, strict=True):
            table.add_column(column.title, width=column_width)
        self._show_rows()

    def on_screen_resume(self) -> None:
        # Other screens append while this one is hidden: read again on every visit.
        self.action_reload()

    @work(exclusive=True, group="audit-read", exit_on_error=False)
    async def action_reload(self) -> None:
        self.entries = await asyncio.to_thread(self.audit_log.entries)
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
            table.add_row(*_row(entry))
        self._show_summary(text)
        self._show_detail()

    def _show_summary(self, text: str) -> None:
        if not self.entries:
            summary = f"No audit entries yet in {self.audit_log.where}. Redeems, test orders, notification changes and card reveals are recorded here."
        elif text:
            summary = f"{len(self.shown)} of {counted(len(self.entries), 'entry')} match “{text}” · newest first"
        else:
            summary = f"{counted(len(self.entries), 'entry')} · newest first · / filters · {self.audit_log.where}"
        self.query_one("#audit-summary", Static).update(safe(summary))

    @on(DataTable.RowHighlighted, "#audit-table")
    def _show_detail(self) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        pane = self.query_one("#audit-detail", Static)
        pane.display = 0 <= row < len(self.shown)  # no empty pane under an empty table
        pane.update(_describe(self.shown[row]) if pane.display else Text(""))
