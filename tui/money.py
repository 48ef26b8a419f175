"""The money rules (DESIGN rule 9), stated once: every write that moves money goes through here.

Place order and redeem, from the command line (`order place`, `payout redeem`) and from the
TUI (the test order form, the Payout screen), are sent by `MoneyWrites`, which keeps three rules:

1. Environment. Before anything is sent, the accounts' own `sandboxMode` (Get accounts) must
   say the profile's environment; a mismatch refuses the write (`EnvironmentMismatch` names
   both). An account without `sandboxMode` takes the profile's environment (DESIGN; `Account.environment`).
2. Trace. An audit line before the write is sent (outcome `attempt`, the command that checks
   it in `detail`), then one after: the outcome, or "outcome unknown" with that command when
   the answer never came, also when a signal or a cancellation ends the wait. An attempt with
   nothing after it (kill -9) is read back as outcome unknown (`tui.local.storage.mark_unsettled`).
   Each line records the environment the accounts say, not an assumed one. No attempt line,
   no write: an audit log that cannot be written stops the write before it is sent.
3. Truth. A Place order that meets OrderAlreadyExists looks the order up (Get order) and says
   what is true: the order found is this write's own ("ours": an earlier attempt of this very
   write, whose answer was lost, reached the service, and the order has the lines sent), or
   one placed before ("earlier"); never "use a new RequestId" for an order that exists.

No Textual (wiring: tui.api and tui.local).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Literal

from tui.api.errors import AuthenticationError, ForbiddenError, RateLimitedError, RefusedError, ServiceError
from tui.api.payout_rules import RecipientInvalid
from tui.api.redact import mask_recipient, mask_weblink
from tui.core.signals import interruption
from tui.local.storage import ATTEMPT, REDEEM, AuditStore, audit_log

if TYPE_CHECKING:
    from tui.api.client import ServiceClient
    from tui.api.models import Account, Order, PlaceOrder, PlaceOrderBySku, RedeemRequest, RedeemResult
    from tui.local.config import Profile

PLACE_ORDER = "place-order"  # the command line's audit action (the TUI's form records "new-order")
Confirm = Callable[[], None]  # asks a person, after the environment check and before the attempt line; raises to stop


class EnvironmentMismatch(Exception):
    """The accounts say another environment than the profile: nothing was sent."""

    def __init__(self, profile: Profile, accounts_environment: str, what: str) -> None:
        self.profile_environment = profile.environment
        self.accounts_environment = accounts_environment
        super().__init__(
            f"environment mismatch: profile {profile.name!r} is {profile.environment}, but {what} "
            f"{'is' if what.startswith('account ') else 'are'} {accounts_environment}; nothing was sent"
        )
        self.hint = (
            f"Use a {accounts_environment} profile for these credentials (GIFTDESK_ENVIRONMENT={accounts_environment} "
            f"for the environment's profile), or the {profile.environment} credentials."
        )


class NotSent(ServiceError):
    """The accounts could not be read to check their environment: the write was not sent."""

    default_hint = "Nothing was sent: try again when the service answers."


class AuditUnavailable(Exception):
    """The attempt line could not be written: the write was not sent (no money action without its trace)."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint  # what to do: the audit store's (a local folder, or the team database)


# --- rule 1: the environment the accounts say -------------------------------------------


def accounts_environment(
    accounts: Sequence[Account], profile_environment: str, account_id: int | None = None
) -> tuple[str, str]:
    """(the environment, what says it): the account ordered on when it is listed, else the accounts.

    A list that holds the profile's environment at all agrees with it (a redeem names no account);
    an empty list, or accounts without sandboxMode, take the profile's.
    """
    chosen = next((account for account in accounts if account.id == account_id), None)
    if chosen is not None:
        return chosen.environment(profile_environment), f"account {chosen.id}"
    environments = {account.environment(profile_environment) for account in accounts}
    if not environments or profile_environment in environments:
        return profile_environment, "the accounts"
    return environments.pop(), "the accounts"


# --- rule 3: OrderAlreadyExists ---------------------------------------------------------

ORDER_EXISTS_REASON = "orderalreadyexists"


def order_already_exists(error: ServiceError) -> bool:
    """The service's OrderAlreadyExists, whatever the body's shape (a JSON string, {"message": ...}, words around it)."""
    if not isinstance(error, RefusedError):
        return False
    said = " ".join(str(getattr(error, name, "") or "") for name in ("reason", "message"))
    return ORDER_EXISTS_REASON in "".join(said.split()).casefold()


