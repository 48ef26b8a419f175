"""The service client (never imports Textual).

Names are exported lazily so that `import tui.api.payout_rules` (used by
`giftdesk payout check`) does not pay for httpx.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

# httpx imports its optional command-line tool (`httpx._main`: rich.syntax, pygments'
# lexers, click) whenever those happen to be installed, as they are here, and it costs
# a one-shot command about 80 ms of its ~300. giftdesk never runs that tool, and httpx
# treats the module's absence as "the [cli] extra is not installed": this empty stand-in
# (no `main` in it) says just that. Set before any submodule imports httpx.
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", ModuleType("httpx._main", "httpx's CLI: not loaded by giftdesk (tui/api)"))

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
    **dict.fromkeys(
        (
            "Account",
            "Brand",
            "CallbackPayload",
            "Card",
            "CatalogPage",
            "CatalogQuery",
            "Category",
            "NotificationConfig",
            "Order",
            "OrderHistoryLine",
            "OrderItem",
            "OrderLine",
            "PayoutStatus",
            "PlaceOrder",
            "Price",
            "Product",
            "RedeemRequest",
            "RedeemResult",
            "to_wire",
        ),
        "models",
    ),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'tui.api' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tui.api.{_EXPORTS[name]}"), name)
