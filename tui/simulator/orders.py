"""Accounts, place order, and fulfilment as a function of elapsed time.

An order's whole timeline is fixed when it is placed (docs/simulator.md,
"Magic values"); its state is computed on read from the time elapsed, so
outcomes are deterministic and nothing needs a background task but the
callback.
"""

from __future__ import annotations

import base64
import hashlib
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import TypeGuard

from .catalog import Brand, Catalog, Product
from .credentials import DemoCredential
from .ledger import Ledger, line_charge
from .order_records import Account, Card, Order, OrderLine, seed_accounts
from .settings import Timing

MAX_CARDS = 500
# The provider takes only GUIDs as RequestIds; anything else is refused with a reason code of its own.
GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
PAYOUT_URL = "https://payouts.sim.giftdesk.test/redeem/"


class OrderRejected(Exception):
    """Place order refused; the reason is the 400 body (a JSON string)."""


def card_outcome(value: Decimal) -> str:
    """Magic values: the face value's cents decide the card (docs/simulator.md)."""
    cents = int((value * 100) % 100)
    return {13: "Failed", 14: "Paused"}.get(cents, "Sold")


@dataclass(frozen=True)
class RequestedLine:
    product_id: int
    quantity: int
    value: Decimal


class OrderBook:
    def __init__(self, catalog: Catalog, timing: Timing, seed: int):
        self.catalog = catalog
        self.timing = timing
        self.seed = seed
        self.accounts = seed_accounts()
        self.orders: dict[tuple[str, str], Order] = {}  # (credential name, RequestId)
        self.weblinks: dict[str, tuple[Order, Card]] = {}  # raw token -> its card
        self.ledger = Ledger()
        self._next_order_id = 500_001
        self._next_card_id = 7_000_001

    def accounts_of(self, credential: DemoCredential) -> list[Account]:
        return self.accounts[credential.name]

    def get(self, credential: DemoCredential, request_id: str) -> Order | None:
        return self.orders.get((credential.name, request_id))

    def place(self, credential: DemoCredential, body: object) -> Order:
        request_id, account_id, requested = parse_checkout(body)
        if (credential.name, request_id) in self.orders:
            raise OrderRejected("OrderAlreadyExists")
        account = self._orderable_account(credential, account_id)
        priced = [self._checked_line(line) for line in requested]
        if sum(line.quantity for line in requested) > MAX_CARDS:
            raise OrderRejected("CardsLimitExceeded")
        total = sum(
            (
                line_charge(product, line.value, line.quantity, brand.currency, account.currency)
                for line, product, brand in priced
            ),
            Decimal("0.00"),
        )
        if total > account.balance:
            raise OrderRejected("InsufficientBalance")
        # The charge path: the debit and its transaction in one step, so they always agree.
        account.balance -= total
        order = self._record(credential, request_id, account, total, priced)
        self.ledger.charge(order)
        return order

    def _orderable_account(self, credential: DemoCredential, account_id: int) -> Account:
        sandbox = credential.environment == "sandbox"
        for account in self.accounts_of(credential):
            if account.id == account_id and account.is_active and account.sandbox_mode == sandbox:
                return account
        raise OrderRejected("WrongAccount")

    def _checked_line(self, line: RequestedLine) -> tuple[RequestedLine, Product, Brand]:
        product = self.catalog.product_by_id.get(line.product_id)
        if product is None:
            raise OrderRejected("InvalidProductIds")
        if line.quantity < 1:
            raise OrderRejected("InvalidQuantity")
        exponent = line.value.as_tuple().exponent  # an int: the value is finite (checked when parsed)
        if not product.min_face <= line.value <= product.max_face or not isinstance(exponent, int) or exponent < -2:
            raise OrderRejected("InvalidDenomination")
        if product.count is not None and line.quantity > product.count:
            raise OrderRejected("ProductIsOutOfStock")
        return line, product, self.catalog.brand_of(product)

    def _record(self, credential, request_id, account, total, priced) -> Order:
        now_wall = datetime.now(UTC).replace(tzinfo=None)
        t = self.timing
        slow = any(product.is_slow for _, product, _ in priced)
        pending_until = t.step_seconds + (t.slow_seconds if slow else 0.0)
        processing_until = pending_until + t.step_seconds
        lines = [
            OrderLine(
                product,
                brand,
                line.value,
                line.quantity,
                [self._new_card(product, brand, line.value, now_wall) for _ in range(line.quantity)],
            )
            for line, product, brand in priced
        ]
        cards = [card for line in lines for card in line.cards]
        paused = any(card.outcome == "Paused" for card in cards)
        order = Order(
            order_id=self._next_order_id,
            request_id=request_id,
            credential=credential,
            account=account,
            total=total,
            lines=lines,
            created_at=time.monotonic(),
            created_wall=now_wall,
            created_until=t.step_seconds,
            pending_until=pending_until,
            processing_until=processing_until,
            final_at=processing_until + (t.pause_seconds if paused else 0.0),
            cards=cards,
        )
        self._next_order_id += 1
        self.orders[(credential.name, request_id)] = order
        for card in cards:
            if card.weblink:
                self.weblinks[card.weblink] = (order, card)
        return order

    def _new_card(self, product: Product, brand: Brand, value: Decimal, now: datetime) -> Card:
        card_id = self._next_card_id
        self._next_card_id += 1
        digest = hashlib.sha256(f"{self.seed}:{card_id}".encode()).digest()
        cents = int((value * 100) % 100)
        card = Card(
            id=card_id,
            outcome=card_outcome(value),
            code=_plain_code(digest),
            pin=f"{int.from_bytes(digest[-2:], 'big') % 10000:04d}" if brand.has_pin else None,
            expires=now + timedelta(days=365),
        )
        if product.is_payout:
            card.weblink = payout_token(digest, card_id)
            card.code = PAYOUT_URL + card.weblink
            card.disabled = cents == 21
            card.expired = cents == 22
            if card.expired:
                card.expires = now - timedelta(days=1)
        return card


