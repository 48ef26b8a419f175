"""Local copies of the reports the provider's limits make scarce (DESIGN rule 11, issue 27).

Per profile and environment, in the profile's database (tui.local.limit_store.profile_database):

- transactions and the orders report, by day: a day that has ended is fetched
  once and kept; a day still open (today) is asked again once its copy is older
  than the endpoint's spacing (transactions: 4/hour -> 15 min);
- exchange rates, per query, kept RATES_KEPT_FOR;
- catalog v1, kept for its limit's spacing (2/hour -> 30 min).

`fresh=True` asks the service whatever the copy holds (the limiter still keeps
the limits). When the service cannot be asked before the limiter's longest
wait and the copy has every day, the copy answers, with `.refused` saying when
the service can be asked again. Every answer says how old it is and when the
copy will ask the service again (`Answer.renew_at`: what an open screen waits
for to refresh by itself; None when every day of it has ended).
The copies hold the wire JSON (tui.api.wire_json: amounts exactly as they came).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from tui.api import wire_json
from tui.api.errors import RateLimitedError
from tui.api.limits import CATALOG_V1, DEFAULT_LIMITS, ORDER_HISTORY, TRANSACTIONS, Limit
from tui.local.limit_store import open_database

if TYPE_CHECKING:
    from pathlib import Path

    from tui.api.client import ServiceClient
    from tui.api.models import Brand, OrderHistoryLine
    from tui.api.money_models import ExchangeRates, TransactionsReport

SCHEMA = """
CREATE TABLE IF NOT EXISTS copies (kind TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL, fetched REAL NOT NULL,
                                   PRIMARY KEY (kind, key));
