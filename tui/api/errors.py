"""What can go wrong when talking to the service, as types a person can act on.

Every error carries `.hint` (what to do next) and never a secret: messages
are passed through `mask_text`, and weblinks in paths are masked.
"""

from __future__ import annotations

import re

from tui.api.redact import mask_text

# The provider's 400 reason codes (DESIGN.md "What the real provider sends"): what happened, and what to do.
# The message says the first with the code after it, the hint the second; an unknown code is shown as it came.
REASONS: dict[str, tuple[str, str]] = {
    "OrderAlreadyExists": (
        "an order with this RequestId exists already",
        "Nothing new was placed: see it with `giftdesk order show ID`; do not place it again.",
    ),
    "OrderNotFound": (
        "no order with this RequestId",
        "Check the id, and that the profile's environment (sandbox/production) is the one it was placed in.",
    ),
    "WrongAccount": (
        "the account cannot be used with these credentials in this environment",
        "Choose an active account of this environment: `giftdesk accounts` lists them.",
    ),
    "InsufficientBalance": (
        "the account's balance is too low for this order",
        "Fund the account, order less, or choose another account.",
    ),
    "InvalidProductIds": (
        "a product id is not in the catalog for this account",
        "Check the product id in `giftdesk catalog --product-id N`.",
    ),
    "InvalidDenomination": (
        "the value is not one the product allows",
        "Give a value within the product's min and max face value (the catalog shows them).",
    ),
    "ProductIsOutOfStock": (
        "the product is out of stock",
        "Check the product's count in the catalog, order fewer cards, or try later.",
    ),
    "CardsLimitExceeded": (
        "the order asks for more cards than the provider allows",
        "At most 500 cards per order: split it into several orders.",
    ),
    "InvalidProduct": (
        "a product cannot be ordered (deleted, inactive, or not in this account's catalog)",
        "Check the product and its status with `giftdesk catalog --product-id N`, or choose another.",
    ),
    "NoProducts": (
        "the order names no product",
        "Give at least one product: `giftdesk order place --account ID --product ID --value V`.",
    ),
    "ClientCatalogNotExist": (
        "no catalog is set up for these credentials",
        "Ask the provider's account manager to assign a catalog to this client; nothing can be ordered until then.",
    ),
    "ClientPriceInvalid": (
        "the provider has no valid price for this product for this client",
        "Choose another product, and report this one to the provider: its price for you is not set up.",
    ),
    "UserNotEnabled": (
        "these credentials are not enabled for the API",
        "Ask the provider to enable the API user, and check the profile's client id (`giftdesk profiles show`).",
    ),
}

# A reason code: one word in CamelCase, as the provider's 400 bodies carry them.
REASON_CODE = re.compile(r"[A-Z][A-Za-z]+")

# Hints for refusals whose text the spec names (the payout endpoints' exact texts).
REFUSAL_HINTS: dict[str, str] = {
    "Request body is required.": "Send a wallet and one recipient.",
    "A valid wallet (PayPal or Venmo) is required.": "Use wallet PayPal or Venmo, spelled exactly so.",
    "Provide exactly one of recipient email, phone, or handle.": "Give one recipient: email, phone or handle.",
    "PayPal payouts support only a recipient email.": "For PayPal give an email; phone and handle are Venmo only.",
    "Invalid recipient email address.": "Check the email address.",
    "Invalid recipient phone number.": "A phone is an optional + then 7 to 15 digits, nothing else.",
    "Invalid recipient user handle.": "A handle is an optional @ then 5 to 30 letters, digits, _ or -.",
    "Weblink is disabled": "This payout link was disabled by the provider; the card cannot be redeemed as is.",
    "Payout weblink expired": "This payout link is past its expiration date.",
    "Failed to redeem weblink": (
        "The link may not exist, belong to another client, have been rejected, or its card failed. "
        "Check the order's card status and the profile (sandbox/production)."
    ),
    "Recipient ID does not match": "An earlier attempt used a different recipient: re-submit with that recipient.",
}

NOT_FOUND_HINT = "Check the id, and that the profile's environment (sandbox/production) is the one it was made in."


class ServiceError(Exception):
    """Base of every failure talking to the service."""

    default_hint = "Try again; if it persists, check the service status."

    def __init__(self, message: str, *, hint: str | None = None, status: int | None = None) -> None:
        self.message = mask_text(message)
        self.hint = hint or self.default_hint
        self.status = status
        super().__init__(self.message)


class AuthenticationError(ServiceError):
    default_hint = "The client id or secret was refused: check the profile's credentials and environment."


class RateLimitedError(ServiceError):
    default_hint = "Another request for the same resource is in progress; wait and try again."

    def __init__(
        self, message: str, *, retry_after: float | None = None, hint: str | None = None, status: int | None = None
    ) -> None:
        super().__init__(message, hint=hint, status=status)
        self.retry_after = retry_after


class ForbiddenError(ServiceError):
    """403: the credentials are valid but have no access to that resource (exit 4, as a 401).
    The message ends with the service's own `error` text."""

    default_hint = (
        "Ask the provider to give these credentials access to it, or use a profile whose credentials have it."
    )


class RefusedError(ServiceError):
    """A 4xx other than 401/403/429: `.message` is the service's own text, in words when it is a reason code.

    `.reason` is the provider's reason code (e.g. "OrderAlreadyExists") when the text was one, else None.
    """

    default_hint = "The service refused the request; its message says why."
    # Set by the client: an earlier attempt of the same request may have reached the service (its answer was lost).
    after_unknown_attempt = False

    def __init__(self, message: str, *, status: int, hint: str | None = None, context: str = "") -> None:
        text = message.strip()
        self.reason = text if REASON_CODE.fullmatch(text) else None
        if text in REASONS:
            what, to_do = REASONS[text]
            message, hint = f"{what} ({text})", hint or to_do
        hint = hint or REFUSAL_HINTS.get(text) or (NOT_FOUND_HINT if status == 404 else None)
        super().__init__(message, status=status, hint=hint)
        self.context = mask_text(context)  # e.g. "POST /api/... -> 400"


class OrderNotFoundError(RefusedError):
    """Get order of a RequestId the service does not know: 404, or 400 `OrderNotFound` (the provider's way)."""

    def __init__(self, environment: str | None, *, status: int, context: str = "") -> None:
        super().__init__("OrderNotFound", status=status, context=context)
        self.message = f"no order with this RequestId in {environment or 'this environment'}"
        self.args = (self.message,)


class UnreachableError(ServiceError):
    default_hint = "Check the base URL, the network, and that the service is up."


class ServerError(ServiceError):
    default_hint = "The service failed; try again later, and quote the time to the provider if it persists."


class MalformedResponseError(ServiceError):
    default_hint = "The service answered in an unexpected shape; check the base URL points at the service."