def payout_token(digest: bytes, card_id: int) -> str:
    """URL-safe base64 with its padding URL-encoded: ends in %3D or %3D%3D."""
    raw = base64.urlsafe_b64encode(digest[: 16 + card_id % 2]).decode()
    return raw.replace("=", "%3D")


def _plain_code(digest: bytes) -> str:
    text = base64.b32encode(digest).decode()[:16]
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


def body_field(body: dict, name: str) -> object:
    """ASP.NET binds JSON properties case-insensitively; so do we."""
    for key, value in body.items():
        if key.lower() == name.lower():
            return value
    return None


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_checkout(body: object) -> tuple[str, int, list[RequestedLine]]:
    invalid = OrderRejected("InvalidRequest")
    if not isinstance(body, dict):
        raise invalid
    request_id, account_id, products = (
        body_field(body, "RequestId"),
        body_field(body, "AccountId"),
        body_field(body, "Products"),
    )
    if not isinstance(request_id, str) or not request_id.strip() or not _is_int(account_id):
        raise invalid
    if not GUID.fullmatch(request_id):
        raise OrderRejected("InvalidRequestId")
    if not isinstance(products, list):
        raise invalid
    if not products:
        raise OrderRejected("NoProducts")  # the provider's answer to an empty Products
    lines = []
    for item in products:
        if not isinstance(item, dict):
            raise invalid
        product_id, quantity, value = (
            body_field(item, "ProductId"),
            body_field(item, "Quantity"),
            body_field(item, "Value"),
        )
        if not _is_int(product_id) or not _is_int(quantity) or isinstance(value, bool):
            raise invalid
        try:
            amount = Decimal(str(value))
        except InvalidOperation:
            raise invalid from None
        if not amount.is_finite():
            raise invalid
        lines.append(RequestedLine(product_id, quantity, amount))
    return request_id, account_id, lines
