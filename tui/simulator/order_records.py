"""The order book's records: accounts, orders, their lines and cards, and how each is answered on the wire.

Apart from the book (orders.py) so that the ledger can name them without importing the book.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from .catalog import Brand, Product
from .credentials import ACCOUNT_SEEDS, DemoCredential


@dataclass
class Account:
    id: int
    currency: str
    balance: Decimal
    is_active: bool
    sandbox_mode: bool

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "currency": self.currency,
            "balance": float(self.balance),
            "isActive": self.is_active,
            "sandboxMode": self.sandbox_mode,
        }


def seed_accounts() -> dict[str, list[Account]]:
    return {
        name: [Account(s.id, s.currency, s.balance, s.is_active, s.sandbox_mode) for s in seeds]
        for name, seeds in ACCOUNT_SEEDS.items()
    }


@dataclass
class Card:
    id: int
    outcome: str  # "Sold" | "Failed" | "Paused" (Paused later becomes Sold)
    code: str
    pin: str | None
    expires: datetime
    weblink: str | None = None  # the raw token, for payout products
    disabled: bool = False
    expired: bool = False


@dataclass
class OrderLine:
    product: Product
    brand: Brand
    value: Decimal
    quantity: int
    cards: list[Card]


@dataclass
class Order:
    order_id: int
    request_id: str
    credential: DemoCredential
    account: Account
    total: Decimal
    lines: list[OrderLine]
    created_at: float  # monotonic
    created_wall: datetime  # naive UTC
    created_until: float  # offsets from created_at, see "Order timeline" in docs/simulator.md
    pending_until: float
    processing_until: float
    final_at: float
    cards: list[Card]  # every card of every line, in order

    def elapsed(self) -> float:
        return time.monotonic() - self.created_at

    def card_status(self, card: Card, elapsed: float) -> str:
        if elapsed < self.pending_until:
            return "Created"
        if elapsed < self.processing_until:
            return "Processing"
        if card.outcome == "Paused":
            return "Paused" if elapsed < self.final_at else "Sold"
        return card.outcome

    def status(self, elapsed: float) -> str:
        if elapsed < self.created_until:
            return "Created"
        if elapsed < self.pending_until:
            return "Pending"  # stalled: a "Slow" product
        if elapsed < self.processing_until:
            return "Processing"
        if elapsed < self.final_at:
            return "Pending"  # a card is Paused
        return self.final_status()

    def final_status(self) -> str:
        failed = sum(card.outcome == "Failed" for card in self.cards)
        if failed == 0:
            return "Succeeded"
        return "Failed" if failed == len(self.cards) else "PartialFailed"

    def completed_wall(self) -> datetime:
        return self.created_wall + timedelta(seconds=self.final_at)

    def to_json(self) -> dict:
        elapsed = self.elapsed()
        status = self.status(elapsed)
        return {
            "orderId": self.order_id,
            "requestId": self.request_id,
            "items": [self._line_json(line, elapsed) for line in self.lines],
            "status": status,
            "createdDate": wire_time(self.created_wall),
            "total": float(self.total),
            "errorMessage": _error_message(status, self.cards),
            "orderType": "Sandbox" if self.credential.environment == "sandbox" else "Production",
            "currency": self.account.currency,
        }

    def _line_json(self, line: OrderLine, elapsed: float) -> dict:
        return {
            "productId": line.product.id,
            "productFaceValue": float(line.value),
            "quantity": line.quantity,
            "countryCode": line.brand.country,
            "currencyCode": line.brand.currency,
            "brandCode": None,
            "pictureUrl": None,
            "cards": [self._card_json(card, self.card_status(card, elapsed)) for card in line.cards],
        }

    def _card_json(self, card: Card, status: str) -> dict:
        # Codes appear once a card leaves Processing, also for Paused and Failed
        # cards, so a client that releases a code before Sold is caught.
        issued = status not in ("Created", "Processing")
        return {
            "id": card.id,
            "serialNumber": f"SN{card.id:010d}",
            "cardCode": card.code if issued else None,
            "pin": card.pin if issued else None,
            "expirationDate": card.expires.isoformat(timespec="seconds"),
            "status": status,
        }


def _error_message(status: str, cards: list[Card]) -> str | None:
    failed = sum(card.outcome == "Failed" for card in cards)
    if status == "Failed":
        return f"All {failed} cards failed to be issued."
    if status == "PartialFailed":
        return f"{failed} of {len(cards)} cards failed to be issued."
    return None


def wire_time(moment: datetime) -> str:
    """Order timestamps: ISO 8601, naive UTC, milliseconds."""
    return moment.isoformat(timespec="milliseconds")
