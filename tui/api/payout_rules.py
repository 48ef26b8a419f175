"""Local validation of a redeem body, with the spec's texts and a fixed precedence.

Precedence (docs/decisions.md, tests/spec_cases.py): body missing, wallet,
exactly one recipient, PayPal takes an email only, then the format of the
one recipient given. A field counts as present when it is there and not
null; an empty string is present and then malformed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

PAYPAL = "PayPal"  # SPEC <WALLET_A>
VENMO = "Venmo"  # SPEC <WALLET_B>
WALLETS = (PAYPAL, VENMO)  # case-sensitive on the wire

BODY_REQUIRED = "Request body is required."
WALLET_REQUIRED = "A valid wallet (PayPal or Venmo) is required."
EXACTLY_ONE_RECIPIENT = "Provide exactly one of recipient email, phone, or handle."
PAYPAL_EMAIL_ONLY = "PayPal payouts support only a recipient email."
INVALID_EMAIL = "Invalid recipient email address."
INVALID_PHONE = "Invalid recipient phone number."
INVALID_HANDLE = "Invalid recipient user handle."

EMAIL_FIELD = "recipientEmail"
PHONE_FIELD = "recipientPhone"
HANDLE_FIELD = "recipientHandle"

# ASCII only on purpose: the spec's limits are counted in digits and letters.
_FORMATS: dict[str, tuple[re.Pattern[str], str]] = {
    EMAIL_FIELD: (re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+"), INVALID_EMAIL),
    PHONE_FIELD: (re.compile(r"\+?[0-9]{7,15}"), INVALID_PHONE),
    HANDLE_FIELD: (re.compile(r"@?[A-Za-z0-9_-]{5,30}"), INVALID_HANDLE),
}


# Each spec text's rule in words, said after the text (never instead of it): what a valid value looks like.
RULES = {
    BODY_REQUIRED: "Send a wallet and one recipient.",
    WALLET_REQUIRED: "The wallet is PayPal or Venmo, spelled exactly so.",
    EXACTLY_ONE_RECIPIENT: "Give one recipient: an email, a phone or a handle (phone and handle with Venmo only).",
    PAYPAL_EMAIL_ONLY: "With PayPal give an email; a phone or a handle needs Venmo.",
    INVALID_EMAIL: "An email is name@domain.tld: one @, a dot after it, no spaces.",
    INVALID_PHONE: "A phone is an optional + then 7 to 15 digits, no spaces or dashes (e.g. +15551234567).",
    INVALID_HANDLE: "A handle is an optional @ then 5 to 30 letters, digits, _ or - (e.g. @jane_doe).",
}


def redeem_rule(body: Mapping[str, Any] | Any | None) -> str | None:
    """The rule the body breaks, in words, to say after the spec's text (None when valid).

    A wallet right but for its case (`venmo`) is told so. A recipient's length is given, never
    the recipient itself (DESIGN rule 6)."""
    problem = redeem_problem(body)
    if problem is None:
        return None
    fields = body.to_wire() if body is not None and hasattr(body, "to_wire") else body or {}
    wallet = fields.get("wallet")
    if problem == WALLET_REQUIRED and isinstance(wallet, str):
        proper = next((name for name in WALLETS if name.lower() == wallet.strip().lower()), None)
        if proper is not None:
            return f"Only the case is wrong: write {proper}, not {wallet.strip()}."
    if problem in (INVALID_PHONE, INVALID_HANDLE):
        value = fields.get(PHONE_FIELD if problem == INVALID_PHONE else HANDLE_FIELD)
        if isinstance(value, str):
            counted = sum(c.isdigit() for c in value) if problem == INVALID_PHONE else len(value.lstrip("@"))
            unit = "digits" if problem == INVALID_PHONE else "characters without the @"
            return f"{RULES[problem]} This one has {counted} {unit}."
    return RULES[problem]


class RecipientInvalid(ValueError):
    """A redeem body the service would refuse; str() is the spec's text."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def redeem_problem(body: Mapping[str, Any] | Any | None) -> str | None:
    """The spec's text for the first rule the body breaks, or None when it is valid.

    `body` is a wire-named mapping, anything with `to_wire()` (RedeemRequest), or None.
    """
    if body is None:
        return BODY_REQUIRED
    fields = body.to_wire() if hasattr(body, "to_wire") else body
    if fields.get("wallet") not in WALLETS:
        return WALLET_REQUIRED
    present = [name for name in _FORMATS if fields.get(name) is not None]
    if len(present) != 1:
        return EXACTLY_ONE_RECIPIENT
    (recipient,) = present
    if fields["wallet"] == PAYPAL and recipient != EMAIL_FIELD:
        return PAYPAL_EMAIL_ONLY
    pattern, text = _FORMATS[recipient]
    value = fields[recipient]
    if not isinstance(value, str) or not pattern.fullmatch(value):
        return text
    return None


def validate_redeem(body: Mapping[str, Any] | Any | None) -> None:
    """Raise RecipientInvalid with the spec's text when the body breaks a rule."""
    problem = redeem_problem(body)
    if problem is not None:
        raise RecipientInvalid(problem)
