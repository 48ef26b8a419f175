"""The Accounts screen's ledger: one account's transactions over some days.

Each transaction with its date, type, amount, balance after, order number
and RequestId; a chart of the balance over time; the highlighted
transaction's items (price, discount, fee, exchange rate) in a detail pane;
and a reconciliation line that names any transaction whose balance change
does not match its amount (tui.core.ledger). No requests here: the screen
fetches, the panel shows.
"""

from __future__ import annotations

from decimal import Decimal

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Sparkline, Static

from tui.api.models import WireModel
from tui.api.money_models import ExchangeRateUsed, Transaction, TransactionItem
from tui.core.dates import DayRange
from tui.core.ledger import LedgerLine, Reconciliation, balance_series
from widgets.date_range import range_label
from widgets.fitted_table import FittedTable
from widgets.money import format_amount, format_money
from widgets.safe_text import safe

# The check first, then the money: they must show whole at 80 columns, where the detail pane takes the right
# (the seconds of the date are in the detail pane), and the type beside them. The money is in the account's
# currency, which the title names: the cells are numbers, right-aligned.
LEDGER_COLUMNS = ("OK", "Date", "Amount", "Balance", "Type", "Order", "RequestId")  # a statement's running balance
MONEY_COLUMNS = ("Amount", "Balance")
# What `e` writes: numbers and plain words a spreadsheet can sum (issue 26), not the drawn cells.
EXPORT_COLUMNS = ("Date", "Type", "Amount", "Balance after", "Currency", "Order", "RequestId", "Transaction", "Adds up")


class LedgerPanel(Vertical):
    def __init__(self) -> None:
        super().__init__(id="ledger-panel")
        self.lines: list[LedgerLine] = []
        self.order_statuses: dict[str, str] = {}  # RequestId (any case) -> its order's status, from the orders report

    def compose(self) -> ComposeResult:
        yield Static("", id="ledger-title")
        yield Sparkline([], id="ledger-chart")
        with Horizontal(id="ledger-body"):
            yield FittedTable(id="ledger", cursor_type="row")
            yield Static("", id="ledger-detail")
        yield Static("", id="ledger-reconciliation")

    @property
    def table(self) -> DataTable:
        return self.query_one("#ledger", DataTable)

    def on_mount(self) -> None:
        self.table.add_columns(
            *(Text(name, justify="right") if name in MONEY_COLUMNS else name for name in LEDGER_COLUMNS)
        )

    def show_title(self, label: str | None, day_range: DayRange, freshness: str = "") -> None:
        who = safe(f"Ledger of {label}") if label else Text("Ledger: no account")
        who.append(f" · {range_label(day_range)}", style="bold")
        if freshness:
            who.append(f" · {freshness}")
        who.append("  enter: order", style="dim")  # the days' keys are in the footer
        self.query_one("#ledger-title", Static).update(who)

    def show(self, reconciliation: Reconciliation) -> None:
        self.lines = list(reconciliation.lines)
        self.table.clear()
        self.table.add_rows(_row(line, self.order_status(line.transaction)) for line in self.lines)
        self.query_one("#ledger-chart", Sparkline).data = [float(value) for value in balance_series(reconciliation)]
        failed = bool(reconciliation.failures)
        self.query_one("#ledger-reconciliation", Static).update(
            safe(reconciliation.summary(format_money), style="bold red" if failed else "green")
        )
        self.set_class(failed, "-does-not-add-up")
        self.show_detail(self.table.cursor_row if self.lines else None)

    def order_status(self, transaction: Transaction) -> str:
        return self.order_statuses.get((transaction.request_id or "").strip().casefold(), "")

    def show_detail(self, row: int | None) -> None:
        detail = self.query_one("#ledger-detail", Static)
        if row is None or not 0 <= row < len(self.lines):
            detail.update(Text("No transaction highlighted.", style="dim"))
            return
        line = self.lines[row]
        detail.update(_detail(line, self.order_status(line.transaction)))

    def export_rows(self) -> tuple[list[str], list[list[str]]]:
        """Every line shown, amounts as plain signed decimals with a currency column, and yes/no for the check."""
        rows = []
        for line in self.lines:
            t = line.transaction
            rows.append(
                [
                    (t.transaction_date or "").replace("T", " ")[:19],
                    t.transaction_type or "",
                    str(line.signed_amount),
                    str(t.available_balance.value),
                    t.currency,
                    t.order_number or "",
                    t.request_id or "",
                    t.reference,
                    "yes" if line.adds_up else "no",
                ]
            )
        return list(EXPORT_COLUMNS), rows

    def selected(self) -> Transaction | None:
        row = self.table.cursor_row
        return self.lines[row].transaction if self.lines and 0 <= row < len(self.lines) else None