"""
RATES_KEPT_FOR = 600.0  # seconds: rates move slowly; a support engineer converts amounts, not trades
UNLIMITED_KEPT_FOR = 60.0  # an open day of an endpoint without a limit (the orders report)
SEEN_ORDERS = "seen-orders"  # key: a RequestId; body: its order number and card serials (tui.core.order_ids)
RENEW_SLACK = 0.05  # seconds: a look timed for the moment a copy falls due comes after it, never just before
T = TypeVar("T")


@dataclass(frozen=True)
class Answer(Generic[T]):
    value: T
    fetched: float  # when it came from the service (time.time); by day: its oldest part that may still change
    from_copy: bool  # some or all of it is the local copy
    refused: RateLimitedError | None = None  # the service could not be asked now: says when it can
    renew_at: float | None = None  # when asking the copy again asks the service; None: it never will
    allowed_at: float | None = None  # after a refusal: when the service may be asked again, if it said

    def age(self, now: float | None = None) -> float:
        return max(0.0, (time.time() if now is None else now) - self.fetched)

    def renew_in(self, now: float | None = None) -> float | None:
        """Seconds until looking again brings something newer (a little after the copy falls due, so the
        look finds it due), or None when nothing in it can change."""
        if self.renew_at is None:
            return None
        return max(0.0, self.renew_at - (time.time() if now is None else now)) + RENEW_SLACK


def service_today() -> date:
    """The last day that may still change: the local day or the UTC one, whichever is earlier."""
    return min(date.today(), datetime.now(UTC).date())


class ReportCopies:
    def __init__(
        self,
        path: Path,
        limits: Mapping[str, Limit] = DEFAULT_LIMITS,
        *,
        clock: Callable[[], float] = time.time,
        today: Callable[[], date] = service_today,
    ) -> None:
        self._db = open_database(path)
        self._db.executescript(SCHEMA)
        self.limits = limits
        self.clock = clock
        self.today = today

    def close(self) -> None:
        self._db.close()

    # --- the reports -------------------------------------------------------------------

    async def transactions(
        self, client: ServiceClient, start: date, end: date, *, fresh: bool = False
    ) -> Answer[TransactionsReport]:
        from tui.api.models import to_wire
        from tui.api.money_models import TransactionsReport

        asked: dict[tuple[date, date], Any] = {}  # each answer by the range it was asked for

        async def fetch(first: date, last: date) -> tuple[Any, dict[date, Any] | None]:
            wire = asked[first, last] = to_wire(await client.transactions(first, last))
            return wire, _transactions_by_day(wire, first, last)

        days, answer = await self._by_day(TRANSACTIONS, start, end, fresh, fetch)
        if days is None:
            return _with(answer, TransactionsReport.model_validate(answer.value))
        if (start, end) in asked:  # the whole range came in one answer: as it came, its own start and end too
            return _with(answer, TransactionsReport.model_validate(asked[start, end]))
        clients: dict[str | None, list[Any]] = {}
        for day in _days(start, end):
            for part in days[day]["clients"]:
                clients.setdefault(part.get("clientName"), []).extend(part.get("transactions") or [])
        wire = {
            "startDate": start.isoformat(),
            "endDate": end.isoformat(),
            "clients": [{"clientName": name, "transactions": rows} for name, rows in clients.items()],
        }
        return _with(answer, TransactionsReport.model_validate(wire))

    async def order_history(
        self, client: ServiceClient, day_range: Any, *, fresh: bool = False
    ) -> Answer[list[OrderHistoryLine]]:
        """`day_range`: a tui.core.dates.DayRange (.start, .end, both included)."""
        from tui.api.models import OrderHistoryLine, to_wire

        async def fetch(first: date, last: date) -> tuple[Any, dict[date, Any] | None]:
            wire = [to_wire(line) for line in await client.order_history(_Days(first, last))]
            return wire, _lines_by_day(wire, first, last)

        days, answer = await self._by_day(ORDER_HISTORY, day_range.start, day_range.end, fresh, fetch)
        lines = (
            answer.value
            if days is None
            else [line for day in _days(day_range.start, day_range.end) for line in days[day]]
        )
        return _with(answer, [OrderHistoryLine.model_validate(line) for line in lines])

    async def exchange_rates(
        self, client: ServiceClient, base: str | None = None, currency: str | None = None, *, fresh: bool = False
    ) -> Answer[ExchangeRates]:
        from tui.api.models import to_wire
        from tui.api.money_models import ExchangeRates

        async def fetch() -> Any:
            return to_wire(await client.exchange_rates(base, currency))

        answer = await self._kept("rates", f"{base or ''}|{currency or ''}", RATES_KEPT_FOR, fresh, fetch)
        return _with(answer, ExchangeRates.model_validate(answer.value))

    async def catalog_v1(self, client: ServiceClient, *, fresh: bool = False) -> Answer[list[Brand]]:
        from tui.api.models import Brand, to_wire

        async def fetch() -> Any:
            return [to_wire(brand) for brand in await client.catalog_v1()]

        answer = await self._kept(CATALOG_V1, "", self.kept_for(CATALOG_V1), fresh, fetch)
        return _with(answer, [Brand.model_validate(brand) for brand in answer.value])

    # --- the orders giftdesk has seen (any ID finds the order: tui.core.order_ids) -------------------

    def remember_cards(
        self,
        request_id: str,
        number: str | None,
        serials: Sequence[str],
        *,
        status: str | None = None,
        created: str | None = None,
    ) -> None:
        """Keep what names an order seen whole (Get order): its order number and its cards' serials, never a code;
        its status and created date too, which tell it apart among the candidates of an ambiguous ID."""
        seen = {"orderNumber": number, "serials": list(serials), "status": status, "createdDate": created}
        self._write(SEEN_ORDERS, {request_id: seen}, self.clock())

    def known_orders(self) -> list[SeenOrder]:
        """Every order the copies name: the orders report's lines, the transactions, and the orders seen whole."""
        return self._orders_named_in(ORDER_HISTORY, TRANSACTIONS, SEEN_ORDERS)

    def charged_orders(self) -> list[SeenOrder]:
        """The orders the transactions' copies name, each with its charge's time (`day`): only those copies read."""
        return self._orders_named_in(TRANSACTIONS)

    def _orders_named_in(self, *kinds: str) -> list[SeenOrder]:
        known: list[SeenOrder] = []
        marks = ",".join("?" * len(kinds))
        for kind, key, body in self._db.execute(f"SELECT kind, key, body FROM copies WHERE kind IN ({marks})", kinds):
            known.extend(_orders_in(kind, key, body))
        return known

    # --- how copies are kept -----------------------------------------------------------

    def kept_for(self, endpoint: str) -> float:
        limit = self.limits.get(endpoint)
        return limit.interval if limit is not None else UNLIMITED_KEPT_FOR

    async def _kept(
        self, kind: str, key: str, kept_for: float, fresh: bool, fetch: Callable[[], Awaitable[Any]]
    ) -> Answer[Any]:
        stored = self._read(kind, [key]).get(key)
        if stored is not None and not fresh and self.clock() - stored[1] < kept_for:
            return Answer(stored[0], stored[1], from_copy=True, renew_at=stored[1] + kept_for)
        try:
            wire = await fetch()
        except RateLimitedError as refused:
            if stored is None:
                raise
            now = self.clock()
            return Answer(
                stored[0],
                stored[1],
                from_copy=True,
                refused=refused,
                renew_at=_after_refusal(refused, now, kept_for),
                allowed_at=_allowed_at(refused, now),
            )
        now = self.clock()
        self._write(kind, {key: wire}, now)
        return Answer(wire, now, from_copy=False, renew_at=now + kept_for)

    async def _by_day(
        self,
        kind: str,
        start: date,
        end: date,
        fresh: bool,
        fetch: Callable[[date, date], Awaitable[tuple[Any, dict[date, Any] | None]]],
    ) -> tuple[dict[date, Any] | None, Answer[Any]]:
        """Each day's wire part, from the copy where it can answer; the days it cannot, from one request.
        None (and the whole answer as the Answer's value) when the service's answer cannot be split by day."""
        days = _days(start, end)
        stored = {
            date.fromisoformat(key): value for key, value in self._read(kind, [d.isoformat() for d in days]).items()
        }
        now, today, kept_for = self.clock(), self.today(), self.kept_for(kind)
        missing = [
            day for day in days if fresh or day not in stored or (day >= today and now - stored[day][1] >= kept_for)
        ]
        parts = {day: body for day, (body, _) in stored.items()}
        fetched = {day: stored[day][1] for day in days if day in stored and day not in missing}
        refused = None
        if missing:
            try:
                wire, by_day = await fetch(missing[0], missing[-1])
            except RateLimitedError as error:
                if any(day not in stored for day in missing):
                    raise
                refused, fetched = error, {day: stored[day][1] for day in days}
            else:
                if by_day is None:  # an answer that cannot be split by day is neither kept nor mixed with the copy
                    whole = wire if (missing[0], missing[-1]) == (start, end) else (await fetch(start, end))[0]
                    now = self.clock()
                    return None, Answer(whole, now, from_copy=False, renew_at=now + kept_for if end >= today else None)
                now = self.clock()
                self._write(kind, {day.isoformat(): body for day, body in by_day.items()}, now)
                parts.update(by_day)
                fetched.update(dict.fromkeys(by_day, now))
        from_copy = refused is not None or len(missing) < len(days)
        # How fresh: as the days that may still change (a closed day's copy is as good as new).
        open_days = [fetched[day] for day in days if day >= today]
        renew_at = allowed_at = None  # every day has ended: never asked again
        if refused is not None:
            now = self.clock()
            renew_at = _after_refusal(refused, now, kept_for) if open_days else None
            allowed_at = _allowed_at(refused, now)
        elif open_days:
            renew_at = min(open_days) + kept_for
        return parts, Answer(None, min(open_days or fetched.values()), from_copy, refused, renew_at, allowed_at)

    def _read(self, kind: str, keys: list[str]) -> dict[str, tuple[Any, float]]:
        marks = ",".join("?" * len(keys))
        rows = self._db.execute(
            f"SELECT key, body, fetched FROM copies WHERE kind = ? AND key IN ({marks})", (kind, *keys)
        )
        return {key: (wire_json.loads(body), fetched) for key, body, fetched in rows}

    def _write(self, kind: str, bodies: Mapping[str, Any], fetched: float) -> None:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "INSERT OR REPLACE INTO copies (kind, key, body, fetched) VALUES (?, ?, ?, ?)",
                [(kind, key, wire_json.dumps(body).encode(), fetched) for key, body in bodies.items()],
            )


