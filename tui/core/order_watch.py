"""What the Order screen decides without Textual: when to look again, how to
sum up the cards, and whether a test order's form holds a placeable order.

Kept free of Textual so the rules are tested on their own (and the CLI's
`order show --watch` may share them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal, InvalidOperation

from tui.api.models import OrderLine, Product

MAX_CARDS_PER_ORDER = 500  # DESIGN: CardsLimitExceeded above this
MAX_FACE_VALUE = 1_000_000  # no gift card is worth more; beyond it (1e400) a float is no longer the number typed

# --- cards ----------------------------------------------------------------------------

_IN_PROGRESS = {"created", "processing"}
_NEEDS_ATTENTION = {"failed", "paused"}


def needs_attention(card_status: str | None) -> bool:
    """Failed and Paused cards are the ones a person must not miss."""
    return (card_status or "").strip().lower() in _NEEDS_ATTENTION


def card_summary(statuses: Iterable[str | None]) -> str:
    """`["Sold", "Sold", "Sold", "Failed"]` -> "3 of 4 cards sold, 1 failed"."""
    counts = Counter((status or "").strip().lower() for status in statuses)
    total = sum(counts.values())
    if total == 0:
        return "No cards yet"
    parts = [f"{counts.pop('sold', 0)} of {total} card{'s' if total != 1 else ''} sold"]
    for name in ("failed", "paused"):
        if counts.get(name):
            parts.append(f"{counts.pop(name)} {name}")
    in_progress = sum(counts.pop(name, 0) for name in _IN_PROGRESS)
    if in_progress:
        parts.append(f"{in_progress} in progress")
    # Unknown statuses are named as they came (DESIGN rule 5), never folded into another count.
    parts.extend(f"{count} {name or '(no status)'}" for name, count in sorted(counts.items()))
    return ", ".join(parts)


def readable_time(stamp: str | None) -> str:
    """The service's ISO 8601 timestamps without the "T" and the milliseconds; unreadable ones as they came."""
    if not stamp:
        return "—"
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    return moment.strftime("%Y-%m-%d %H:%M:%S %z").strip()


# --- test orders ------------------------------------------------------------------------


class DraftInvalid(ValueError):
    """A test order's form is not placeable; the message says which field and why."""


def plain_amount(amount: float | Decimal) -> str:
    """25.0 -> "25", 12345.67 -> "12345.67": as a person types it, no exponent, no grouping."""
    return format(Decimal(str(amount)).normalize(), "f")


def order_line(product: Product, value_text: str, quantity_text: str) -> OrderLine:
    """The one line of a test order, checked against the product (raises DraftInvalid)."""
    if not product.orderable:
        state = "deleted" if product.is_deleted else f"{product.status}"
        raise DraftInvalid(f"{product.name} is {state} at the provider: it cannot be ordered.")
    value = face_value(value_text)
    low, high = Decimal(str(product.min_face_value)), Decimal(str(product.max_face_value))
    if not low <= value <= high:
        raise DraftInvalid(
            f"Face value must be between {plain_amount(low)} and {plain_amount(high)} for {product.name}."
        )
    quantity = _quantity(quantity_text)
    if product.count is not None and quantity > product.count:
        raise DraftInvalid(f"Only {product.count} in stock for {product.name}.")
    return OrderLine(product.id, quantity, float(value))


def face_value(text: str) -> Decimal:
    """A face value as typed: a finite number above 0, at most 2 decimals, at most MAX_FACE_VALUE (raises DraftInvalid)."""
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise DraftInvalid("Face value must be a number, e.g. 25 or 25.50.") from None
    exponent = value.as_tuple().exponent  # the power of ten; a letter for NaN and infinity
    if not isinstance(exponent, int):
        raise DraftInvalid("Face value must be a number, e.g. 25 or 25.50, not NaN or infinity.")
    if exponent < -2:
        raise DraftInvalid("Face value must be a number with at most 2 decimals.")
    if not 0 < value <= MAX_FACE_VALUE:
        raise DraftInvalid(f"Face value must be above 0 and at most {MAX_FACE_VALUE:,}.")
    return value


def _quantity(text: str) -> int:
    try:
        quantity = int(text.strip())
    except ValueError:
        raise DraftInvalid("Quantity must be a whole number.") from None
    if not 1 <= quantity <= MAX_CARDS_PER_ORDER:
        raise DraftInvalid(f"Quantity must be between 1 and {MAX_CARDS_PER_ORDER}.")
    return quantity
