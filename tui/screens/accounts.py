"""Accounts: which account, how much balance; choose the one orders settle on;
and the highlighted account's ledger over some days (tui/screens/ledger_panel.py).

An account can be chosen only when it is active and belongs to the profile's
environment (a production account listed on a sandbox profile, or the
reverse, is flagged). The choice goes through `app.choose_account`, which
remembers it per profile and environment and shows it in the context bar.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from styles import STYLES
from tui.api.client import ServiceClient
from tui.api.errors import ServiceError
from tui.api.models import Account
from tui.api.money_models import TransactionsReport
from tui.core.ledger import of_currency, reconcile
from tui.core.words import counted
from tui.screens.base import BaseScreen
from tui.screens.freshness import FreshnessMixin
from tui.screens.ledger_panel import LedgerPanel
from widgets.date_range import RANGE_BINDINGS, DateRangeKeys, opening_range
from widgets.fitted_table import FittedTable
from widgets.money import format_money
from widgets.safe_text import safe, safe_row

ACCOUNT_COLUMNS = ("", "Id", "Currency", "Balance", "Active", "Environment", "Note")


def why_not_choosable(account: Account, environment: str) -> str | None:
    """None when the account can settle orders on a profile of `environment`,
    else the short reason shown in the table."""
    if account.environment(environment) != environment:
        return "wrong environment"
    if not account.is_active:
        return "inactive"
    return None


def refusal(account: Account, environment: str, problem: str) -> str:
    """The whole sentence, for the notification when someone tries anyway."""
    if problem == "wrong environment":
        return f"Account {account.id} is a {account.environment(environment)} account and this profile is {environment}: orders would be refused."
    return f"Account {account.id} is inactive: the service does not accept orders on it."


def account_label(account: Account) -> str:
    return f"{account.id} {account.currency}"


class AccountsScreen(FreshnessMixin, DateRangeKeys, BaseScreen):
    destination = "accounts"
    REFRESHES_BY_ITSELF = True
    LOAD_GROUP = "ledger"
    ACCOUNTS_GROUP = "accounts"  # the worker group of the accounts' load (LOAD_GROUP: the ledger's)
    REFRESH_GROUPS = frozenset({ACCOUNTS_GROUP, LOAD_GROUP})
    CSS_PATH = STYLES / "accounts.tcss"
    EXPORT_NAME = "ledger"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    BINDINGS = [
        Binding("r", "refresh", "Refresh", id="accounts.refresh"),
        Binding("c", "copy_id", "Copy id", id="accounts.copy"),
        *RANGE_BINDINGS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.accounts: list[Account] = []
        self.day_range = opening_range()
        self.report: TransactionsReport | None = None  # the range's transactions, every account's

    def compose_body(self) -> ComposeResult:
        yield Static("", id="accounts-note")
        yield FittedTable(id="accounts", cursor_type="row")
        yield LedgerPanel()

    @property
    def ledger(self) -> LedgerPanel:
        return self.query_one(LedgerPanel)

    def export_table(self) -> DataTable:
        return self.ledger.table

    def export_rows(self) -> tuple[list[str], list[list[str]]]:
        return self.ledger.export_rows()

    @property
    def table(self) -> DataTable:
        return self.query_one("#accounts", DataTable)

    def on_mount(self) -> None:
        self.table.add_columns(*ACCOUNT_COLUMNS)
        self.table.focus()
        self.action_refresh()

    def action_refresh(self) -> None:
        self.refreshing(self.table, self.table.row_count > 0, self.ACCOUNTS_GROUP)
        self.load()
        self.reload_ledger(fresh=True)

    def range_changed(self) -> None:
        self.report = None  # another range's transactions: not this one's, even when its load fails
        self.ledger.table.clear()
        self.status_line.forget(self.LOAD_GROUP)
        self.reload_ledger(fresh=False)

    def reload_ledger(self, *, fresh: bool) -> None:
        """The range's transactions: from the local copy where it can answer, unless `fresh` (r). Until
        they come (and when their load fails) the last good ones stay."""
        self.refreshing(self.ledger.table, self.ledger.table.row_count > 0, self.LOAD_GROUP)
        self.load_ledger(fresh)

    @work(exclusive=True, exit_on_error=False, group=ACCOUNTS_GROUP)
    async def load(self) -> None:
        client = await self.app.session.client()
        self.show(await client.accounts())

    @work(exclusive=True, exit_on_error=False, group="ledger")
    async def load_ledger(self, fresh: bool) -> None:
        session = self.app.session
        client = await session.client()
        answer = await session.copies().transactions(client, self.day_range.start, self.day_range.end, fresh=fresh)
        self.report = answer.value
        self.ledger.order_statuses = await self._order_statuses(client)
        self.show_freshness(answer)

    async def _order_statuses(self, client: ServiceClient) -> dict[str, str]:
        """Each order's status from the orders report of the range (no limit on it; ended days kept): the ledger
        says it beside each debit. Without it the ledger still shows, without statuses."""
        try:
            history = await self.app.session.copies().order_history(client, self.day_range)
        except ServiceError:
            return {}
        return {line.client_reference_number.strip().casefold(): line.status for line in history.value}

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # BaseScreen's handler runs too (Textual calls each class's) and reports the error.
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR):
            if event.worker.group == self.ACCOUNTS_GROUP:
                self.table.loading = False
            elif event.worker.group == "ledger":
                self.ledger.table.loading = False

    def show_ledger(self) -> None:
        """The highlighted account's transactions, from the range's report (no new request)."""
        account = self._selected()
        self.ledger.show_title(account_label(account) if account else None, self.day_range, self.freshness_text())
        if account is not None and self.report is not None:
            self.ledger.show(reconcile(of_currency(self.report, account.currency)))

    def draw_freshness(self, text: str) -> None:
        self.show_ledger()

    def renew(self) -> None:
        self.load_ledger(False)

    @on(DataTable.RowHighlighted, "#accounts")
    def on_account_highlighted(self) -> None:
        self.show_ledger()

    @on(DataTable.RowHighlighted, "#ledger")
    def on_transaction_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.ledger.show_detail(event.cursor_row)

    @on(DataTable.RowSelected, "#ledger")
    async def on_transaction_selected(self) -> None:
        # enter on a transaction: its order in the order inspector.
        transaction = self.ledger.selected()
        if transaction is not None and transaction.request_id:
            await self.app.open_over("order", transaction.request_id.strip())

    def show(self, accounts: list[Account]) -> None:
        self.accounts = accounts
        session = self.app.session
        self.table.clear()
        self.table.add_rows(self._row(account, session.environment, session.account_id) for account in accounts)
        chosen = next((i for i, a in enumerate(accounts) if a.id == session.account_id), 0)
        self.table.move_cursor(row=chosen)
        usable = sum(1 for a in accounts if why_not_choosable(a, session.environment) is None)
        self.query_one("#accounts-note", Static).update(
            safe(
                f"{counted(len(accounts), 'account')}, {usable} usable on {session.profile.name} ({session.environment}). "
                "enter: settle orders on it"
            )
        )

    @staticmethod
    def _row(account: Account, environment: str, chosen_id: int | None) -> tuple[Text, ...]:
        problem = why_not_choosable(account, environment)
        style = {None: "", "inactive": "dim"}.get(problem, "bold red")
        balance = safe(format_money(account.balance, account.currency))
        balance.justify = "right"
        return safe_row(
            Text("●", style="bold green") if account.id == chosen_id else "",
            safe(account.id, style=style),
            account.currency,
            balance,
            "yes" if account.is_active else Text("no", style="dim"),
            Text(account.environment(environment), style=style),
            Text(problem or "", style=style),
        )

    def _selected(self) -> Account | None:
        if not self.accounts:
            return None
        return self.accounts[min(self.table.cursor_row, len(self.accounts) - 1)]

    @on(DataTable.RowSelected, "#accounts")
    def on_data_table_row_selected(self) -> None:
        # enter on a row: the table's own selection key, so no binding competes with it.
        self.action_choose()

    def action_choose(self) -> None:
        account = self._selected()
        if account is None:
            return
        problem = why_not_choosable(account, self.app.session.environment)
        if problem is not None:
            self.notify(
                refusal(account, self.app.session.environment, problem), title="Cannot choose", severity="error"
            )
            return
        self.app.choose_account(account.id, account_label(account))
        self.notify(f"Orders will settle on account {account_label(account)}.")
        self.show(self.accounts)

    def action_copy_id(self) -> None:
        account = self._selected()
        if account is not None:
            self.app.copy_to_clipboard(str(account.id))
            self.notify(f"Copied account id {account.id}")