def same_lines(order: Order, sent: PlaceOrder | PlaceOrderBySku) -> bool:
    """The order found holds the lines sent (product, quantity, face value), in any order. Lines sent by SKU
    name no product id (Get order's items name no SKU): their quantities and face values are compared."""
    by_id = all(hasattr(line, "product_id") for line in sent.products)
    found = sorted(
        (item.product_id if by_id else 0, item.quantity, Decimal(item.product_face_value)) for item in order.items
    )
    wanted = sorted((getattr(line, "product_id", 0), line.quantity, Decimal(str(line.value))) for line in sent.products)
    return found == wanted


Found = Literal["placed", "ours", "earlier"]


@dataclass(frozen=True)
class Placed:
    """What a Place order ended with: placed now, or found (with the order as Get order read it, when it could)."""

    request_id: str
    found: Found = "placed"
    order: Order | None = None
    lookup_error: ServiceError | None = None  # Get order failed after OrderAlreadyExists

    @property
    def is_ours(self) -> bool:
        return self.found != "earlier"

    def describe(self) -> str:
        """One line for a person: what is true about this RequestId now (said when it was found, not placed now)."""
        status = f" (status {self.order.status})" if self.order is not None else ""
        if self.found != "earlier":
            return (
                f"placed: an earlier attempt reached the service and its answer was lost; the retry found order "
                f"{self.request_id}{status}. No second order was made."
            )
        unread = "; it could not be read just now" if self.order is None else ""
        return (
            f"an order with RequestId {self.request_id} exists already{status}, placed before this{unread}: "
            "nothing new was placed. Do not place it again."
        )


def order_check_command(request_id: str) -> str:
    return f"giftdesk order show {request_id}"


def payout_check_command(token: str) -> str:
    # The token is a secret (DESIGN rule 6): the command names it masked, to be pasted in full.
    return f"giftdesk payout status URL  (URL: the weblink {mask_weblink(token)})"


REDEEM_UNKNOWN_HINT = "The payout may or may not have been made: check its status before anything else: {command}"
PLACE_UNKNOWN_HINT = (
    "The order may or may not have been placed: check with `{command}`. Placing it again with the same "
    "RequestId is safe (it cannot make a second order); a new RequestId is not."
)


REFUSALS = (RefusedError, AuthenticationError, ForbiddenError)  # the service answered no: nothing was done


def _in_doubt(error: ServiceError) -> bool:
    """Not a refusal: the write may have reached the service (connection lost, timed out, 5xx, 429 after retries)."""
    return not isinstance(error, REFUSALS)


# --- rule 2: the trace -------------------------------------------------------------------


@dataclass
class _Trace:
    outcome: str = ""
    detail: str | None = None


def _ending(error: BaseException, check: str) -> str:
    if isinstance(error, AuthenticationError):
        return "refused: authentication failed (401)"
    if isinstance(error, REFUSALS):
        return f"refused: {error.message}"
    if isinstance(error, RecipientInvalid):
        return f"refused before sending: {error}"
    cause = interruption(error) or (
        str(error) if isinstance(error, ServiceError) else f"unexpected error ({type(error).__name__})"
    )
    return f"outcome unknown: {cause}; check: {check}"