def _row(line: LedgerLine, order_status: str = "") -> tuple[Text, ...]:
    t = line.transaction
    amount, after = line.signed_amount, t.available_balance  # the direction read, not the sign sent
    check = Text("✓", style="green") if line.adds_up else Text("✗", style="bold red")
    return (
        check,
        safe(_when(t)[:16]),
        Text(format_amount(amount, t.currency), style="red" if amount < 0 else "green", justify="right"),
        Text(format_amount(after.value, t.currency), justify="right"),
        _type_cell(t, order_status, line.signed_amount),
        safe(t.order_number or ""),
        safe(t.request_id or ""),
    )


def _type_cell(t: Transaction, order_status: str, amount: Decimal) -> Text:
    """The transaction's type and its order's status; a debit of a Failed order flagged ⚠ (issue 38)."""
    # The type first and whole (issue 26), then the flag, then the status: at 80 columns the column is cut after
    # the flag, and the detail pane names the status.
    cell = safe(t.transaction_type or "")
    if debit_of_failed(order_status, amount):
        cell.append(" ⚠", style="bold red")
    if order_status:
        cell.append_text(safe(f" {order_status}"))
    return cell


def debit_of_failed(order_status: str, amount: Decimal) -> bool:
    """A debit for an order that Failed: the customer may have been charged for nothing (`order case` says)."""
    return order_status.casefold() == "failed" and amount < 0


def _when(t: Transaction) -> str:
    return (t.transaction_date or "").replace("T", " ")[:19]


def _money_text(value: Decimal | None, currency: str | None) -> str:
    """An amount in its own currency when it came with one (an Amount object), else in `currency`."""
    if value is None:
        return "—"
    currency = getattr(value, "currency_code", None) or currency
    return format_money(value, currency) if currency else str(value)


def _rule(value: Decimal | None, kind: str | None, currency: str) -> str:
    """A discount or fee as the provider states it: a percentage, or a fixed amount."""
    if value is None:
        return "—"
    if (kind or "").lower() == "percentage":
        return f"{value}%"
    return _money_text(value, currency) if (kind or "").lower() == "fixed" else f"{value} {kind or ''}".strip()


def _rate_text(rate: ExchangeRateUsed) -> str:
    """`1 EUR = 0.87 USD`; a rate of 0 is the provider's "not stated": unknown, not zero."""
    if rate.known_rate is None:
        return f"{rate.from_currency or '?'} → {rate.to_currency or '?'} at a rate not stated"
    return f"1 {rate.from_currency} = {rate.known_rate} {rate.to_currency}"


def _also_sent(model: WireModel, indent: str) -> list[str]:
    """The fields the provider sent that giftdesk does not read, as they came (shown, never obeyed)."""
    return [f"{indent}{name}: {'—' if value is None else value}" for name, value in (model.model_extra or {}).items()]


def _item_lines(item: TransactionItem, account_currency: str) -> list[str]:
    brand_currency = item.brand_currency_code or ""
    rate = item.client_exchange_rate
    discount = _rule(item.client_discount_value, item.client_discount_type, brand_currency)
    fee = _rule(item.client_transaction_fee_value, item.client_transaction_fee_type, account_currency)
    lines = [
        f"{item.quantity or 0} × {item.product_name or '?'} ({item.brand_name or '?'})",
        f"  face {_money_text(item.denomination, brand_currency)}",
        f"  line price {_money_text(item.client_price, account_currency)}"
        f" · estimated {_money_text(item.estimated_price, account_currency)}",
        f"  discount {discount} · fee {fee}",
    ]
    if rate is not None:
        lines.append(f"  rate {_rate_text(rate)}")
    lines.append(f"  total {_money_text(item.client_total, account_currency)}")
    return lines + _also_sent(item, "  ")


def _detail(line: LedgerLine, order_status: str = "") -> Text:
    t = line.transaction
    currency = t.currency
    lines = [
        f"Transaction {t.reference} ({t.transaction_type or '?'})",
        *([f"Order {order_status}"] if order_status else []),
        *(
            ["⚠ a debit of a Failed order: enter opens its case (was it refunded?)"]
            if debit_of_failed(order_status, line.signed_amount)
            else []
        ),
        f"at {_when(t)}",
        f"Balance {_money_text(line.before, currency)} → {_money_text(t.available_balance.value, currency)}",
    ]
    for item in t.order_items:
        lines.extend(_item_lines(item, currency))
    extra = _also_sent(t, "  ")
    if extra:
        lines.extend(["Also sent:", *extra])
    if not line.adds_up:
        lines.extend(f"✗ {problem}" for problem in line.problems)
    return safe("\n".join(lines), multiline=True)
