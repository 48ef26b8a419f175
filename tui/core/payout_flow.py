"""The payout screen's logic without Textual: form rules, the submit state machine,
the poll schedule, and the words shown for each outcome.

Money leaves through this flow, so its rules live here where a plain unit
test can pin them: the form offers only what the wallet takes, a redeem is
sent only from a valid form, and after a failure whose outcome is unknown the
only way forward is a status check, then a retry of the very same request.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from tui.api.models import RedeemRequest
from tui.api.payout_rules import PAYPAL, VENMO, redeem_problem
from tui.api.redact import mask_recipient, mask_weblink
from tui.api.statuses import is_payout_final
from tui.api.weblink import WeblinkError, weblink_token

WALLETS = (PAYPAL, VENMO)

# Recipient kinds: (form key, label, RedeemRequest field).
EMAIL, PHONE, HANDLE = "email", "phone", "handle"
KIND_LABELS = {EMAIL: "Email", PHONE: "Phone", HANDLE: "Handle"}
KIND_FIELDS = {EMAIL: "recipient_email", PHONE: "recipient_phone", HANDLE: "recipient_handle"}
KIND_PLACEHOLDERS = {
    EMAIL: "name@example.com",
    PHONE: "+15551234567 (7 to 15 digits)",
    HANDLE: "@handle (5 to 30 letters, digits, _ or -)",
}

# SPEC redeem rules 2 and 3. With no wallet chosen yet, email is the one kind both take.
KINDS_BY_WALLET: dict[str | None, tuple[str, ...]] = {PAYPAL: (EMAIL,), VENMO: (EMAIL, PHONE, HANDLE), None: (EMAIL,)}

WEBLINK_MISSING = "Paste the payout card's code URL or its weblink token."

# --- the form ----------------------------------------------------------------


@dataclass(frozen=True)
class PayoutForm:
    """What the person entered; `value` is the recipient as typed."""

    weblink: str = ""
    wallet: str | None = None
    kind: str = EMAIL
    value: str = ""

    def token(self) -> str | None:
        """The wire token, or None when nothing usable was pasted."""
        try:
            return weblink_token(self.weblink) if self.weblink.strip() else None
        except WeblinkError:
            return None

    def request(self) -> RedeemRequest:
        """The redeem body as the form stands. An empty recipient is not given at all."""
        value = self.value.strip()
        recipient = {KIND_FIELDS[self.kind]: value} if value else {}
        return RedeemRequest(self.wallet or "", **recipient)

    def weblink_problem(self) -> str | None:
        return None if self.token() else WEBLINK_MISSING

    def recipient_problem(self) -> str | None:
        """The spec's text for the first rule the body breaks (tui.api.payout_rules), or None."""
        return redeem_problem(self.request())

    @property
    def is_valid(self) -> bool:
        return self.weblink_problem() is None and self.recipient_problem() is None


# --- one redeem attempt and the flow around it ---------------------------------


@dataclass(frozen=True)
class Attempt:
    """A redeem as sent: retried only as it is (same weblink, wallet and recipient)."""

    token: str
    request: RedeemRequest

    @property
    def recipient(self) -> str:
        return self.request.recipient or ""

    @property
    def masked_weblink(self) -> str:
        return mask_weblink(self.token)

    @property
    def masked_recipient(self) -> str:
        return mask_recipient(self.recipient)

    def confirmation_phrase(self) -> tuple[str, str]:
        """What production asks to be typed, and how it is asked for (the phrase itself is not shown).

        The last four characters of what names the person: the email's name before the @ (never
        ".com"), the handle without its @, the phone's last four digits. Shorter ones whole.
        """
        request = self.request
        if request.recipient_email:
            name = request.recipient_email.rpartition("@")[0] or request.recipient_email
            return _last_four(
                name, "characters of the recipient's name before the @", "the recipient's name before the @"
            )
        if request.recipient_phone:
            digits = "".join(c for c in request.recipient_phone if c.isdigit())
            return _last_four(digits, "digits of the recipient's phone", "the recipient's phone digits")
        handle = (request.recipient_handle or "").lstrip("@")
        return _last_four(handle, "characters of the recipient's handle", "the recipient's handle without @")


def _last_four(text: str, of_what: str, whole: str) -> tuple[str, str]:
    return (text[-4:], f"the last four {of_what}") if len(text) > 4 else (text, whole)


# The payout cards' face values, from the orders shown (Order screen), by weblink token: a pasted
# weblink says nothing of its card's value, so the redeem confirmation shows it only when known.
FACE_VALUES = "payout-face-values"  # key in Session.cache


