"""The triage board's rules: rows of the order history, stuck orders, counts, filter, sort.

No Textual: the Orders screen draws what this decides, and the benchmark and
tests use it directly. A line is stuck when its order is not final (DESIGN
rule 5: an unknown status is not final) and older than the profile's
threshold (default 15 minutes).

The report's `orderDate` is the order's day at midnight: it dates an order,
it does not time it (DESIGN.md "What the real provider sends"). The time
comes from Get order's `createdDate`, asked only for the rows that need it
(`rows_needing_time`: not final, and the day alone cannot tell whether they
are stuck); until it is known such a row says so (`time_unknown`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from tui.api.models import OrderHistoryLine
from tui.api.statuses import is_order_final
from tui.core.order_ids import NamesAnOrder

CHARGED = "transactions"  # where a known order was seen when its charge names it (tui.local.report_copies)

DEFAULT_STUCK_MINUTES = 15
STUCK = "stuck"  # the status filter word for stuck lines


@dataclass(frozen=True)
class BoardRow:
    line: OrderHistoryLine
    day: date | None  # the report's orderDate (UTC day); None when unreadable
    placed: datetime | None  # naive UTC, from Get order's createdDate; None until known
    stuck: bool
    haystack: str  # every shown field, lower case: what `/` searches
    time_unknown: bool = False  # not final, and whether it is stuck waits for its time
    attention: str = ""  # why its case needs attention (tui.core.case), "" when nothing does or not yet judged

    @property
    def request_id(self) -> str:
        return self.line.client_reference_number


def order_time(text: str | None) -> datetime | None:
    """A service timestamp as naive UTC (it sends no zone; one that has a zone is converted)."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def charge_times(known: Iterable[NamesAnOrder]) -> dict[str, datetime]:
    """Each order's first charge time in the transactions' local copies (by RequestId): the orders report dates an
    order by its day only, and its charge is made as it is placed (issue 39: the board's time column)."""
    times: dict[str, datetime] = {}
    for order in known:
        moment = order_time(order.day) if order.where == CHARGED else None
        if moment is not None and (order.request_id not in times or moment < times[order.request_id]):
            times[order.request_id] = moment
    return times


def board_rows(
    lines: Iterable[OrderHistoryLine],
    *,
    now: datetime,
    stuck_after: timedelta,
    created: Mapping[str, datetime] | None = None,
) -> list[BoardRow]:
    """`now` is naive UTC, like the service's dates; `created`: the orders' times known so far (by RequestId)."""
    created = created or {}
    rows = []
    for line in lines:
        moment = order_time(line.order_date)
        day = moment.date() if moment else None
        placed = created.get(line.client_reference_number)
        stuck, time_unknown = False, False
        if not is_order_final(line.status):
            if placed is not None:
                stuck = now - placed > stuck_after
            elif day is not None and now - datetime.combine(day + timedelta(days=1), datetime.min.time()) > stuck_after:
                stuck = True  # placed before the day ended, and that was long enough ago
            elif day is not None and now - datetime.combine(day, datetime.min.time()) <= stuck_after:
                stuck = False  # the day began too recently for anything of it to be stuck
            else:
                time_unknown = True
        fields = (
            line.order_number,
            line.client_reference_number,
            line.product_name,
            line.denomination,
            line.status,
            day.isoformat() if day else line.order_date,
        )
        rows.append(BoardRow(line, day, placed, stuck, " ".join(f or "" for f in fields).lower(), time_unknown))
    return rows


ATTENTION = "attention"  # the word `/attention` finds: it is in a flagged row's haystack


def with_attention(rows: Iterable[BoardRow], reasons: Mapping[str, str]) -> list[BoardRow]:
    """The rows with the reasons their orders need attention (by RequestId), found by `/attention`."""
    return [
        replace(row, attention=reasons[row.request_id], haystack=f"{row.haystack} {ATTENTION}")
        if row.request_id in reasons and not row.attention
        else row
        for row in rows
    ]


def rows_needing_time(rows: Iterable[BoardRow]) -> list[str]:
    """The RequestIds whose time (Get order's createdDate) would decide whether they are stuck, once each."""
    return list(dict.fromkeys(row.request_id for row in rows if row.time_unknown))