@dataclass(frozen=True)
class _Days:
    """A day range as the client's order_history takes it (tui.core.dates.DayRange's wire form)."""

    start: date
    end: date

    def to_wire(self) -> dict[str, str]:
        return {"startDate": self.start.isoformat(), "endDate": self.end.isoformat()}


def _with(answer: Answer[Any], value: T) -> Answer[T]:
    return Answer(value, answer.fetched, answer.from_copy, answer.refused, answer.renew_at, answer.allowed_at)


def _allowed_at(refused: RateLimitedError, now: float) -> float | None:
    """When the refusal said the service may be asked again, as a moment (so that it stays put as time passes)."""
    return None if refused.retry_after is None else now + refused.retry_after


def _after_refusal(refused: RateLimitedError, now: float, kept_for: float) -> float:
    """When the service may be asked again after the limiter (or the service) refused: as it said, else when the
    copy falls due."""
    allowed_at = _allowed_at(refused, now)
    return allowed_at if allowed_at is not None else now + kept_for


def _days(start: date, end: date) -> list[date]:
    return [start + timedelta(days=n) for n in range((end - start).days + 1)]


def _day_of(stamp: Any, first: date, last: date) -> date | None:
    try:
        day = date.fromisoformat(str(stamp)[:10])
    except ValueError:
        return None
    return day if first <= day <= last else None


