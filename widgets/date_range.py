"""Choosing the days a list covers (order history, ledger): one set of keys for every such screen.

`DateRangeKeys` is a screen mixin: `t` today, `d` the last 24 hours (today
and yesterday, since the service takes whole days), `k` the last 7 days,
`R` a typed range in `DateRangeDialog` (YYYY-MM-DD, today, yesterday, Nd).
The screen keeps `day_range` and implements `range_changed()` to reload.
"""

from __future__ import annotations

from datetime import date

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from tui.core.dates import DateInvalid, DayRange
from widgets.safe_text import safe

# The days a list opens on: the last 24 hours, so that just after midnight (UTC, the service's days) an
# incident of a few minutes ago is on screen, not behind `d`.
OPENING_DAYS = 2


def opening_range() -> DayRange:
    return DayRange.last_days(OPENING_DAYS, today=date.today())


def range_label(day_range: DayRange) -> str:
    """`today`, `last 7 days` for a range that ends today, else its days."""
    if day_range.end != date.today():
        return str(day_range)
    days = (day_range.end - day_range.start).days + 1
    return "today" if days == 1 else f"last {days} days"


RANGE_BINDINGS = [
    Binding("t", "range_days(1)", "Today", id="range.today"),
    Binding("d", "range_days(2)", "24 h", id="range.day"),
    Binding("k", "range_days(7)", "7 days", id="range.week"),
    Binding("R", "range_typed", "Range…", id="range.typed"),
]


class DateRangeKeys:
    """Mixin for a Screen: the range keys above, then `range_changed()`."""

    day_range: DayRange

    def range_changed(self) -> None:
        raise NotImplementedError

    def action_range_days(self, days: int) -> None:
        self.day_range = DayRange.last_days(days, today=date.today())
        self.range_changed()

    def action_range_typed(self) -> None:
        def chosen(day_range: DayRange | None) -> None:
            if day_range is not None:
                self.day_range = day_range
                self.range_changed()

        self.app.push_screen(DateRangeDialog(self.day_range), chosen)  # type: ignore[attr-defined]


class DateRangeDialog(ModalScreen["DayRange | None"]):
    DEFAULT_CSS = """
    DateRangeDialog { align: center middle; }
    DateRangeDialog > Vertical {
        width: 64; max-width: 100%; height: auto;
        border: thick $accent; background: $surface; padding: 1 2;
    }
    DateRangeDialog Horizontal { height: auto; }
    DateRangeDialog Input { width: 1fr; }
    DateRangeDialog #range-error { color: $error; height: auto; }
    DateRangeDialog #range-buttons { align-horizontal: right; margin-top: 1; }
    DateRangeDialog Button { margin-left: 2; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="range.cancel")]

    def __init__(self, current: DayRange) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Days to show (both included): YYYY-MM-DD, today, yesterday or Nd")
            with Horizontal():
                yield Input(str(self.current.start), id="range-from", placeholder="from")
                yield Input(str(self.current.end), id="range-to", placeholder="to (default today)")
            yield Static(id="range-error")
            with Horizontal(id="range-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Show", id="show", variant="primary")

    @on(Input.Submitted)
    @on(Button.Pressed, "#show")
    def show(self) -> None:
        start = self.query_one("#range-from", Input).value
        end = self.query_one("#range-to", Input).value.strip() or None
        try:
            day_range = DayRange.parse(start, end, today=date.today())
        except DateInvalid as error:
            self.query_one("#range-error", Static).update(safe(str(error)))
            return
        self.dismiss(day_range)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
