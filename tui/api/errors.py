"""What can go wrong when talking to the service, as types a person can act on.

Every error carries `.hint` (what to do next) and never a secret: messages
are passed through `mask_text`, and weblinks in paths are masked.
"""

from __future__ import annotations

from tui.api.redact import mask_text

# Hints for refusals whose text the spec or DESIGN names.
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
    "OrderAlreadyExists": "An order with this RequestId exists already: nothing new was placed. See it with `giftdesk order show ID`; do not place it again.",
    "WrongAccount": "The account does not match these credentials or this environment (sandbox/production).",
    "InsufficientBalance": "The account's balance is too low for this order.",
    "InvalidProductIds": "A product id is not in the catalog for this account.",
    "InvalidDenomination": "The value must lie within the product's min and max face value.",
    "ProductIsOutOfStock": "The product is out of stock; check the catalog's count.",
    "CardsLimitExceeded": "At most 500 cards per order.",
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

    def __init__(self, message: str, *, retry_after: float | None = None, hint: str | None = None, status: int | None = None) -> None:
        super().__init__(message, hint=hint, status=status)
        self.retry_after = retry_after


class RefusedError(ServiceError):
    """A 4xx other than 401/429: `.message` is the service's own text."""

    default_hint = "The service refused the request; its message says why."
    # Set by the client: an earlier attempt of the same request may have reached the service (its answer was lost).
    after_unknown_attempt = False

    def __init__(self, message: str, *, status: int, hint: str | None = None, context: str = "") -> None:
        hint = hint or REFUSAL_HINTS.get(message.strip()) or (NOT_FOUND_HINT if status == 404 else None)
        super().__init__(message, status=status, hint=hint)
        self.context = mask_text(context)  # e.g. "POST /api/... -> 400"


class UnreachableError(ServiceError):
    default_hint = "Check the base URL, the network, and that the service is up."


class ServerError(ServiceError):
    default_hint = "The service failed; try again later, and quote the time to the provider if it persists."


class MalformedResponseError(ServiceError):
    default_hint = "The service answered in an unexpected shape; check the base URL points at the service."
