"""Exchange rates: the service's rates for a base currency, and a small converter.

The rates are the ones an order paid from an account in another currency is
converted at (DESIGN "Exchange rates"). Type a base (USD by default: the
service's answer without parameters) and an amount; the table shows each
currency's rate and the amount converted, exact, rounded only when shown to
the currency's ISO 4217 minor units. `e` exports the table as shown.
"""

from __future__ import annotations

from decimal import Decimal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Input, Label, Static
from textual.worker import Worker, WorkerState

from styles import STYLES
from tui.api.money_models import ExchangeRates
from tui.core.rates import AmountInvalid, convert_all, parse_amount
from tui.screens.base import BaseScreen
from tui.screens.freshness import FreshnessMixin
from widgets.fitted_table import FittedTable
from widgets.money import format_money
from widgets.safe_text import safe

RATE_COLUMNS = ("Currency", "Rate", "Converted")
NOT_STATED = "not stated"  # the service sent 0: a rate it does not state
DEFAULT_AMOUNT = Decimal(100)


class RatesScreen(FreshnessMixin, BaseScreen):
    destination = "rates"
    REFRESHES_BY_ITSELF = True
    LOAD_GROUP = "rates"
    REFRESH_GROUPS = frozenset({LOAD_GROUP})
    CSS_PATH = STYLES / "rates.tcss"
    EXPORT_NAME = "rates"
    BINDINGS = [
        Binding("r", "refresh", "Refresh", id="rates.refresh"),
        Binding("b", "focus_base", "Base", id="rates.base"),
        Binding("a", "focus_amount", "Amount", id="rates.amount"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rates: ExchangeRates | None = None
        self.asked_base: str | None = None  # the base of the rates shown or loading (None: the service's)
        self.amount = DEFAULT_AMOUNT

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="rates-form"):
            yield Label("Base")
            yield Input("", id="rates-base", placeholder="USD", max_length=3)
            yield Label("Amount")
            yield Input(str(DEFAULT_AMOUNT), id="rates-amount", placeholder="100")
        yield Static("", id="rates-note")
        yield FittedTable(id="rates", cursor_type="row")

    @property
    def table(self) -> DataTable:
        return self.query_one("#rates", DataTable)

    def on_mount(self) -> None:
        self.table.add_columns(*RATE_COLUMNS)
        self.table.focus()
        self.show_base()

    def accept_jump(self, argument: str) -> None:
        """`:rates GBP` shows the rates based on GBP."""
        self.query_one("#rates-base", Input).value = argument.strip().upper()[:3]
        self.show_base()

    def action_focus_base(self) -> None:
        self.query_one("#rates-base", Input).focus()

    def action_focus_amount(self) -> None:
        self.query_one("#rates-amount", Input).focus()

    def action_refresh(self) -> None:
        """The rates from the service (within its limits)."""
        self.show_base(fresh=True)

    def show_base(self, *, fresh: bool = False) -> None:
        """The base's rates: from the local copy while it is younger than its keeping time, unless `fresh`."""
        self.table.loading = True
        self.asked_base = self.query_one("#rates-base", Input).value.strip().upper() or None
        self.load(self.asked_base, fresh)

    def renew(self) -> None:
        self.load(self.asked_base, False)  # the base asked for, not one being typed

    @work(exclusive=True, exit_on_error=False, group="rates")
    async def load(self, base: str | None, fresh: bool) -> None:
        session = self.app.session
        client = await session.client()
        answer = await session.copies().exchange_rates(client, base, fresh=fresh)
        self.rates = answer.value
        self.show_freshness(answer)
        self.show()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # BaseScreen's handler runs too (Textual calls each class's) and reports the error.
        if event.worker.group == "rates" and event.state in (WorkerState.SUCCESS, WorkerState.ERROR):
            self.table.loading = False

    @on(Input.Submitted, "#rates-base")
    def base_submitted(self) -> None:
        self.show_base()
        self.action_focus_amount()  # the next field (the table cannot take focus while it loads)

    @on(Input.Changed, "#rates-amount")
    def amount_changed(self, event: Input.Changed) -> None:
        try:
            self.amount = parse_amount(event.value or "0")
        except AmountInvalid as error:
            self.query_one("#rates-note", Static).update(safe(str(error), style="red"))
            return
        self.show()

    @on(Input.Submitted, "#rates-amount")
    def amount_submitted(self) -> None:
        self.table.focus()

    def draw_freshness(self, text: str) -> None:
        self.show_note()

    def show_note(self) -> None:
        if self.rates is None:
            return
        base = self.rates.base_currency_code
        note = safe(f"{format_money(self.amount, base)} in each currency, at the service's rates (1 {base} = rate).")
        note.append(f"  {self.freshness_text()} · b: base · a: amount · e: export", style="dim")
        self.query_one("#rates-note", Static).update(note)

    def show(self) -> None:
        if self.rates is None:
            return
        self.show_note()
        self.table.clear()
        self.table.add_rows(
            (
                safe(row.currency),
                Text(NOT_STATED if row.rate is None else str(row.rate), justify="right"),
                Text(NOT_STATED if row.amount is None else format_money(row.amount, row.currency), justify="right"),
            )
            for row in convert_all(self.amount, self.rates)
        )
