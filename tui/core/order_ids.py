"""Any ID finds the order (DESIGN.md "Command line contract"): the rule, apart from where the IDs come from.

An order's ID is its RequestId, a unique start of one (8 characters or more), its order number (`O-00500199`
or `500199`), or the serial of one of its cards. A whole RequestId (a GUID) is taken as it is: the service
says whether it knows it. Anything else is looked up among the orders giftdesk knows (`KnownOrder`): one match
is the order, several are `AmbiguousOrderId` naming them, none is `UnknownOrderId`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
ORDER_NUMBER = re.compile(r"(?:[Oo]-?)?(\d{1,12})")
MIN_START = 8  # a shorter start of a RequestId matches too much to be meant
CANDIDATES_SHOWN = 5


class NamesAnOrder(Protocol):
    """What a source of known orders gives (tui.local.report_copies.SeenOrder, or a KnownOrder)."""

    @property
    def request_id(self) -> str: ...
    @property
    def order_number(self) -> str | None: ...
    @property
    def serials(self) -> tuple[str, ...]: ...
    @property
    def where(self) -> str: ...
    @property
    def status(self) -> str | None: ...
    @property
    def day(self) -> str | None: ...


@dataclass(frozen=True)
class KnownOrder:
    """An order giftdesk has seen somewhere, with what can name it."""

    request_id: str
    order_number: str | None = None  # as the service writes it (`O-00500199`), or None when not seen
    serials: tuple[str, ...] = ()
    where: str = ""  # where it was seen, said when it is one of several candidates
    status: str | None = None  # as the copy it was seen in said it, for a candidate's line in a picker
    day: str | None = None  # the order's date as that copy wrote it


class UnknownOrderId(LookupError):
    """No order giftdesk knows has this ID; the message says what was looked for and what to do."""


class AmbiguousOrderId(LookupError):
    def __init__(self, text: str, candidates: list[KnownOrder]) -> None:
        self.candidates = candidates
        shown = ", ".join(
            f"{c.request_id}" + (f" ({c.order_number})" if c.order_number else "")
            for c in candidates[:CANDIDATES_SHOWN]
        )
        more = f" and {len(candidates) - CANDIDATES_SHOWN} more" if len(candidates) > CANDIDATES_SHOWN else ""
        super().__init__(f"{text!r} matches {len(candidates)} orders: {shown}{more}")


def order_number(order_id: int) -> str:
    """The service's order number for an order id: 500199 -> `O-00500199`."""
    return f"O-{order_id:08d}"


def number_of(text: str) -> int | None:
    """The number in an order number as typed (`O-00500199`, `o00500199`, `500199`), or None."""
    match = ORDER_NUMBER.fullmatch(text.strip())
    return int(match.group(1)) if match else None


def is_request_id(text: str) -> bool:
    return GUID.fullmatch(text.strip()) is not None


def resolve(text: str, known: Iterable[NamesAnOrder]) -> str:
    """The RequestId that `text` names. Raises UnknownOrderId or AmbiguousOrderId."""
    wanted = text.strip()
    if not wanted:
        raise UnknownOrderId("an empty order ID: give a RequestId, its first 8 characters, or an order number")
    if is_request_id(wanted):
        return wanted
    orders = _distinct(known)
    number = number_of(wanted)
    if number is not None:
        matches = [o for o in orders if o.order_number is not None and number_of(o.order_number) == number]
        if not matches and len(wanted) >= MIN_START:  # all digits may also be a serial or a RequestId's start
            matches = _by_start_or_serial(wanted, orders)
        return _one(wanted, matches, f"order number {order_number(number)}")
    if len(wanted) < MIN_START:
        serial = [o for o in orders if any(s.casefold() == wanted.casefold() for s in o.serials)]
        if serial:
            return _one(wanted, serial, "card serial")
        raise UnknownOrderId(
            f"{wanted!r} is too short to name an order: give the whole RequestId, at least its first "
            f"{MIN_START} characters, the order number (O-00500199) or a card serial"
        )
    return _one(wanted, _by_start_or_serial(wanted, orders), "RequestId start or card serial")


def _by_start_or_serial(wanted: str, orders: list[KnownOrder]) -> list[KnownOrder]:
    folded = wanted.casefold()
    return [
        o
        for o in orders
        if o.request_id.casefold().startswith(folded) or any(s.casefold() == folded for s in o.serials)
    ]


def _one(wanted: str, matches: list[KnownOrder], what: str) -> str:
    if len(matches) == 1:
        return matches[0].request_id
    if matches:
        raise AmbiguousOrderId(wanted, matches)
    raise UnknownOrderId(
        f"no order giftdesk has seen matches {what} {wanted!r}: give the whole RequestId, or list the days' "
        "orders with `giftdesk orders list --from DATE` (giftdesk learns order numbers from that report)"
    )


def _distinct(known: Iterable[NamesAnOrder]) -> list[KnownOrder]:
    """One entry per RequestId (case aside), what each source knew merged, in the order first seen."""
    merged: dict[str, KnownOrder] = {}
    for order in known:
        key = order.request_id.casefold()
        seen = merged.get(key)
        if seen is None:
            merged[key] = KnownOrder(
                order.request_id, order.order_number, tuple(order.serials), order.where, order.status, order.day
            )
        else:
            merged[key] = KnownOrder(
                seen.request_id,
                seen.order_number or order.order_number,
                tuple(dict.fromkeys((*seen.serials, *order.serials))),
                seen.where or order.where,
                seen.status or order.status,
                seen.day or order.day,
            )
    return list(merged.values())
