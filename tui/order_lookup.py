"""Wiring: any ID finds the order, for the command line and the TUI alike (DESIGN.md "Command line contract").

The rule is tui.core.order_ids; the orders it looks among are what this profile's local copies name (the orders
report's lines, the transactions, the orders seen whole with their cards' serials) and its recent orders. An ID
none of them knows sends one orders report of the last LOOKBACK_DAYS days (an endpoint without a limit; its
closed days are kept) and looks again; an ID of 8 characters or more that is still unknown, and is not an order
number, is asked of the service as a RequestId (which says, exit 3, when it does not know it). No Textual.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import TYPE_CHECKING

from tui.core.dates import DayRange
from tui.core.order_ids import MIN_START, KnownOrder, UnknownOrderId, is_request_id, number_of, order_number, resolve

if TYPE_CHECKING:
    from tui.api.client import ServiceClient
    from tui.api.models import Order
    from tui.local.report_copies import ReportCopies

LOOKBACK_DAYS = 30


async def find_order(
    text: str, client: ServiceClient, copies: ReportCopies, recent: Iterable[str] = (), *, today: date | None = None
) -> str:
    """The RequestId `text` names. Raises tui.core.order_ids.UnknownOrderId or AmbiguousOrderId."""
    recent_orders = [KnownOrder(request_id, where="recent orders") for request_id in recent]
    if is_request_id(text):
        return text.strip()
    try:
        return resolve(text, [*copies.known_orders(), *recent_orders])
    except UnknownOrderId:
        days = DayRange.last_days(LOOKBACK_DAYS, today=today or date.today())
        await copies.order_history(client, days)
        try:
            return resolve(text, [*copies.known_orders(), *recent_orders])
        except UnknownOrderId:
            if number_of(text) is None and len(text.strip()) >= MIN_START:
                return text.strip()  # perhaps a RequestId of another shape: the service says whether it knows it
            raise


def remember(copies: ReportCopies, order: Order) -> None:
    """Keep what names an order seen whole, so that its number and its cards' serials find it later."""
    serials = [card.serial_number for card in order.cards if card.serial_number]
    copies.remember_cards(
        order.request_id, order_number(order.order_id), serials, status=order.status, created=order.created_date
    )