class MoneyWrites:
    """The writes of one profile's client, each checked, traced and told truly (the module's three rules)."""

    def __init__(
        self,
        client: ServiceClient,
        profile: Profile,
        *,
        audit: AuditStore | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self.profile = profile
        self.audit = audit or audit_log()  # the team's in team mode, else this machine's file
        self.warn = warn  # told when an outcome line could not be written (the write itself happened)

    async def place_order(
        self,
        order: PlaceOrder | PlaceOrderBySku,
        *,
        action: str = PLACE_ORDER,
        sent_before: bool = False,
        confirm: Confirm | None = None,
        sending: Confirm | None = None,
    ) -> Placed:
        """Place `order` once. `sent_before`: this same write (RequestId) was sent earlier and its outcome is unknown.
        `confirm` runs once the environment is checked, before the attempt line (it may raise to stop);
        `sending` once the attempt line is written, just before the order goes out. An order by SKU (the v2.1
        catalog, for a product without an id) keeps the same rules; its audit lines name the SKU."""
        subject = order.request_id
        detail = ", ".join(
            f"account {order.account_id}, {line.names}, value {Decimal(str(line.value)).normalize():f} x {line.quantity}"
            for line in order.products
        )
        environment = await self.checked_environment(action, subject, order.account_id, detail=detail)
        if confirm is not None:
            confirm()
        check = order_check_command(subject)
        with self._traced(action, subject, environment, check, detail=detail) as trace:
            if sending is not None:
                sending()
            try:
                echoed = await self._sent(order)
            except ServiceError as error:
                if not order_already_exists(error):
                    if _in_doubt(error) and not isinstance(
                        error, RateLimitedError
                    ):  # the client's pacing hint says it already
                        error.hint = PLACE_UNKNOWN_HINT.format(command=check)
                    raise
                placed = await self._found(
                    order, ours=sent_before or bool(getattr(error, "after_unknown_attempt", False))
                )
                trace.outcome = {
                    "ours": "placed (found after a lost answer)",
                    "earlier": "already exists: placed before",
                }[placed.found]
                if placed.order is not None:
                    trace.outcome += f"; status {placed.order.status}"
                return placed
            trace.outcome = "placed"
            return Placed(echoed)

    async def _sent(self, order: PlaceOrder | PlaceOrderBySku) -> str:
        """The RequestId the service echoes, by product id (the default) or by SKU."""
        from tui.api.models import PlaceOrderBySku

        if isinstance(order, PlaceOrderBySku):
            return (await self.client.place_order_by_sku(order)).request_id
        return await self.client.place_order(order)

    async def _found(self, order: PlaceOrder | PlaceOrderBySku, *, ours: bool) -> Placed:
        """OrderAlreadyExists: Get order says what is true."""
        try:
            found = await self.client.get_order(order.request_id)
        except ServiceError as error:
            return Placed(order.request_id, "ours" if ours else "earlier", None, error)
        return Placed(order.request_id, "ours" if ours and same_lines(found, order) else "earlier", found)

    async def redeem(
        self,
        token: str,
        request: RedeemRequest,
        *,
        seen_before: Callable[[str], bool] | None = None,
        confirm: Confirm | None = None,
    ) -> RedeemResult:
        """Redeem the payout of weblink `token`; `seen_before(transactionId)` marks a repeat in the trace;
        `confirm` as for place_order."""
        subject = mask_weblink(token)
        fields = {"wallet": request.wallet, "recipient": mask_recipient(request.recipient)}
        environment = await self.checked_environment(REDEEM, subject, None, **fields)
        if confirm is not None:
            confirm()
        check = payout_check_command(token)
        with self._traced(REDEEM, subject, environment, check, **fields) as trace:
            try:
                result = await self.client.redeem_payout(token, request)
            except ServiceError as error:
                if _in_doubt(error):  # a 5xx, a lost answer: the payout may exist
                    error.hint = REDEEM_UNKNOWN_HINT.format(command=check)
                raise
            repeat = seen_before is not None and seen_before(result.transaction_id)
            trace.outcome = ("processing" if result.is_processing else "completed") + (
                " (existing payout)" if repeat else ""
            )
            trace.detail = f"HTTP {result.http_status}; transactionId {result.transaction_id}; payoutBatchId {result.payout_batch_id}"
            return result

    async def checked_environment(self, action: str, subject: str, account_id: int | None, **fields: str | None) -> str:
        """The environment the accounts say; a mismatch with the profile is recorded and refused (nothing sent)."""
        try:
            accounts = await self.client.accounts()
        except ServiceError as error:
            if not _in_doubt(error):  # refused (401, 403): said as such
                raise
            raise NotSent(
                f"the accounts could not be read to check their environment ({error.message}): nothing was sent"
            ) from None
        environment, what = accounts_environment(accounts, self.profile.environment, account_id)
        if environment != self.profile.environment:
            mismatch = EnvironmentMismatch(self.profile, environment, what)
            self._record(action, subject, environment, f"refused before sending: {mismatch}", fields, must=False)
            raise mismatch
        return environment

    @contextmanager
    def _traced(
        self, action: str, subject: str, environment: str, check: str, **fields: str | None
    ) -> Iterator[_Trace]:
        self._record(
            action,
            subject,
            environment,
            ATTEMPT,
            {**fields, "detail": _joined(fields.get("detail"), f"check: {check}")},
            must=True,
        )
        trace = _Trace()
        try:
            yield trace
        except BaseException as error:
            self._record(action, subject, environment, _ending(error, check), fields, must=False)
            raise
        self._record(
            action,
            subject,
            environment,
            trace.outcome,
            {**fields, "detail": trace.detail or fields.get("detail")},
            must=False,
        )

    def _record(
        self, action: str, subject: str, environment: str, outcome: str, fields: dict[str, str | None], *, must: bool
    ) -> None:
        try:
            self.audit.record(
                profile=self.profile.name,
                environment=environment,
                action=action,
                subject=subject,
                outcome=outcome,
                **fields,
            )
        except Exception as error:  # any store's failure (a full disk, the team database away): said, never a traceback
            reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
            if must:
                raise AuditUnavailable(
                    f"the audit log cannot be written ({reason}): nothing was sent", self.audit.unwritable_hint
                ) from None
            if self.warn is not None:  # the write itself happened; a full disk must not hide that
                self.warn(f"the audit log could not be written ({reason})")


def _joined(*parts: str | None) -> str:
    return "; ".join(part for part in parts if part)