def order_count(rows: Iterable[BoardRow]) -> int:
    return len({row.line.order_number for row in rows})


def status_counts(rows: Sequence[BoardRow]) -> dict[str, int]:
    """Orders per status (an order of several lines counts once), most first; stuck orders counted apart too ("stuck")."""
    orders = {row.line.order_number: row for row in rows}.values()
    counts = dict(Counter(row.line.status for row in orders).most_common())
    stuck = sum(row.stuck for row in orders)
    if stuck:
        counts[STUCK] = stuck
    return counts


@dataclass(frozen=True)
class RowQuery:
    """What `/` typed: words every row must contain, and statuses (any of them) it must have.

    `status:pending` (or `s:pending`) keeps that status; `status:stuck` keeps stuck lines.
    """

    words: tuple[str, ...] = ()
    statuses: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, text: str) -> RowQuery:
        words, statuses = [], set()
        for token in text.lower().split():
            name, colon, value = token.partition(":")
            if colon and name in ("status", "s") and value:
                statuses.add(value)
            else:
                words.append(token)
        return cls(tuple(words), frozenset(statuses))

    def with_status(self, status: str | None) -> RowQuery:
        return RowQuery(self.words, frozenset({status.lower()}) if status else frozenset())

    def __bool__(self) -> bool:
        return bool(self.words or self.statuses)

    def narrows(self, other: RowQuery) -> bool:
        """Whether every row this query keeps is one `other` keeps."""
        return self.statuses == other.statuses and all(any(old in new for new in self.words) for old in other.words)


def filtered(rows: Sequence[BoardRow], query: RowQuery) -> list[BoardRow]:
    """The rows the query keeps, in their order: one pass per condition (thousands of rows per keystroke)."""
    kept = list(rows)
    if query.statuses:
        wanted, stuck = query.statuses, STUCK in query.statuses
        kept = [row for row in kept if row.line.status.lower() in wanted or (stuck and row.stuck)]
    for word in query.words:
        kept = [row for row in kept if word in row.haystack]
    return kept


class Narrowing:
    """`filtered` for a query typed a key at a time, over the same rows.

    A query that only adds to the last one (every word of the last is part
    of a word of the new, same statuses) keeps a subset of the last one's
    rows, in their order: it searches those. Answers are kept by query, so
    that a backspace costs nothing; `reset` when the rows change.
    """

    KEPT = 64  # answers remembered; past it the memory starts again

    def __init__(self) -> None:
        self.rows: Sequence[BoardRow] = ()
        self._answers: dict[RowQuery, list[BoardRow]] = {}
        self._last: tuple[RowQuery, list[BoardRow]] | None = None

    def reset(self, rows: Sequence[BoardRow]) -> None:
        self.rows, self._answers, self._last = rows, {}, None

    def __call__(self, query: RowQuery) -> list[BoardRow]:
        kept = self._answers.get(query)
        if kept is None:
            last = self._last
            kept = filtered(last[1] if last is not None and query.narrows(last[0]) else self.rows, query)
            if len(self._answers) >= self.KEPT:
                self._answers.clear()
            self._answers[query] = kept
        self._last = (query, kept)
        return kept


# Sort keys by column id; None sorts first.
SORT_KEYS: dict[str, Callable[[BoardRow], Any]] = {
    "time": lambda row: (
        row.day or date.min,
        row.placed or datetime.min,
        row.line.order_number,
    ),  # numbers grow with time
    "order": lambda row: row.line.order_number,
    "request": lambda row: row.request_id,
    "product": lambda row: (row.line.product_name or "").lower(),
    "denomination": lambda row: row.line.denomination or "",
    "quantity": lambda row: row.line.quantity or 0,
    "total": lambda row: row.line.sub_total or 0.0,
    "status": lambda row: (not row.stuck, row.line.status.lower()),
}


NEWEST_FIRST = frozenset({"time"})  # columns that sort descending when first chosen; the others ascending


def sorted_rows(rows: Iterable[BoardRow], column: str, *, descending: bool) -> list[BoardRow]:
    return sorted(rows, key=SORT_KEYS[column], reverse=descending)
