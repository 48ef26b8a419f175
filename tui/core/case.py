"""The case file's rules: one order's timeline and its verdict ("was the customer charged?").

Pure: the wiring layer (tui.case_file) gathers the facts from every source giftdesk has; this module orders
the events and decides the verdict and whether the case needs attention (docs/decisions.md "The case file").
Amounts are Decimal and never rounded; the direction of each transaction is tui.core.ledger's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from tui.core.words import counted

STUCK_AFTER_MINUTES = 15  # an order not final this long after it was created needs a look
UNCLAIMED_DAYS = 25  # a payout unclaimed this long is near the end of its claim window
BAD_PAYOUT_STATUSES = frozenset({"returned", "reversed"})
ROUNDING = Decimal("0.01")  # less than a cent between what was charged and what was due is rounding
SOURCES = ("order", "transactions", "inbox", "audit", "notes", "watch", "payout")


@dataclass(frozen=True)
class Event:
    time: datetime | None  # aware, UTC; None when the source does not say (shown first, as "time not known")
    source: str  # one of SOURCES
    what: str  # masked: never a card code, PIN, weblink or recipient in clear
    by: str = ""  # who: an operator, a login@host, the provider


@dataclass(frozen=True)
class PayoutSeen:
    status: str
    age_days: float  # since the redeem was sent


@dataclass(frozen=True)
class CaseFacts:
    """What the sources said about one order, as the verdict needs it."""

    status: str
    final: bool
    created: datetime | None  # aware, UTC
    currency: str  # the account's currency ("" when nothing says it)
    debits: Sequence[Decimal] = ()  # magnitudes of the transactions that took money for it
    credits: Sequence[Decimal] = ()  # magnitudes of those that gave money back
    transactions_known: bool = False  # its days' transactions were read (a copy or the service)
    undirected: int = 0  # its transactions whose direction neither the balance's move nor the type says
    transactions_problem: str = ""  # why they were not, when not
    total: Decimal | None = None  # the order's total, in the account's currency
    sold_share: Decimal | None = None  # face value of its Sold cards / face value of all its cards
    refused_callbacks: int = 0
    unknown_outcomes: int = 0
    payouts: Sequence[PayoutSeen] = field(default_factory=tuple)


@dataclass(frozen=True)
class Verdict:
    status: str
    charged: Decimal
    refunded: Decimal
    currency: str
    attention: bool
    reasons: tuple[str, ...]
    words: str
    charges_known: bool

    @property
    def net(self) -> Decimal:
        return self.charged - self.refunded

    def to_json(self) -> dict[str, object]:
        return {
            "charged": str(self.charged) if self.charges_known else None,
            "refunded": str(self.refunded) if self.charges_known else None,
            "net": str(self.net) if self.charges_known else None,
            "currency": self.currency or None,
            "attention": self.attention,
            "reasons": list(self.reasons),
            "words": self.words,
        }


def verdict(facts: CaseFacts, now: datetime) -> Verdict:
    charged = sum(facts.debits, Decimal(0))
    refunded = sum(facts.credits, Decimal(0))
    reasons = attention_reasons(facts, charged - refunded, now)
    return Verdict(
        facts.status,
        charged,
        refunded,
        facts.currency,
        bool(reasons),
        tuple(reasons),
        _words(facts, charged, refunded, reasons),
        facts.transactions_known and not facts.undirected,
    )


def attention_reasons(facts: CaseFacts, net: Decimal, now: datetime) -> list[str]:
    """Every reason this order needs a person's look (docs/decisions.md "The case file"), in words."""
    reasons: list[str] = []
    status = facts.status.casefold()
    money = f" {facts.currency}" if facts.currency else ""
    if facts.transactions_known:
        if status == "failed" and net > 0:
            reasons.append(f"Failed, but {net}{money} charged and not refunded")
        if status == "partialfailed" and facts.total is not None and facts.sold_share is not None:
            due = facts.total * facts.sold_share
            if net - due >= ROUNDING:
                reasons.append(f"PartialFailed: {net}{money} charged for {_plain(due)}{money} of Sold cards")
        if facts.undirected:
            reasons.append(
                f"{counted(facts.undirected, 'transaction')} for it of unknown direction: read it in the ledger"
            )
        elif facts.final and status in ("succeeded", "partialfailed") and not facts.debits:
            reasons.append(f"{facts.status}, but no debit for it in its days' transactions")
    if not facts.final and facts.created is not None:
        minutes = (now - facts.created).total_seconds() / 60
        if minutes >= STUCK_AFTER_MINUTES:
            reasons.append(f"not final {_duration(minutes)} after it was created")
    if facts.refused_callbacks:
        reasons.append(f"{counted(facts.refused_callbacks, 'callback')} about it refused by the receiver")
    if facts.unknown_outcomes:
        reasons.append(f"{counted(facts.unknown_outcomes, 'money action')} with an unknown outcome in the audit")
    for payout in facts.payouts:
        if payout.status.casefold() in BAD_PAYOUT_STATUSES:
            reasons.append(f"a payout of its cards was {payout.status}")
        elif payout.status.casefold() == "unclaimed" and payout.age_days > UNCLAIMED_DAYS:
            reasons.append(f"a payout of its cards is Unclaimed after {payout.age_days:.0f} days")
    return reasons


def timeline(events: Sequence[Event]) -> list[Event]:
    """Oldest first; events whose time is not known first, in the order the sources gave them."""
    epoch = datetime.min.replace(tzinfo=UTC)
    return sorted(events, key=lambda event: event.time or epoch)


def _words(facts: CaseFacts, charged: Decimal, refunded: Decimal, reasons: list[str]) -> str:
    money = f" {facts.currency}" if facts.currency else ""
    if not facts.transactions_known:
        paid = "charges not known" + (f" ({facts.transactions_problem})" if facts.transactions_problem else "")
    elif facts.undirected:
        paid = f"charges not known ({counted(facts.undirected, 'transaction')} of unknown direction)"
    elif not charged:
        paid = "not charged"
    elif refunded >= charged:
        paid = f"charged {charged}{money}, refunded {refunded}{money}"
    elif refunded:
        paid = f"charged {charged}{money}, refunded {refunded}{money} of it"
    else:
        paid = f"charged {charged}{money}, not refunded"
    ending = "needs attention" if reasons else "nothing needs attention"
    return f"{paid}, order {facts.status}: {ending}"


def _duration(minutes: float) -> str:
    if minutes < 120:
        return counted(int(minutes), "minute")
    if minutes < 48 * 60:
        return counted(int(minutes // 60), "hour")
    return counted(int(minutes // 1440), "day")


def _plain(value: Decimal) -> str:
    """A computed amount at the precision amounts come in (4 places at most), without trailing noise."""
    return f"{value.quantize(Decimal('0.0001')).normalize():f}"  # 30, not 3E+1
