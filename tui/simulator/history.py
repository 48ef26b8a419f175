"""Order history: `GET /api/integration/v1.0/orders?startDate&endDate`, and a seeded past.

The answer lists every order the credential placed whose day (UTC) falls in
the range, oldest first, one element per order line, with the field names
of the provider's SDK documentation (DESIGN.md, "Facts").

`seed_history` places N orders through the order book's own place path (so
they charge the account and Get order finds them), then moves each one back
in time: spread over the last 30 days, a mix of products and outcomes, and a
few that stay Pending. The same seed gives the same orders.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .catalog import Product, price_of
from .credentials import DemoCredential, demo_credential
from .order_records import Order, OrderLine
from .orders import OrderBook, OrderRejected
from .rates import convert

HISTORY_PATH = "/api/integration/v1.0/orders"
HISTORY_CREDENTIAL = "acme-sandbox"  # the demo's and `giftdesk --demo`'s credential
HISTORY_DAYS = 30
ACCOUNTS = (1001, 1002)  # the USD (four orders in five) and EUR sandbox accounts
PRODUCT_POOL = 14  # a client sells a handful of products, not the whole catalog
STUCK_FOR_SECONDS = 365 * 24 * 3600.0  # a stuck order stays Pending for as long as anyone looks
STUCK_ORDERS = 10  # at most: "a few" stuck ones
MIN_AGE_SECONDS = 20 * 60.0  # older than any fulfilment: every seeded order but the stuck is final


class HistoryQueryInvalid(ValueError):
    """The 400 body (a JSON string) for a history query the service cannot read."""


def parse_range(params: dict[str, str]) -> tuple[date, date]:
    start, end = params.get("startDate"), params.get("endDate")
    if not start or not end:
        raise HistoryQueryInvalid("startDate and endDate are required (YYYY-MM-DD)")
    try:
        first, last = date.fromisoformat(start), date.fromisoformat(end)
    except ValueError:
        raise HistoryQueryInvalid("startDate and endDate must be dates (YYYY-MM-DD)") from None
    if last < first:
        raise HistoryQueryInvalid("endDate is before startDate")
    return first, last


def history_json(book: OrderBook, credential: DemoCredential, first: date, last: date) -> list[dict]:
    orders = [
        order
        for (name, _), order in book.orders.items()
        if name == credential.name and first <= order.created_wall.date() <= last
    ]
    orders.sort(key=lambda order: (order.created_wall, order.order_id))
    return [line_json(order, line, order.status(order.elapsed())) for order in orders for line in order.lines]


def line_json(order: Order, line: OrderLine, status: str) -> dict:
    currency = order.account.currency
    unit = convert(price_of(line.product, line.value), line.brand.currency, currency)
    sub_total = convert(price_of(line.product, line.value) * line.quantity, line.brand.currency, currency)
    return {
        "clientName": order.credential.client.title(),
        "orderNumber": f"O-{order.order_id:08d}",
        "orderDate": order_day(order),
        "clientReferenceNumber": order.request_id,
        "channel": "Sandbox" if order.credential.environment == "sandbox" else "API",
        "productName": line.product.name,
        "denomination": f"{line.brand.currency} {denomination(line.value)}",
        "quantity": line.quantity,
        "unitPrice": float(unit),
        "subTotal": float(sub_total),
        "total": float(order.total),
        "accountCurrency": currency,
        "status": status,
    }


def order_day(order: Order) -> str:
    """The report dates an order, it does not time it: the day at midnight (`2024-05-15T00:00:00`)."""
    return datetime.combine(order.created_wall.date(), datetime.min.time()).isoformat(timespec="seconds")


def denomination(value: Decimal) -> str:
    """`10` for a whole amount, `12.50` otherwise (the SDK shows `USD 10`)."""
    return f"{value:.0f}" if value == value.to_integral_value() else f"{value:.2f}"


def history_endpoint(book: OrderBook) -> Callable[[Request, DemoCredential], Awaitable[Response]]:
    async def history(request: Request, credential: DemoCredential) -> Response:
        try:
            first, last = parse_range(dict(request.query_params))
        except HistoryQueryInvalid as error:
            return JSONResponse({"message": str(error)}, status_code=400)
        return JSONResponse(history_json(book, credential, first, last))

    return history


# --- a seeded past ------------------------------------------------------------------------


def seed_history(book: OrderBook, count: int, seed: int, *, now: datetime | None = None) -> list[Order]:
    """Place `count` orders for the demo credential and spread them over the last 30 days."""
    if count <= 0:
        return []
    rng = random.Random(f"history:{seed}")
    credential = demo_credential(HISTORY_CREDENTIAL)
    wall = now or datetime.now(UTC).replace(tzinfo=None)
    pool = _product_pool(book, rng)
    ranged = [product for product in pool if product.max_face - product.min_face >= 1] or pool
    plans = sorted(_ages(rng, count, wall), reverse=True)  # oldest first: order ids grow with time
    opening = {account.id: account.balance for account in book.accounts_of(credential)}
    orders = []
    for age, stuck in plans:
        body = _order_body(rng, pool, ranged, book, stuck)
        order = _place_funded(book, credential, body, opening)
        _move_back(order, age, stuck)
        orders.append(order)
    return orders


def _product_pool(book: OrderBook, rng: random.Random) -> list[Product]:
    sellable = sorted(
        (p for p in book.catalog.product_by_id.values() if (p.count is None or p.count >= 3) and not p.is_slow),
        key=lambda p: p.id,
    )
    return rng.sample(sellable, min(PRODUCT_POOL, len(sellable)))


def _ages(rng: random.Random, count: int, wall: datetime) -> list[tuple[float, bool]]:
    """(seconds ago, stuck) per order: days back to the start of the 30th day, denser lately."""
    oldest = (
        wall - datetime.combine(wall.date() - timedelta(days=HISTORY_DAYS - 1), datetime.min.time())
    ).total_seconds()
    stuck = max(1, min(STUCK_ORDERS, count // 20))
    plans = []
    for index in range(count):
        if index < stuck:  # stuck ones are recent: an incident is about today
            plans.append((rng.uniform(MIN_AGE_SECONDS, 30 * 3600.0), True))
        elif rng.random() < 0.2:
            plans.append((rng.uniform(MIN_AGE_SECONDS, 12 * 3600.0), False))
        else:
            plans.append((rng.uniform(MIN_AGE_SECONDS, oldest), False))
    return [(min(age, oldest), stuck) for age, stuck in plans]


def _value(rng: random.Random, product: Product, cents: int = 0) -> Decimal:
    if product.min_face == product.max_face:
        return product.min_face
    low, high = int(product.min_face) + 1, int(product.max_face) - 1
    whole = Decimal(rng.randint(low, high) if high >= low else int(product.min_face))
    value = whole + Decimal(cents) / 100
    return value if product.min_face <= value <= product.max_face else product.min_face


def _order_body(rng: random.Random, pool: list[Product], ranged: list[Product], book: OrderBook, stuck: bool) -> dict:
    roll = rng.random()
    if not stuck and roll < 0.06:  # Failed: every card fails (.13)
        lines = [(rng.choice(ranged), 1, 13)]
    elif not stuck and roll < 0.12:  # PartialFailed: one line fails, one is sold
        lines = [(rng.choice(pool), 1, 0), (rng.choice(ranged), 1, 13)]
    else:
        lines = [(rng.choice(pool), rng.choice((1, 1, 1, 2, 3)), 0) for _ in range(rng.choice((1, 1, 1, 2)))]
    account = ACCOUNTS[0] if rng.random() < 0.8 else ACCOUNTS[1]
    return {
        "RequestId": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "AccountId": account,
        "Products": [
            {"ProductId": product.id, "Quantity": quantity, "Value": str(_value(rng, product, cents))}
            for product, quantity, cents in lines
        ],
    }


def _place_funded(book: OrderBook, credential: DemoCredential, body: dict, opening: dict[int, Decimal]) -> Order:
    """Place through the order book; an account the history has drained had its opening balance twice over.

    Raised from the start, not topped up midway: the transactions already written
    move up with it, so the ledger still adds up.
    """
    try:
        return book.place(credential, body)
    except OrderRejected as rejected:
        if str(rejected) != "InsufficientBalance":
            raise
    account = next(a for a in book.accounts_of(credential) if a.id == body["AccountId"])
    account.balance += opening[account.id]
    book.ledger.raise_opening_balance(account, opening[account.id])
    return book.place(credential, body)


def _move_back(order: Order, age: float, stuck: bool) -> None:
    order.created_at -= age
    order.created_wall -= timedelta(seconds=age)
    for card in order.cards:
        card.expires -= timedelta(seconds=age)
    if stuck:
        order.pending_until = age + STUCK_FOR_SECONDS
        order.processing_until = order.pending_until + order.created_until
        order.final_at = order.processing_until
