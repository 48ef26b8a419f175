"""An account's ledger: its transactions in order, and whether they add up.

A transaction carries no account id, only money with currency codes, so an
account's transactions are those whose balance is in the account's currency
(one account per currency and environment: SPEC "Account"). The sign of an
amount does not say its direction: the provider's sandbox records an Order
charge as a positive amount while the balance falls (DESIGN.md "What the real
provider sends"). So a transaction's direction comes from the balance's move,
else from its type (`directed_amounts`), and its magnitude is compared: the
balance after must be the one before moved by the amount in that direction;
its items' client totals must add up to what was charged, a sub-cent
difference (client totals have 2 decimals, the charge 4) being rounding.
`reconcile` checks both and names every transaction that does not. Decimal
throughout: no sum is ever rounded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from tui.api.models import Account
from tui.api.money_models import Transaction, TransactionsReport
from tui.core.words import counted


class UnknownAccount(LookupError):
    """An account id that the profile does not list."""


def account_by_id(accounts: Iterable[Account], account_id: int) -> Account:
    for account in accounts:
        if account.id == account_id:
            return account
    raise UnknownAccount(f"no account {account_id} on this profile: `giftdesk accounts` lists them")


def of_currency(report: TransactionsReport, currency: str) -> list[Transaction]:
    """The transactions whose balance is in `currency`, oldest first (the service's order kept for ties)."""
    wanted = currency.upper()
    found = [t for t in report.transactions if t.currency.upper() == wanted]
    return sorted(found, key=lambda t: t.transaction_date or "")


def items_total(transaction: Transaction) -> Decimal | None:
    """The sum of the items' client totals, or None when an item has none."""
    totals = [item.client_total for item in transaction.order_items]
    if not totals or any(total is None for total in totals):
        return None
    return sum((total for total in totals if total is not None), Decimal(0))


# transactionType values that take money out of the account / put it in (compared without regard to case).
DEBIT_TYPES = frozenset({"order", "charge", "fee", "debit", "purchase"})
CREDIT_TYPES = frozenset({"refund", "credit", "topup", "top-up", "deposit", "reversal", "payment"})
ROUNDING = Decimal("0.01")  # client totals carry 2 decimals; a smaller difference from the charge is rounding


def type_direction(transaction: Transaction) -> int | None:
    """-1 for a debit, +1 for a credit, by the transaction's type; None when the type does not say."""
    kind = (transaction.transaction_type or "").strip().lower()
    if kind in DEBIT_TYPES:
        return -1
    if kind in CREDIT_TYPES:
        return 1
    return None


def directed_amounts(transactions: Sequence[Transaction]) -> list[Decimal | None]:
    """Each transaction's effect on its account's balance (negative: a debit), oldest first, one account's.

    The balance's move from the transaction before says the direction when it moved by the amount's magnitude;
    otherwise (the first one, or a move that does not match) the type says it; a negative amount of a type
    that says nothing is a debit (the other sign convention); else None: not known.
    """
    directed: list[Decimal | None] = []
    previous_after: Decimal | None = None
    for transaction in transactions:
        magnitude = abs(transaction.transaction_amount.value)
        after = transaction.available_balance.value
        move = None if previous_after is None else after - previous_after
        by_type = type_direction(transaction)
        if (
            move is not None
            and abs(move) == magnitude
            and (by_type is None or move == 0 or (move > 0) == (by_type > 0))
        ):
            sign = (1 if move > 0 else -1) if move else (by_type or 1)
            directed.append(magnitude * sign)  # at the amount's own precision
        elif by_type is not None:
            directed.append(magnitude * by_type)
        elif transaction.transaction_amount.value < 0:
            directed.append(transaction.transaction_amount.value)
        else:
            directed.append(None)
        previous_after = after
    return directed


def charge_matches(items: Decimal, amount: Decimal) -> bool:
    """Whether the items' client totals account for the amount charged, up to their rounding to cents."""
    return abs(abs(items) - abs(amount)) < ROUNDING


@dataclass(frozen=True)
class LedgerLine:
    transaction: Transaction
    before: Decimal  # the balance before it: the previous balance after (derived for the first)
    problems: tuple[str, ...]
    directed: Decimal | None = None  # its effect on the balance (negative: a debit), None when not known

    @property
    def adds_up(self) -> bool:
        return not self.problems

    @property
    def signed_amount(self) -> Decimal:
        """The amount as it moved the balance (a debit negative), whichever sign it came with; as it came when
        its direction is not known."""
        return self.directed if self.directed is not None else self.transaction.transaction_amount.value


@dataclass(frozen=True)
class Reconciliation:
    lines: tuple[LedgerLine, ...]

    @property
    def failures(self) -> list[LedgerLine]:
        return [line for line in self.lines if not line.adds_up]

    def summary(self, money: Callable[[Decimal, str], str] = lambda value, currency: f"{value} {currency}") -> str:
        """One line for a person: all adds up, or which transactions do not and why.
        `money` formats an amount (the screen and the CLI pass widgets.money.format_money)."""
        if not self.lines:
            return "No transactions in this range."
        first, last = self.lines[0], self.lines[-1]
        currency = last.transaction.currency
        moved = last.transaction.available_balance.value - first.before
        sign = "+" if moved >= 0 else "−"
        head = (
            f"{counted(len(self.lines), 'transaction')}, balance {money(first.before, currency)} → "
            f"{money(last.transaction.available_balance.value, currency)} ({sign}{money(abs(moved), currency)})"
        )
        if not self.failures:
            return f"{head}: every balance change matches its amount."
        named = "; ".join(f"{line.transaction.reference}: {', '.join(line.problems)}" for line in self.failures[:3])
        more = f" and {len(self.failures) - 3} more" if len(self.failures) > 3 else ""
        return f"{head}: {len(self.failures)} do not add up: {named}{more}."


def reconcile(transactions: Sequence[Transaction]) -> Reconciliation:
    """Check each transaction against the one before it (the list is one account's, oldest first)."""
    lines: list[LedgerLine] = []
    previous_after: Decimal | None = None
    for transaction, directed in zip(transactions, directed_amounts(transactions), strict=True):
        amount, after = transaction.transaction_amount, transaction.available_balance
        problems: list[str] = []
        if amount.currency_code and after.currency_code and amount.currency_code.upper() != after.currency_code.upper():
            problems.append(f"amount in {amount.currency_code}, balance in {after.currency_code}")
        if previous_after is None:
            before = after.value - (directed if directed is not None else amount.value)
        else:
            before = previous_after
            moved = after.value - before
            if directed is None and abs(moved) != abs(amount.value):
                problems.append(f"balance moved {moved:+}, amount {amount.value}")
            elif directed is not None and moved != directed:
                problems.append(f"balance moved {moved:+}, amount {directed:+}")
        charged = items_total(transaction)
        if charged is not None and not charge_matches(charged, amount.value):
            problems.append(f"items add up to {charged}, amount {abs(amount.value)}")
        lines.append(LedgerLine(transaction, before, tuple(problems), directed))
        previous_after = after.value
    return Reconciliation(tuple(lines))


def balance_series(reconciliation: Reconciliation) -> list[Decimal]:
    """The balance over time: before the first transaction, then after each."""
    if not reconciliation.lines:
        return []
    return [
        reconciliation.lines[0].before,
        *(line.transaction.available_balance.value for line in reconciliation.lines),
    ]