def face_values(cache: dict[str, Any]) -> dict[str, str]:
    """The session's token -> "25.00 USD" table, created on first use."""
    table: dict[str, str] = cache.setdefault(FACE_VALUES, {})
    return table


class Phase(Enum):
    EDITING = "editing"  # the form is open; a valid form may be submitted
    SUBMITTING = "submitting"  # a redeem is in flight
    CHECKING = "checking"  # a submit failed on the way: asking the status before anything else
    RETRY_OFFERED = "retry-offered"  # no payout recorded after that failure: retry the same attempt
    UNKNOWN = "unknown"  # the status could not be checked either: check again, never re-submit


# Phases in which the form cannot change: the attempt in flight or in doubt is the only one allowed.
LOCKED = frozenset({Phase.SUBMITTING, Phase.CHECKING, Phase.RETRY_OFFERED, Phase.UNKNOWN})


@dataclass
class RedeemFlow:
    """Which step the screen is at, and the attempt a retry must repeat."""

    phase: Phase = Phase.EDITING
    attempt: Attempt | None = None
    known_transactions: set[str] = field(default_factory=set)

    @property
    def may_submit(self) -> bool:
        return self.phase in (Phase.EDITING, Phase.RETRY_OFFERED)

    @property
    def form_locked(self) -> bool:
        return self.phase in LOCKED

    def can_submit(self, form: PayoutForm) -> bool:
        if self.phase is Phase.RETRY_OFFERED:
            return True  # the locked attempt, not the form
        return self.phase is Phase.EDITING and form.is_valid

    def next_attempt(self, form: PayoutForm) -> Attempt:
        """The attempt the Redeem key sends now: the doubtful one again, or the form's."""
        if self.phase is Phase.RETRY_OFFERED and self.attempt is not None:
            return self.attempt
        token = form.token()
        assert token is not None and form.is_valid, "submit only from a valid form"
        return Attempt(token, form.request())

    def submitting(self, attempt: Attempt) -> None:
        if not self.may_submit:
            raise RuntimeError(f"cannot submit while {self.phase.value}")
        self.phase = Phase.SUBMITTING
        self.attempt = attempt

    def answered(self, transaction_id: str | None = None) -> bool:
        """The service answered (payout or refusal): the form is open again.

        Returns True when the transaction was seen before: a repeat that made no new payout.
        """
        self.phase = Phase.EDITING
        if transaction_id is None:
            return False
        repeat = transaction_id in self.known_transactions
        self.known_transactions.add(transaction_id)
        return repeat

    def lost(self) -> None:
        """The submit's outcome is unknown (network, 429 after retries, 5xx)."""
        self.phase = Phase.CHECKING

    def checked(self, payout_exists: bool | None) -> None:
        """Result of the status check after a lost submit: True, False, or None (could not check)."""
        if payout_exists is None:
            self.phase = Phase.UNKNOWN
        elif payout_exists:
            self.phase = Phase.EDITING
        else:
            self.phase = Phase.RETRY_OFFERED

    def seen(self, transaction_id: str | None) -> None:
        if transaction_id:
            self.known_transactions.add(transaction_id)

    def reset(self) -> None:
        """A different weblink: nothing of the previous one applies."""
        if self.form_locked:
            raise RuntimeError("the attempt in doubt must be settled first")
        self.phase = Phase.EDITING
        self.attempt = None
        self.known_transactions.clear()


# --- words -----------------------------------------------------------------------


def status_advice(status: str | None, wallet: str | None = None) -> str:
    """What a person does next for a payout status (beyond its one-line meaning)."""
    key = (status or "").strip().lower()
    wallet_name = wallet or "the wallet"
    if key == "unclaimed":
        return (
            f"Ask the recipient to open a {wallet_name} account with this recipient within about 30 days, "
            "or the funds are Returned. Re-check later with s."
        )
    if key == "pending":
        return "Still processing at the wallet provider; giftdesk keeps checking."
    if key == "failed":
        return "No funds moved. Quote the transaction and batch ids to the wallet provider for the reason."
    if key in ("returned", "reversed"):
        return "The funds are back with the sender; quote the ids to the wallet provider if the customer asks."
    if key == "completed":
        return "Funds delivered. Quote the ids to the wallet provider for any question."
    if not is_payout_final(status):
        return "A status giftdesk does not know: treated as still moving; giftdesk keeps checking."
    return ""


# --- the clock (frozen in snapshot tests) ---------------------------------------------


class Clock:
    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> str:
        return datetime.now().strftime("%H:%M:%S")


def format_elapsed(seconds: float) -> str:
    seconds = int(max(0.0, seconds))
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}:{seconds:02d}"
