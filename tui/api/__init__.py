"""The service client (never imports Textual).

Names are exported lazily so that `import tui.api.payout_rules` (used by
`giftdesk payout check`) does not pay for httpx.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ServiceClient": "client",
    "RetryPolicy": "client",
    "RetryOn": "client",
    "NO_RETRY": "client",
    "ServiceError": "errors",
    "AuthenticationError": "errors",
    "RateLimitedError": "errors",
    "RefusedError": "errors",
    "UnreachableError": "errors",
    "ServerError": "errors",
    "MalformedResponseError": "errors",
    "RecipientInvalid": "payout_rules",
    "validate_redeem": "payout_rules",
    "redeem_problem": "payout_rules",
    "weblink_token": "weblink",
    "is_payout_url": "weblink",
    "WeblinkError": "weblink",
    **dict.fromkeys(("Account", "Brand", "CallbackPayload", "Card", "CatalogPage", "CatalogQuery", "Category", "NotificationConfig", "Order", "OrderHistoryLine", "OrderItem", "OrderLine", "PayoutStatus", "PlaceOrder", "Price", "Product", "RedeemRequest", "RedeemResult", "to_wire"), "models"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'tui.api' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tui.api.{_EXPORTS[name]}"), name)
