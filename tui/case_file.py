"""Wiring: the case file of one order, gathered from every source giftdesk has (issue 38).

One Get order; the transactions of its days from the profile's local copies (tui.local.report_copies: a copy
fresh enough answers, so the case never spends the provider's 4-an-hour budget on its own when one is); the
receiver's inbox, the audit log, notes and the watch list (the team's in team mode, with who). The rules of
the timeline and the verdict are tui.core.case. No Textual: the command line and the TUI share this.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from tui.api.errors import ServiceError
from tui.api.redact import mask_text, mask_weblink
from tui.api.statuses import is_order_final
from tui.api.weblink import WeblinkError, weblink_token
from tui.core.case import CaseFacts, Event, PayoutSeen, Verdict, timeline, verdict
from tui.core.ledger import directed_amounts, of_currency
from tui.core.order_ids import order_number
from tui.core.safe_text import visible
from tui.local.storage import REDEEM, UNSETTLED, AuditEntry, AuditStore, audit_log, unknown_outcomes
from tui.order_lookup import remember

if TYPE_CHECKING:
    from tui.api.client import ServiceClient
    from tui.api.models import Order, OrderHistoryLine
    from tui.api.money_models import Transaction, TransactionsReport
    from tui.local.inbox import Delivery, InboxStore
    from tui.local.notes import Note, NoteStore
    from tui.local.report_copies import ReportCopies
    from tui.local.watchlist import WatchedItem
    from tui.team.mode import TeamMode

REFUND_DAYS = 7  # a refund is looked for in the transactions of this many days after the order's


class _Items(Protocol):
    def items(self, profile: str | None = None) -> list[WatchedItem]: ...


@dataclass
class Stores:
    """The stores a case reads for one profile (this machine's, or the team's in team mode); notes and the inbox
    may be absent (None: nothing kept yet)."""

    profile: str
    audit: AuditStore
    notes_store: NoteStore | None
    watch_list: _Items | None
    inbox: InboxStore | None

    def audit_entries(self) -> list[AuditEntry]:
        return list(self.audit.entries())

    def notes(self, request_id: str) -> list[Note]:
        return [] if self.notes_store is None else self.notes_store.for_order(self.profile, request_id)

    def watched(self) -> list[WatchedItem]:
        return [] if self.watch_list is None else list(self.watch_list.items(self.profile))

    def deliveries(self) -> list[Delivery]:
        return [] if self.inbox is None else list(self.inbox.since(None))


def opened_stores(
    stack: ExitStack,
    profile: str,
    environment: str,
    team: TeamMode | None,
    *,
    notes: NoteStore | None = None,
    watch_list: _Items | None = None,
) -> Stores:
    """The stores a case reads: the team's in team mode (who comes with them), else this machine's. What it opens
    is closed with `stack`; `notes` and `watch_list` are ones the caller holds already (the TUI's)."""
    if team is not None:
        inbox: InboxStore | None = stack.enter_context(closing(team.inbox(profile, environment)))
        notes = notes or team.notes(environment)  # kept by team mode
        if watch_list is None:
            watch_list = stack.enter_context(closing(team.watch_list(environment)))
        return Stores(profile, audit_log(), notes, watch_list, inbox)
    from tui.local.config import Config, team_user
    from tui.local.fileio import data_dir
    from tui.local.inbox import SqliteInbox, inbox_path
    from tui.local.notes import FILE_NAME as NOTES_FILE
    from tui.local.notes import SqliteNotes
    from tui.local.watchlist import WatchList

    # A store not made yet holds nothing: it is not made for a read.
    inbox = stack.enter_context(closing(SqliteInbox(profile))) if inbox_path(profile).exists() else None
    if notes is None and (data_dir() / NOTES_FILE).exists():
        notes = stack.enter_context(closing(SqliteNotes(author=team_user(Config()))))
    if watch_list is None:
        watch_list = stack.enter_context(closing(WatchList()))
    return Stores(profile, audit_log(), notes, watch_list, inbox)


@dataclass
class CaseFile:
    request_id: str
    order_number: str
    status: str
    verdict: Verdict
    events: list[Event]
    as_of: dict[str, datetime] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """DESIGN.md's shape of `order case --json`."""
        return {
            "requestId": self.request_id,
            "orderNumber": self.order_number,
            "status": self.status,
            "verdict": self.verdict.to_json(),
            "events": [
                {"time": _iso(e.time), "source": e.source, "what": mask_text(e.what), "by": e.by or None}
                for e in self.events
            ],
            "asOf": {source: _iso(when) for source, when in self.as_of.items()},
        }


async def open_case(
    request_id: str,
    client: ServiceClient,
    copies: ReportCopies,
    stores: Stores,
    *,
    order: Order | None = None,
    now: datetime | None = None,
    today: date | None = None,
) -> CaseFile:
    """`order`: the order as a look just got it (the TUI's), so that the case asks for no second Get order."""
    now = now or datetime.now(UTC)
    order = order or await client.get_order(request_id)
    remember(copies, order)
    as_of = {"order": now}
    created = _utc(order.created_date)
    events = _order_events(order, created, now)

    first = (created or now).date()
    last = min(first + timedelta(days=REFUND_DAYS), today or now.date())
    debits: list[Decimal] = []
    credits: list[Decimal] = []
    mine: list[Transaction] = []
    undirected = 0
    problem = ""
    currency = order.currency or ""
    try:
        answer = await copies.transactions(client, first, max(first, last))
    except ServiceError as error:  # refused by the limits, or the service failed: the case says so
        problem = str(error)
    else:
        as_of["transactions"] = datetime.fromtimestamp(answer.fetched, UTC)
        mine = _its_transactions(order, answer.value.transactions)
        currency = currency or next((t.currency for t in mine), "")
        for transaction, directed in _directed(mine, answer.value):
            events.append(_transaction_event(transaction, directed))
            if directed is None:
                undirected += 1
            else:
                (debits if directed < 0 else credits).append(abs(directed))

    audit = [e for e in stores.audit_entries() if _about(e, order)]
    events.extend(_audit_event(entry) for entry in audit)
    as_of["audit"] = now
    events.extend(Event(_utc(n.written_at), "notes", f"note: {n.body}", n.author) for n in stores.notes(request_id))
    as_of["notes"] = now
    watched = [item for item in stores.watched() if _watches(item, order)]
    for item in watched:
        events.extend(_watch_events(item))
    as_of["watch"] = now
    deliveries = [d for d in stores.deliveries() if _mentions(d, request_id)]
    events.extend(_delivery_event(d) for d in deliveries)
    as_of["inbox"] = now

    facts = CaseFacts(
        status=order.status,
        final=is_order_final(order.status),
        created=created,
        currency=currency,
        debits=debits,
        credits=credits,
        transactions_known="transactions" in as_of,
        transactions_problem=problem,
        undirected=undirected,
        total=order.total.value,
        sold_share=_sold_share(order, mine),
        refused_callbacks=sum(not d.accepted for d in deliveries),
        unknown_outcomes=len(unknown_outcomes(audit)),
        payouts=[_payout(item, now) for item in watched if item.kind == "payout" and item.status],
    )
    return CaseFile(
        order.request_id, order_number(order.order_id), order.status, verdict(facts, now), timeline(events), as_of
    )


# --- the order ------------------------------------------------------------------------------------


def _order_events(order: Order, created: datetime | None, now: datetime) -> list[Event]:
    cards = order.cards
    events = [
        Event(
            created,
            "order",
            f"created: {len(cards)} card(s), total {order.total.value} {order.currency or ''}".rstrip(),
            "",
        ),
        Event(now, "order", f"status {order.status}" + (f": {order.error_message}" if order.error_message else "")),
    ]
    events.extend(Event(now, "order", f"card {card.serial_number or card.id}: {card.status}") for card in cards)
    return events


def _sold_share(order: Order, mine: Sequence[Transaction]) -> Decimal | None:
    """The share of the order's price that its Sold cards are (what a PartialFailed order should have cost).

    Each line weighs as its price in the account's currency: the debit's items, one per line in the order's
    order; without them, its face value when every line is in one currency; else not known (None).
    """
    prices = [item.client_total.value for t in mine[:1] for item in t.order_items if item.client_total is not None]
    if len(prices) != len(order.items):
        if len({item.currency_code for item in order.items}) > 1:
            return None
        prices = [item.product_face_value.value * item.quantity for item in order.items]
    whole = sold = Decimal(0)
    for item, price in zip(order.items, prices, strict=True):
        if not item.cards:
            continue
        whole += price
        sold += price * sum(card.status.casefold() == "sold" for card in item.cards) / len(item.cards)
    return sold / whole if whole else None


# --- the transactions -------------------------------------------------------------------------------


def _its_transactions(order: Order, transactions: Iterable[Transaction]) -> list[Transaction]:
    number = order_number(order.order_id).casefold()
    wanted = order.request_id.strip().casefold()
    return [
        t
        for t in transactions
        if (t.request_id or "").strip().casefold() == wanted
        or (t.order_number or "").strip().casefold() == number
        or t.order_id == order.order_id
    ]


def _directed(mine: list[Transaction], report: TransactionsReport) -> list[tuple[Transaction, Decimal | None]]:
    """Each of the order's transactions with its effect on the balance, read in its account's sequence."""
    effects: dict[int, Decimal | None] = {}
    for currency in {t.currency for t in mine}:
        ledger = of_currency(report, currency)
        effects.update({id(t): d for t, d in zip(ledger, directed_amounts(ledger), strict=True)})
    return [(t, effects.get(id(t))) for t in mine]


def _transaction_event(transaction: Transaction, directed: Decimal | None) -> Event:
    currency = transaction.currency
    if directed is None:
        kind = f"{transaction.transaction_type or 'transaction'} of {abs(transaction.transaction_amount.value)}"
    elif directed < 0:
        kind = f"debit {abs(directed)}"
    else:
        kind = f"credit {directed}"
    return Event(
        _utc(transaction.transaction_date),
        "transactions",
        f"{kind} {currency}, balance after {transaction.available_balance.value} {currency}"
        f" ({transaction.transaction_type or '?'} {transaction.reference})",
        "",
    )


# --- the audit log, the watch list, the inbox -----------------------------------------------------------


def _card_subjects(order: Order) -> set[str]:
    """The masked weblinks of its payout cards, as the audit log and the watch list name them."""
    subjects = set()
    for card in order.cards:
        if card.card_code and "/" in card.card_code:
            try:
                subjects.add(mask_weblink(weblink_token(card.card_code)))
            except WeblinkError:
                continue
    return subjects


def _about(entry: AuditEntry, order: Order) -> bool:
    return entry.subject.strip().casefold() == order.request_id.casefold() or entry.subject in _card_subjects(order)


def _audit_event(entry: AuditEntry) -> Event:
    extra = entry.model_extra or {}
    who = "@".join(str(extra[key]) for key in ("who", "host") if extra.get(key))
    source = "payout" if entry.action == REDEEM else "audit"
    detail = f" ({entry.detail})" if entry.detail and entry.outcome == UNSETTLED else ""
    return Event(_utc(entry.time), source, f"{entry.action}: {entry.outcome}{detail}", who or entry.profile)


def _watches(item: WatchedItem, order: Order) -> bool:
    if item.kind == "order":
        return item.reference.strip().casefold() == order.request_id.casefold()
    return item.label in _card_subjects(order)


def _watch_events(item: WatchedItem) -> list[Event]:
    source = "watch" if item.kind == "order" else "payout"
    events = [Event(_utc(item.added_at), source, f"pinned: {item.label}", item.pinned_by)]
    if item.final and item.status:
        events.append(Event(_utc(item.changed_at or item.updated_at), source, f"settled: {item.status}"))
    elif item.status:
        events.append(Event(_utc(item.updated_at), source, f"last seen: {item.status}"))
    return events


def _payout(item: WatchedItem, now: datetime) -> PayoutSeen:
    added = _utc(item.added_at) or now
    return PayoutSeen(item.status or "", (now - added).total_seconds() / 86400)


def _mentions(delivery: Delivery, request_id: str) -> bool:
    if delivery.event_id.casefold() == f"callback:{request_id}".casefold():
        return True
    payload = json.dumps(delivery.payload, default=str) if delivery.payload is not None else ""
    return request_id.casefold() in payload.casefold() or request_id.casefold() in delivery.reason.casefold()


def _delivery_event(delivery: Delivery) -> Event:
    status = (delivery.payload or {}).get("status") if isinstance(delivery.payload, dict) else None
    said = f"status {status}" if status else delivery.kind
    verdict_words = "accepted" if delivery.accepted else f"refused: {delivery.reason}"
    outcome = f"; {delivery.outcome}" if delivery.outcome else ""
    return Event(delivery.received_at, "inbox", f"{delivery.kind}: {said} ({verdict_words}{outcome})", delivery.source)


# --- times ----------------------------------------------------------------------------------------------


def _utc(stamp: object) -> datetime | None:
    """An ISO time as the sources write it (naive: UTC), aware; None when absent, unreadable or not stated."""
    if isinstance(stamp, datetime):
        moment = stamp
    else:
        try:
            moment = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
        except ValueError:
            return None
    if moment.year <= 1:  # 0001-01-01T00:00:00: the provider's "not stated"
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# --- the orders report's lines that need attention (`orders list --attention`, the Orders board) ---------


async def needing_attention(
    lines: Sequence[OrderHistoryLine],
    client: ServiceClient,
    copies: ReportCopies,
    audit: Sequence[AuditEntry],
    *,
    now: datetime | None = None,
) -> tuple[dict[str, Verdict], str]:
    """The verdict of each order of the report's lines that needs attention, by RequestId, and a problem ("" when
    none) that kept the transactions out. With no Get order per order: the report's status, its days'
    transactions (the local copies first) and the audit; the rules that need an order's cards (PartialFailed's
    Sold cards) or its time of day (not final after 15 minutes: its day has ended) are the case file's alone."""
    now = now or datetime.now(UTC)
    days = sorted({(line.order_date or "")[:10] for line in lines if line.order_date})
    report: TransactionsReport | None = None
    problem = ""
    if days:
        try:
            first = date.fromisoformat(days[0])
            last = min(date.fromisoformat(days[-1]) + timedelta(days=REFUND_DAYS), now.date())
            report = (await copies.transactions(client, first, max(first, last))).value
        except (ServiceError, ValueError) as error:
            problem = str(error)
    by_order: dict[str, list[OrderHistoryLine]] = {}
    for line in lines:
        by_order.setdefault(line.client_reference_number, []).append(line)
    found: dict[str, Verdict] = {}
    for request_id, its_lines in by_order.items():
        said = verdict(_report_facts(request_id, its_lines, report, audit, problem, now), now)
        if said.attention:
            found[request_id] = said
    return found, problem


def _report_facts(
    request_id: str,
    lines: Sequence[OrderHistoryLine],
    report: TransactionsReport | None,
    audit: Sequence[AuditEntry],
    problem: str,
    now: datetime,
) -> CaseFacts:
    status = lines[0].status
    day = _utc((lines[0].order_date or "")[:10])
    debits: list[Decimal] = []
    credits: list[Decimal] = []
    undirected = 0
    if report is not None:
        wanted = request_id.strip().casefold()
        mine = [t for t in report.transactions if (t.request_id or "").strip().casefold() == wanted]
        for _, directed in _directed(mine, report):
            if directed is None:
                undirected += 1
            else:
                (debits if directed < 0 else credits).append(abs(directed))
    # The report dates an order, it does not time it: a day that is over was long enough ago (counted from its end).
    ended = day is not None and now - day > timedelta(days=1)
    return CaseFacts(
        status=status,
        final=is_order_final(status),
        created=day + timedelta(days=1) if ended and day is not None else None,
        currency=lines[0].account_currency or "",
        debits=debits,
        credits=credits,
        transactions_known=report is not None,
        transactions_problem=problem,
        undirected=undirected,
        unknown_outcomes=len(
            unknown_outcomes(e for e in audit if e.subject.strip().casefold() == request_id.casefold())
        ),
    )


# --- a ticket summary --------------------------------------------------------------------------------


def case_markdown(case_file: CaseFile) -> str:
    """A ticket summary: masked as the screen is, never a card code, PIN, weblink or recipient in clear."""

    def cell(text: str) -> str:
        return visible(mask_text(text)).replace("|", "\\|").replace("\n", " ")

    verdict = case_file.verdict
    lines = [
        f"### Order {case_file.order_number} ({cell(case_file.status)})",
        "",
        f"- RequestId: `{cell(case_file.request_id)}`",
        f"- Verdict: **{cell(verdict.words)}**",
        *(f"- Needs attention: {cell(reason)}" for reason in verdict.reasons),
        "",
        "| Time (UTC) | Source | What | By |",
        "|---|---|---|---|",
        *(f"| {shown_time(e.time)} | {e.source} | {cell(e.what)} | {cell(e.by)} |" for e in case_file.events),
        "",
        "As of: " + ", ".join(f"{source} {shown_time(when)}" for source, when in case_file.as_of.items()),
        "",
    ]
    return "\n".join(lines)


def shown_time(moment: datetime | None) -> str:
    return "time not known" if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S")
