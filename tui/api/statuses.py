"""Status names, what they mean, and which are final (SPEC "States and transitions").

Statuses stay plain strings as the service sent them (DESIGN rule 5): these
helpers compare case-insensitively (callbacks may say "succeeded") and treat
anything unknown as not final.
"""

from __future__ import annotations

ORDER_STATUS_MEANING: dict[str, str] = {
    "Created": "Accepted; fulfillment not started",
    "Processing": "Cards being purchased or finalized",
    "Pending": "No final answer yet; retry Get order or wait for the callback",
    "Succeeded": "All requested cards fulfilled",
    "Failed": "Order did not complete; no final fulfillment",
    "PartialFailed": "At least one card succeeded and at least one failed",
}
ORDER_FINAL = frozenset({"succeeded", "failed", "partialfailed"})

CARD_STATUS_MEANING: dict[str, str] = {
    "Created": "Record exists; fulfillment not begun",
    "Processing": "Currently being fulfilled",
    "Paused": "Paused; check again later",
    "Sold": "Purchased successfully; redemption details available",
    "Failed": "Purchase failed",
}
CARD_FINAL = frozenset({"sold", "failed"})
CARD_RELEASABLE = frozenset({"sold"})

PAYOUT_STATUS_MEANING: dict[str, str] = {
    "Pending": "Accepted and in progress",
    "Completed": "Funds delivered",
    "Unclaimed": "Recipient has no wallet account; about 30 days to register before funds are returned",
    "Failed": "Rejected: invalid account, compliance block, blocked recipient, denied or canceled batch",
    "Returned": "Unclaimed payout returned to the sender after the claim window expired",
    "Reversed": "Funds reversed or refunded by the wallet provider after being claimed",
}
# "Final" for a payout means "no longer processing" (docs/decisions.md):
# Unclaimed and Completed may still move on, but nothing is in flight.
PAYOUT_FINAL = frozenset({"completed", "unclaimed", "failed", "returned", "reversed"})

UNKNOWN_MEANING = "Status not known to giftdesk; shown as the service sent it"


def _key(status: str | None) -> str:
    return (status or "").strip().lower()


def is_order_final(status: str | None) -> bool:
    return _key(status) in ORDER_FINAL


def is_card_final(status: str | None) -> bool:
    return _key(status) in CARD_FINAL


def card_code_releasable(status: str | None) -> bool:
    """Only a Sold card's code may be handed on (SPEC: release after final; DESIGN: Sold only)."""
    return _key(status) in CARD_RELEASABLE


def is_payout_final(status: str | None) -> bool:
    return _key(status) in PAYOUT_FINAL


def _meaning(table: dict[str, str], status: str | None) -> str:
    wanted = _key(status)
    for name, meaning in table.items():
        if name.lower() == wanted:
            return meaning
    return UNKNOWN_MEANING


def order_status_meaning(status: str | None) -> str:
    return _meaning(ORDER_STATUS_MEANING, status)


def card_status_meaning(status: str | None) -> str:
    return _meaning(CARD_STATUS_MEANING, status)


def payout_status_meaning(status: str | None) -> str:
    return _meaning(PAYOUT_STATUS_MEANING, status)
