"""The one table of truth for what SPEC.md fixes (DESIGN.md, rule 2).

Tests of the client, of the local payout validation and of the simulator all
read these cases. The client and the simulator implement the rules separately;
this table is what they must both agree with. It is plain data: it imports
neither the client nor the simulator.

Choices where the spec is silent are marked "choice" and listed in
docs/decisions.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PAYPAL = "PayPal"  # <WALLET_A>
VENMO = "Venmo"  # <WALLET_B>

# --- Redeem payout errors (SPEC "Errors"): status, exact body text ----------

BODY_REQUIRED = "Request body is required."
WALLET_REQUIRED = "A valid wallet (PayPal or Venmo) is required."
EXACTLY_ONE_RECIPIENT = "Provide exactly one of recipient email, phone, or handle."
PAYPAL_EMAIL_ONLY = "PayPal payouts support only a recipient email."
INVALID_EMAIL = "Invalid recipient email address."
INVALID_PHONE = "Invalid recipient phone number."
INVALID_HANDLE = "Invalid recipient user handle."
WEBLINK_DISABLED = "Weblink is disabled"
WEBLINK_EXPIRED = "Payout weblink expired"
REDEEM_FAILED = "Failed to redeem weblink"
RECIPIENT_MISMATCH = "Recipient ID does not match"

REDEEM_ERRORS: list[tuple[int, str | None, str]] = [
    (400, BODY_REQUIRED, "body missing"),
    (400, WALLET_REQUIRED, "wallet missing or unsupported"),
    (400, EXACTLY_ONE_RECIPIENT, "zero or several recipient fields"),
    (400, PAYPAL_EMAIL_ONLY, "PayPal with phone or handle"),
    (400, INVALID_EMAIL, "malformed email"),
    (400, INVALID_PHONE, "malformed phone"),
    (400, INVALID_HANDLE, "malformed handle"),
    (400, WEBLINK_DISABLED, "weblink disabled"),
    (400, WEBLINK_EXPIRED, "weblink expired"),
    (400, REDEEM_FAILED, "not found, other client's, rejected, or failed card"),
    (400, RECIPIENT_MISMATCH, "different recipient than the first attempt"),
    (401, None, "missing or invalid Authorization"),
    (429, None, "concurrent request for the same weblink"),
]


# --- Local payout validation: fixed precedence ------------------------------
# Precedence: body missing, wallet, exactly one recipient, PayPal email only,
# then the format of the one recipient given.
# choice: a recipient field counts as present when it is in the body and not
# null; an empty string is present (and then malformed).


@dataclass(frozen=True)
class PayoutCase:
    name: str
    body: dict[str, Any] | None  # None: no body at all
    error: str | None  # None: valid


PAYOUT_CASES: list[PayoutCase] = [
    PayoutCase("no body", None, BODY_REQUIRED),
    PayoutCase("empty body", {}, WALLET_REQUIRED),
    PayoutCase("wallet missing", {"recipientEmail": "ann@example.com"}, WALLET_REQUIRED),
    PayoutCase("wallet lower case", {"wallet": "paypal", "recipientEmail": "ann@example.com"}, WALLET_REQUIRED),
    PayoutCase("wallet unknown", {"wallet": "Zelle", "recipientEmail": "ann@example.com"}, WALLET_REQUIRED),
    PayoutCase("wallet null", {"wallet": None, "recipientEmail": "ann@example.com"}, WALLET_REQUIRED),
    PayoutCase("wallet before recipients", {"wallet": "Cash"}, WALLET_REQUIRED),
    PayoutCase("paypal no recipient", {"wallet": PAYPAL}, EXACTLY_ONE_RECIPIENT),
    PayoutCase("venmo no recipient", {"wallet": VENMO}, EXACTLY_ONE_RECIPIENT),
    PayoutCase(
        "null recipients are absent",
        {"wallet": VENMO, "recipientEmail": None, "recipientPhone": None},
        EXACTLY_ONE_RECIPIENT,
    ),
    PayoutCase(
        "venmo two recipients",
        {"wallet": VENMO, "recipientEmail": "ann@example.com", "recipientPhone": "+15551234567"},
        EXACTLY_ONE_RECIPIENT,
    ),
    PayoutCase(
        "venmo three recipients",
        {
            "wallet": VENMO,
            "recipientEmail": "ann@example.com",
            "recipientPhone": "+15551234567",
            "recipientHandle": "@ann_smith",
        },
        EXACTLY_ONE_RECIPIENT,
    ),
    PayoutCase(
        "paypal two recipients: count before wallet kind",
        {"wallet": PAYPAL, "recipientEmail": "ann@example.com", "recipientHandle": "@ann_smith"},
        EXACTLY_ONE_RECIPIENT,
    ),
    PayoutCase("paypal phone", {"wallet": PAYPAL, "recipientPhone": "+15551234567"}, PAYPAL_EMAIL_ONLY),
    PayoutCase("paypal handle", {"wallet": PAYPAL, "recipientHandle": "@ann_smith"}, PAYPAL_EMAIL_ONLY),
    PayoutCase(
        "paypal malformed phone: kind before format", {"wallet": PAYPAL, "recipientPhone": "12"}, PAYPAL_EMAIL_ONLY
    ),
    PayoutCase("paypal email", {"wallet": PAYPAL, "recipientEmail": "ann@example.com"}, None),
    PayoutCase(
        "paypal email plus tag", {"wallet": PAYPAL, "recipientEmail": "ann.smith+gift@mail.example.co.uk"}, None
    ),
    PayoutCase("paypal email no at", {"wallet": PAYPAL, "recipientEmail": "ann.example.com"}, INVALID_EMAIL),
    PayoutCase("paypal email no domain dot", {"wallet": PAYPAL, "recipientEmail": "ann@example"}, INVALID_EMAIL),
    PayoutCase("paypal email with space", {"wallet": PAYPAL, "recipientEmail": "ann smith@example.com"}, INVALID_EMAIL),
    PayoutCase("paypal email two ats", {"wallet": PAYPAL, "recipientEmail": "ann@@example.com"}, INVALID_EMAIL),
    PayoutCase("paypal email empty string", {"wallet": PAYPAL, "recipientEmail": ""}, INVALID_EMAIL),
    PayoutCase("venmo email", {"wallet": VENMO, "recipientEmail": "ann@example.com"}, None),
    PayoutCase("venmo email malformed", {"wallet": VENMO, "recipientEmail": "@example.com"}, INVALID_EMAIL),
    PayoutCase("venmo phone with plus", {"wallet": VENMO, "recipientPhone": "+15551234567"}, None),
    PayoutCase("venmo phone without plus", {"wallet": VENMO, "recipientPhone": "5551234567"}, None),
    PayoutCase("venmo phone 7 digits", {"wallet": VENMO, "recipientPhone": "1234567"}, None),
    PayoutCase("venmo phone 15 digits", {"wallet": VENMO, "recipientPhone": "+123456789012345"}, None),
    PayoutCase("venmo phone 6 digits", {"wallet": VENMO, "recipientPhone": "+123456"}, INVALID_PHONE),
    PayoutCase("venmo phone 16 digits", {"wallet": VENMO, "recipientPhone": "1234567890123456"}, INVALID_PHONE),
    PayoutCase("venmo phone with spaces", {"wallet": VENMO, "recipientPhone": "+1 555 123 4567"}, INVALID_PHONE),
    PayoutCase("venmo phone with dashes", {"wallet": VENMO, "recipientPhone": "555-123-4567"}, INVALID_PHONE),
    PayoutCase("venmo phone two plus", {"wallet": VENMO, "recipientPhone": "++15551234567"}, INVALID_PHONE),
    PayoutCase("venmo phone letters", {"wallet": VENMO, "recipientPhone": "+1555CALLME"}, INVALID_PHONE),
    PayoutCase("venmo handle with at", {"wallet": VENMO, "recipientHandle": "@ann_smith"}, None),
    PayoutCase("venmo handle without at", {"wallet": VENMO, "recipientHandle": "ann-smith"}, None),
    PayoutCase("venmo handle 5 chars", {"wallet": VENMO, "recipientHandle": "@abcde"}, None),
    PayoutCase("venmo handle 30 chars", {"wallet": VENMO, "recipientHandle": "@" + "a" * 30}, None),
    PayoutCase("venmo handle 4 chars", {"wallet": VENMO, "recipientHandle": "@abcd"}, INVALID_HANDLE),
    PayoutCase("venmo handle 31 chars", {"wallet": VENMO, "recipientHandle": "a" * 31}, INVALID_HANDLE),
    PayoutCase("venmo handle dot", {"wallet": VENMO, "recipientHandle": "@ann.smith"}, INVALID_HANDLE),
    PayoutCase("venmo handle two ats", {"wallet": VENMO, "recipientHandle": "@@annsmith"}, INVALID_HANDLE),
    PayoutCase("venmo handle space", {"wallet": VENMO, "recipientHandle": "@ann smith"}, INVALID_HANDLE),
]


# --- Statuses and finality (SPEC "States and transitions", DESIGN facts) ----
# Statuses compare case-insensitively (DESIGN: callbacks may say "succeeded").
# An unknown status is kept as it came and is not final (DESIGN rule 5).

ORDER_STATUS_FINAL: dict[str, bool] = {
    "Created": False,
    "Processing": False,
    "Pending": False,
    "Succeeded": True,
    "Failed": True,
    "PartialFailed": True,
}

# Card: final and releasable. Only Sold releases its code.
CARD_STATUS_FINAL: dict[str, bool] = {
    "Created": False,
    "Processing": False,
    "Paused": False,
    "Sold": True,
    "Failed": True,
}
CARD_CODE_RELEASABLE = {"Sold"}

# choice: "final" for a payout means "no longer processing" (isProcessing
# false): every normalized status but Pending. Unclaimed may still become
# Returned (or Completed), and Completed may still be Reversed; a watcher
# stops at them and a person re-checks later.
PAYOUT_STATUS_FINAL: dict[str, bool] = {
    "Pending": False,
    "Completed": True,
    "Unclaimed": True,
    "Failed": True,
    "Returned": True,
    "Reversed": True,
}

UNKNOWN_STATUSES = ["Refunded", "OnHold", ""]


# --- Weblink tokens (SPEC "POST .../payout/redeem/{weblink}") ---------------
# The token is the final path segment of the card code, used exactly as
# returned: "%3D" stays "%3D", never "=" and never "%253D".
# choice: surrounding whitespace, a trailing slash, a query and a fragment
# are not part of the token; a padding "=" pasted by a person is written
# back as "%3D" (the only form the service matches).


@dataclass(frozen=True)
class WeblinkCase:
    given: str
    token: str
    wire_path_suffix: str = field(default="")  # raw path tail on the wire


WEBLINK_CASES: list[WeblinkCase] = [
    WeblinkCase("https://pay.example.test/payout/abcDEF123%3D", "abcDEF123%3D"),
    WeblinkCase("https://pay.example.test/payout/abcDEF12%3D%3D", "abcDEF12%3D%3D"),
    WeblinkCase("https://pay.example.test/a/b/c/tok-en_9%3D", "tok-en_9%3D"),
    WeblinkCase("https://pay.example.test/payout/abcDEF123%3D/", "abcDEF123%3D"),
    WeblinkCase("https://pay.example.test/payout/abcDEF123%3D?utm=x", "abcDEF123%3D"),
    WeblinkCase("https://pay.example.test/payout/abcDEF123%3D#top", "abcDEF123%3D"),
    WeblinkCase("  https://pay.example.test/payout/abcDEF123%3D\n", "abcDEF123%3D"),
    WeblinkCase("abcDEF123%3D", "abcDEF123%3D"),
    WeblinkCase("abcDEF12%3D%3D", "abcDEF12%3D%3D"),
    WeblinkCase("abcDEF12==", "abcDEF12%3D%3D"),
    WeblinkCase("noPadding42", "noPadding42"),
]

# DESIGN.md "What the real provider sends and enforces": the 400 reason codes, each said to the user in words.
REASON_CODES = (
    "OrderAlreadyExists",
    "OrderNotFound",
    "WrongAccount",
    "InsufficientBalance",
    "InvalidProductIds",
    "InvalidDenomination",
    "ProductIsOutOfStock",
    "CardsLimitExceeded",
    "InvalidProduct",
    "NoProducts",
    "ClientCatalogNotExist",
    "ClientPriceInvalid",
    "UserNotEnabled",
)
# Of those, the ones the simulator has no state for (its products are never deleted or inactive; the client's
# set-up at the provider is always whole): said in words by the client all the same.
REASON_CODES_NOT_SIMULATED = ("InvalidProduct", "ClientCatalogNotExist", "ClientPriceInvalid", "UserNotEnabled")
