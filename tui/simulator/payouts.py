"""Payout redemption: the spec's rules 1-7, magic recipients, status over time.

Written from SPEC.md independently of the client's payout_rules (DESIGN rule 3).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .credentials import DemoCredential
from .order_records import wire_time
from .orders import OrderBook
from .settings import Timing

PAYPAL, VENMO = "PayPal", "Venmo"

BODY_REQUIRED = "Request body is required."
WALLET_REQUIRED = "A valid wallet (PayPal or Venmo) is required."
EXACTLY_ONE_RECIPIENT = "Provide exactly one of recipient email, phone, or handle."
PAYPAL_EMAIL_ONLY = "PayPal payouts support only a recipient email."
INVALID = {
    "email": "Invalid recipient email address.",
    "phone": "Invalid recipient phone number.",
    "handle": "Invalid recipient user handle.",
}
WEBLINK_DISABLED = "Weblink is disabled"
WEBLINK_EXPIRED = "Payout weblink expired"
REDEEM_FAILED = "Failed to redeem weblink"
RECIPIENT_MISMATCH = "Recipient ID does not match"

RECIPIENT_FIELDS = {"recipientEmail": "email", "recipientPhone": "phone", "recipientHandle": "handle"}
FORMATS = {
    "email": re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+"),
    "phone": re.compile(r"\+?[0-9]{7,15}"),
    "handle": re.compile(r"@?[A-Za-z0-9_-]{5,30}"),
}

# Magic recipients (docs/simulator.md): keyword in the email local part or
# handle, or the phone's last four digits, pick the payout's flow.
FLOWS: dict[str, tuple[str, ...] | None] = {
    "rejected": None,  # 400 Failed to redeem weblink
    "stuck": ("Pending",),
    "processing": ("Pending", "Completed"),
    "unclaimed": ("Pending", "Unclaimed"),
    "failed": ("Pending", "Failed"),
    "returned": ("Pending", "Unclaimed", "Returned"),
    "reversed": ("Pending", "Completed", "Reversed"),
}
PHONE_SUFFIXES = {
    "0001": "unclaimed",
    "0002": "failed",
    "0003": "returned",
    "0004": "reversed",
    "0005": "processing",
    "0008": "rejected",
    "0009": "stuck",
}
DEFAULT_FLOWS = {PAYPAL: ("Completed",), VENMO: ("Pending", "Completed")}


class RedeemRefused(Exception):
    """A 400 of redeem; the message is the spec's text."""


@dataclass(frozen=True)
class Recipient:
    kind: str  # "email" | "phone" | "handle"
    value: str

    def same_as(self, other: Recipient) -> bool:
        if self.kind != other.kind:
            return False
        if self.kind == "phone":
            return self.value.lstrip("+") == other.value.lstrip("+")
        return self.value.lower().lstrip("@") == other.value.lower().lstrip("@")

    def magic_key(self) -> str:
        if self.kind == "phone":
            return self.value[-4:]
        return self.value.split("@")[0].lower() if self.kind == "email" else self.value.lower()


def parse_redeem_body(raw: bytes) -> tuple[str, Recipient]:
    """Validate in the spec's fixed precedence; raise RedeemRefused with its text."""
    try:
        body = json.loads(raw) if raw.strip() else None
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise RedeemRefused(BODY_REQUIRED)
    wallet = body.get("wallet")
    if wallet not in (PAYPAL, VENMO):
        raise RedeemRefused(WALLET_REQUIRED)
    # A field is present when it is in the body and not null (docs/decisions.md).
    given = [(kind, body[name]) for name, kind in RECIPIENT_FIELDS.items() if body.get(name) is not None]
    if len(given) != 1:
        raise RedeemRefused(EXACTLY_ONE_RECIPIENT)
    kind, value = given[0]
    if wallet == PAYPAL and kind != "email":
        raise RedeemRefused(PAYPAL_EMAIL_ONLY)
    if not isinstance(value, str) or not FORMATS[kind].fullmatch(value):
        raise RedeemRefused(INVALID[kind])
    return wallet, Recipient(kind, value)