def _transactions_by_day(wire: Any, first: date, last: date) -> dict[date, Any] | None:
    """{day: {"clients": [...]}} for every day of the range; None when a transaction has no day in it."""
    days: dict[date, Any] = {day: {"clients": []} for day in _days(first, last)}
    for client in wire.get("clients") or []:
        by_day: dict[date, list[Any]] = {}
        for row in client.get("transactions") or []:
            day = _day_of(row.get("transactionDate"), first, last)
            if day is None:
                return None
            by_day.setdefault(day, []).append(row)
        for day, rows in by_day.items():
            days[day]["clients"].append({**client, "transactions": rows})
    return days


class SeenOrder(NamedTuple):
    """An order a copy names, with what can name it (tui.core.order_ids resolves an ID among these)."""

    request_id: str
    order_number: str | None
    serials: tuple[str, ...] = ()
    where: str = ""
    status: str | None = None
    day: str | None = None


def _orders_in(kind: str, key: str, body: bytes) -> list[SeenOrder]:
    """The orders one stored copy names (a copy of another shape names none)."""
    wire = wire_json.loads(body)
    if kind == SEEN_ORDERS:
        seen = wire if isinstance(wire, dict) else {}
        serials = tuple(s for s in _list(seen, "serials") if isinstance(s, str))
        status, created = _text(seen.get("status")), _text(seen.get("createdDate"))  # None in a copy kept before
        return [SeenOrder(key, _text(seen.get("orderNumber")), serials, "opened here", status, created)]
    rows = (
        wire
        if kind == ORDER_HISTORY and isinstance(wire, list)
        else [row for client in _list(wire, "clients") for row in _list(client, "transactions")]
    )
    found = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        request_id = row.get("clientReferenceNumber") if kind == ORDER_HISTORY else row.get("requestId")
        if isinstance(request_id, str) and request_id.strip():
            day = row.get("orderDate") if kind == ORDER_HISTORY else row.get("transactionDate")
            status = row.get("status") if kind == ORDER_HISTORY else None
            where = "orders report" if kind == ORDER_HISTORY else "transactions"
            found.append(
                SeenOrder(request_id.strip(), _text(row.get("orderNumber")), (), where, _text(status), _text(day))
            )
    return found


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _list(value: Any, key: str) -> list[Any]:
    inner = value.get(key) if isinstance(value, dict) else None
    return inner if isinstance(inner, list) else []


def _lines_by_day(wire: list[Any], first: date, last: date) -> dict[date, Any] | None:
    days: dict[date, list[Any]] = {day: [] for day in _days(first, last)}
    for line in wire:
        day = _day_of(line.get("orderDate"), first, last)
        if day is None:
            return None
        days[day].append(line)
    return days
