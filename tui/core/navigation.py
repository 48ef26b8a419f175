"""The screens a person can go to: one table for keys, palette and jump-to.

No Textual here: the help text and the jump-to parser read it too.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Destination:
    name: str  # jump-to word and binding id suffix
    key: str
    title: str
    help: str
    screen: str  # "module:Class" under tui.screens, imported on first visit


DESTINATIONS: tuple[Destination, ...] = (
    Destination(
        "catalog", "1", "Catalog", "Brands and products: filters, pages, prices, stock", "catalog:CatalogScreen"
    ),
    Destination(
        "accounts", "2", "Accounts", "Accounts, balances; choose the active account", "accounts:AccountsScreen"
    ),
    Destination("order", "3", "Order", "Inspect one order by RequestId; recent orders", "order:OrderScreen"),
    Destination("payout", "4", "Payout", "Redeem a payout card; look up a payout's status", "payout:PayoutScreen"),
    Destination(
        "notifications",
        "5",
        "Notifications",
        "Callback configuration and the local listener",
        "notifications:NotificationsScreen",
    ),
    Destination("profiles", "6", "Profiles", "Profiles: list, add, edit, remove, switch", "profiles:ProfilesScreen"),
    Destination("audit", "7", "Audit", "Local audit log of redeems, orders, reveals and changes", "audit:AuditScreen"),
    Destination("rates", "0", "Rates", "Exchange rates and a converter", "rates:RatesScreen"),
    Destination(
        "orders", "8", "Orders", "Triage board: a range of days' orders, counts, stuck ones", "orders:OrdersScreen"
    ),
    Destination(
        "watch", "9", "Watch", "Orders and payouts followed until final; paste many at once", "watch:WatchScreen"
    ),
    Destination("help", "question_mark", "Help", "Keys, jump-to commands and what the colours mean", "help:HelpScreen"),
)

HOME = "catalog"

BY_NAME: dict[str, Destination] = {d.name: d for d in DESTINATIONS}