def flow_for(wallet: str, recipient: Recipient) -> tuple[str, ...] | None:
    key = recipient.magic_key()
    if recipient.kind == "phone":
        name = PHONE_SUFFIXES.get(key)
        return FLOWS[name] if name else DEFAULT_FLOWS[wallet]
    for name, flow in FLOWS.items():
        if name in key:
            return flow
    return DEFAULT_FLOWS[wallet]


@dataclass
class Payout:
    credential: DemoCredential
    wallet: str
    recipient: Recipient
    transaction_id: str
    payout_batch_id: str
    flow: tuple[str, ...]
    created_at: float  # monotonic
    created_wall: datetime
    step_seconds: float

    def _stage(self) -> int:
        elapsed = time.monotonic() - self.created_at
        return min(int(elapsed / self.step_seconds), len(self.flow) - 1)

    def status(self) -> str:
        return self.flow[self._stage()]

    def result_json(self) -> dict:
        return {
            "transactionId": self.transaction_id,
            "payoutBatchId": self.payout_batch_id,
            "isProcessing": self.status() == "Pending",
        }

    def status_json(self) -> dict:
        stage = self._stage()
        updated = self.created_wall + timedelta(seconds=stage * self.step_seconds)
        return {
            "status": self.flow[stage],
            "transactionId": self.transaction_id,
            "payoutBatchId": self.payout_batch_id,
            "updatedAt": wire_time(updated),
        }

    def inspect(self) -> dict:
        return {**self.status_json(), "wallet": self.wallet, "recipient": self.recipient.value}


class PayoutDesk:
    def __init__(self, orders: OrderBook, timing: Timing, seed: int):
        self.orders = orders
        self.timing = timing
        self.seed = seed
        self.payouts: dict[str, Payout] = {}  # raw token -> its one payout
        self.in_flight: set[str] = set()  # tokens with a redeem being processed

    def check_redeemable(
        self, credential: DemoCredential, token: str, wallet: str, recipient: Recipient
    ) -> Payout | None:
        """Rules 5-7; returns the existing payout for a repeat, None for a new one."""
        link = self.orders.weblinks.get(token)
        if link is None or link[0].credential != credential:
            raise RedeemRefused(REDEEM_FAILED)  # reveals nothing about other clients' links
        order, card = link
        if order.card_status(card, order.elapsed()) != "Sold":
            raise RedeemRefused(REDEEM_FAILED)
        if card.disabled:
            raise RedeemRefused(WEBLINK_DISABLED)
        if card.expired:
            raise RedeemRefused(WEBLINK_EXPIRED)
        existing = self.payouts.get(token)
        if existing is not None:
            if not existing.recipient.same_as(recipient):
                raise RedeemRefused(RECIPIENT_MISMATCH)
            return existing
        if flow_for(wallet, recipient) is None:
            raise RedeemRefused(REDEEM_FAILED)  # payout rejected by the wallet provider
        return None

    def create(self, credential: DemoCredential, token: str, wallet: str, recipient: Recipient) -> Payout:
        digest = hashlib.sha256(f"{self.seed}:payout:{token}".encode()).hexdigest().upper()
        payout = Payout(
            credential=credential,
            wallet=wallet,
            recipient=recipient,
            transaction_id=f"SIMTX-{digest[:16]}",
            payout_batch_id=f"SIMBATCH-{digest[16:28]}",
            flow=flow_for(wallet, recipient) or (),
            created_at=time.monotonic(),
            created_wall=datetime.now(UTC).replace(tzinfo=None),
            step_seconds=self.timing.payout_step_seconds,
        )
        self.payouts[token] = payout
        return payout

    def status_of(self, credential: DemoCredential, token: str) -> Payout | None:
        payout = self.payouts.get(token)
        return payout if payout is not None and payout.credential == credential else None
