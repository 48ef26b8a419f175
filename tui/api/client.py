"""ServiceClient: one async method per endpoint of SPEC.md, with retries.

Retry rules (issue 2):
- reads (and setting notifications, which only overwrites) retry on
  connection failures and timeouts, 5xx and 429;
- redeem retries on 429 and connection failures only: repeating it for the
  same weblink creates no second payout (SPEC redeem rule 6); a 400 is final;
- place order retries like a read, always with the caller's RequestId, so a
  repeat can never create a second order.
Waits grow exponentially with jitter, are capped, and honour Retry-After.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from enum import Flag, auto
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import quote

import httpx

from tui.api import bounds
from tui.api import limits as endpoints
from tui.api.bounds import ACCEPT_ENCODING, AnswerTooLarge, Bounds, DeadlineExceeded, UnreadableEncoding
from tui.api.errors import (
    AuthenticationError,
    ForbiddenError,
    MalformedResponseError,
    OrderNotFoundError,
    RateLimitedError,
    RefusedError,
    ServerError,
    ServiceError,
    UnreachableError,
)
from tui.api.limiter import Limiter, Turn
from tui.api.limits import Limit, wait_words
from tui.api.payout_rules import validate_redeem
from tui.api.redact import Secret, mask_text, register_secret
from tui.api.request_ids import check_request_id
from tui.api.transport import BODY_CAP, DEADLINE, BoundedAsyncTransport, read_answer
from tui.api.weblink import weblink_token
from tui.api.wire_check import CATALOG_PAGE, ORDER

if TYPE_CHECKING:  # the models (and pydantic) load when a method first parses an answer (issue 16)
    from pydantic import BaseModel, ValidationError

    from tui.api.models import (
        Account,
        Brand,
        BrandsPage,
        BrandsQuery,
        CatalogCountry,
        CatalogPage,
        CatalogQuery,
        Category,
        NotificationConfig,
        Order,
        OrderHistoryLine,
        PayoutStatus,
        PlaceOrder,
        PlaceOrderBySku,
        RedeemRequest,
        RedeemResult,
        SkuCheckout,
        Stock,
    )
    from tui.api.money_models import ExchangeRates, TransactionsReport

log = logging.getLogger("giftdesk.api")

ACCOUNTS_PATH = "/api/integration/v1.0/accounts"
CATALOG_V2_PATH = "/api/integration/v2.0/catalog"
CATALOG_V1_PATH = "/api/integration/v1.0/catalog"
CHECKOUT_PATH = "/api/integration/v1.0/orders/checkout"
ORDER_PATH = "/api/integration/v1.0/orders/{request_id}"
ORDER_HISTORY_PATH = "/api/integration/v1.0/orders"
NOTIFICATION_PATH = "/api/Integration/v1/notification"
REDEEM_PATH = "/api/Integration/v2/payout/redeem/{token}"
PAYOUT_STATUS_PATH = "/api/Integration/v2/payout/status/{token}"
TRANSACTIONS_PATH = "/api/integration/v1.0/transactions"
EXCHANGE_RATES_PATH = "/api/integration/v1.0/exchange-rates"
BRANDS_PATH = "/api/Integration/v2.0/brands"  # the v2.1 catalog's paths, spelled as DESIGN.md has them
STOCK_PATH = "/api/integration/v2.0/getstock/{sku}/{face_value}"
CATEGORIES_PATH = "/api/integration/v2.0/categories"
COUNTRIES_PATH = "/api/integration/v2.0/catalog-countries"
SKU_CHECKOUT_PATH = "/api/integration/v2.0/orders/checkout"

DEFAULT_TIMEOUT = httpx.Timeout(10.0, connect=5.0)
CATALOG_V1_GONE = "catalog version 1 is gone: the provider has retired it"
# A turn further away than this is not waited for: the request fails saying when it will be possible.
DEFAULT_MAX_WAIT = 60.0
VISIBLE_WAIT = 1.0  # a wait for the limiter longer than this is told (on_wait)


class WireDays(Protocol):
    """A day range as the history endpoints take it: `{"startDate": ..., "endDate": ...}`."""

    def to_wire(self) -> dict[str, str]: ...


OnRetry = Callable[[int, float, str], None]
OnWait = Callable[[str, float, "Limit | None"], None]  # endpoint, seconds to wait, its limit
Sleep = Callable[[float], Awaitable[None]]
M = TypeVar("M", bound="BaseModel")


def tls_verify(base_url: str) -> bool:
    """Verify TLS for an https service, always. A plain-http base URL (the local
    simulator) never uses TLS, so building the CA bundle for it (40-60 ms a start)
    is skipped; redirects are not followed, so no request can move to https."""
    return not base_url.lower().startswith("http://")


CATALOG_PATHS = (CATALOG_V2_PATH, CATALOG_V1_PATH)
DEADLINE_HINT = (
    "The service answers too slowly or not at all. Reads are safe to repeat; for a write, look it up "
    "(order show / payout status) first. Deadlines: GIFTDESK_REQUEST_DEADLINE, GIFTDESK_CATALOG_DEADLINE, "
    "GIFTDESK_COMMAND_DEADLINE (seconds)."
)

OUTCOME_UNKNOWN_HINT = (
    "The request may have been carried out: look it up (order show / payout status) before sending it again."
)
READ_TIMED_OUT_HINT = "The service did not answer in time; a read changes nothing: try again, or later."
# Place order's pacing (DESIGN: 6 orders of a product per minute) may ask for up to a minute's wait: waited for, within this bound.
PLACE_MAX_RETRY_AFTER = 65.0
PLACE_RATE_LIMITED_HINT = (
    "The provider's Place order pacing (500 ms apart, at most 6 orders of a product a minute) refused the "
    "last attempt. Wait a minute, then place it again with the same RequestId (never a new one)."
)


async def event_loop_sleep(seconds: float) -> None:
    """asyncio.sleep, imported on first use: a command driven without a loop never loads asyncio."""
    import asyncio

    await asyncio.sleep(seconds)


class RetryOn(Flag):
    CONNECT = auto()  # the request never left: connection refused, connect timeout
    IN_FLIGHT = auto()  # sent, then the connection broke or timed out: the outcome is unknown
    RATE_LIMIT = auto()  # 429
    SERVER = auto()  # 5xx
    READ = CONNECT | IN_FLIGHT | RATE_LIMIT | SERVER
    # A redeem whose outcome is unknown is never re-sent blindly: the caller
    # asks for the payout's status first (issue 7), then decides.
    REDEEM = CONNECT | RATE_LIMIT


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4  # tries in all, the first included
    base_delay: float = 0.5
    max_delay: float = 8.0
    jitter: float = 0.5  # a wait is shortened by up to this fraction, at random
    max_retry_after: float = 30.0  # a longer Retry-After is not waited for

    def delay(self, attempt: int, retry_after: float | None, rand: Callable[[], float]) -> float | None:
        """Seconds to wait after failed attempt `attempt` (1-based), or None to give up now."""
        if attempt >= self.attempts:
            return None
        if retry_after is not None:
            return retry_after if retry_after <= self.max_retry_after else None
        backoff = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return backoff * (1 - self.jitter * rand())


NO_RETRY = RetryPolicy(attempts=1)


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After as seconds (delta-seconds or an HTTP date), or None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # rarely needed: kept off the startup path

    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


class ServiceClient:
    """Async client of the service; use as `async with ServiceClient(...) as client:`."""

    def __init__(
        self,
        base_url: str,
        client_id: str,
        client_secret: str | Secret,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy = RetryPolicy(),
        transport: httpx.AsyncBaseTransport | None = None,
        on_retry: OnRetry | None = None,
        sleep: Sleep = event_loop_sleep,
        rand: Callable[[], float] = random.random,
        limits: Bounds | None = None,
        ends_by: float | None = None,
        limiter: Limiter | None = None,
        on_wait: OnWait | None = None,
        max_wait: float = DEFAULT_MAX_WAIT,
        environment: str | None = None,
    ) -> None:
        """`limits`: deadlines, size and depth caps (DESIGN rule 10); `ends_by`: the `time.monotonic()`
        instant the whole command must end by (no request or retry goes past it).
        `limiter`: the provider's limits (tui.api.limiter); without one, DESIGN's table kept in this process.
        `on_wait` hears of every wait for a turn longer than VISIBLE_WAIT; a turn more than `max_wait`
        seconds away raises RateLimitedError saying when."""
        secret = client_secret if isinstance(client_secret, str) else client_secret.get_secret_value()
        register_secret(secret)
        self.base_url = base_url.rstrip("/")
        self.client_id = client_id
        self.environment = environment  # "sandbox" / "production": named in "no order with this RequestId in ..."
        self.retry = retry
        self.on_retry = on_retry
        self._sleep = sleep
        self._rand = rand
        self.limits, self.ends_by = limits or Bounds(), ends_by
        self._timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self.limiter = limiter or Limiter()
        self.on_wait = on_wait
        self.max_wait = max_wait
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            auth=httpx.BasicAuth(client_id, secret),
            headers={"Accept": "application/json", "Accept-Encoding": ACCEPT_ENCODING, "User-Agent": "giftdesk"},
            timeout=timeout,
            transport=transport or BoundedAsyncTransport(verify=tls_verify(self.base_url)),
            verify=tls_verify(self.base_url),
        )

    def __repr__(self) -> str:
        return f"ServiceClient(base_url={self.base_url!r}, client_id={self.client_id!r})"

    async def __aenter__(self) -> ServiceClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- endpoints -----------------------------------------------------------

    async def accounts(self) -> list[Account]:
        from tui.api.models import Account

        data = await self._get_json(ACCOUNTS_PATH, endpoints.ACCOUNTS)
        return _parse_list(Account, _field(data, "accounts", ACCOUNTS_PATH), ACCOUNTS_PATH)

    async def catalog(self, query: CatalogQuery | None = None) -> CatalogPage:
        from tui.api.models import CatalogPage, CatalogQuery

        query = query or CatalogQuery()
        data = await self._get_json(CATALOG_V2_PATH, endpoints.CATALOG_V2, params=query.to_wire())
        # A typical page skips building the model's schema (100-300 ms of the demo's start); anything else meets the model.
        page: CatalogPage | None = CATALOG_PAGE.built(data)
        return page if page is not None else _parse(CatalogPage, data, CATALOG_V2_PATH)

    async def catalog_body(self, query: CatalogQuery | None = None) -> bytes:
        """A catalog v2 page's body as the service sent it, not parsed: for a reader of the whole catalog
        that parses each page where and when it stores it (tui.local.mirror_rows.catalog_rows)."""
        response = await self._send(
            "GET",
            CATALOG_V2_PATH,
            endpoints.CATALOG_V2,
            params=(query or CatalogQuery()).to_wire(),
            retry_on=RetryOn.READ,
        )
        return response.content

    async def catalog_v1(self) -> list[Brand]:
        """Catalog version 1, announced for retirement: when the provider no longer has it, say so."""
        from tui.api.models import Brand

        try:
            data = await self._get_json(CATALOG_V1_PATH, endpoints.CATALOG_V1)
        except RefusedError as error:
            if error.status in (404, 410):
                raise RefusedError(
                    CATALOG_V1_GONE,
                    status=error.status,
                    hint="Use catalog version 2 (leave out --v1, or press v again).",
                    context=error.context,
                ) from None
            raise
        return _parse_list(Brand, _field(data, "brands", CATALOG_V1_PATH), CATALOG_V1_PATH)

    async def place_order(self, order: PlaceOrder) -> str:
        """Place an order; returns the RequestId the service echoes. Retries reuse `order.request_id`.

        Paced to the provider's limits first, by the limiter every process of the profile shares (its
        500 ms spacing, and at most 6 orders of a product a minute): this may wait. A RequestId that
        is not a GUID is refused before anything is sent (RequestIdInvalid): the provider takes only GUIDs.
        """
        products = [str(line.product_id) for line in order.products]
        response = await self._checkout(CHECKOUT_PATH, order.request_id, order.to_wire(), products)
        data = _json(response, CHECKOUT_PATH)
        if not isinstance(data, str):
            raise MalformedResponseError(f"POST {CHECKOUT_PATH}: expected the RequestId as a JSON string")
        return data

    async def place_order_by_sku(self, order: PlaceOrderBySku) -> SkuCheckout:
        """Checkout by SKU (the v2.1 catalog), paced and retried as Place order is; the answer is the order
        in brief. The SKU path is for a product without an id: Place order by id stays the default."""
        from tui.api.models import SkuCheckout

        skus = [line.sku for line in order.products]
        response = await self._checkout(SKU_CHECKOUT_PATH, order.request_id, order.to_wire(), skus)
        return _parse(SkuCheckout, _json(response, SKU_CHECKOUT_PATH), SKU_CHECKOUT_PATH)

    async def _checkout(self, path: str, request_id: str, body: dict[str, Any], products: list[str]) -> httpx.Response:
        """Place order's one way out, by id or by SKU: a GUID RequestId checked, paced (500 ms apart, 6 orders of
        a product a minute, per id or SKU), retried with the same RequestId."""
        check_request_id(request_id)
        keys = sorted(set(products))
        also = (endpoints.PLACE_ORDER_SPACING, *(f"{endpoints.PLACE_ORDER_PRODUCT} {key}" for key in keys))
        try:
            return await self._send(
                "POST",
                path,
                endpoints.PLACE_ORDER,
                json=body,
                retry_on=RetryOn.READ,
                retry=replace(self.retry, max_retry_after=PLACE_MAX_RETRY_AFTER),
                also=also,
            )
        except RateLimitedError as limited:
            limited.hint = PLACE_RATE_LIMITED_HINT
            raise

    async def brands(self, query: BrandsQuery | None = None) -> BrandsPage:
        """A page of the v2.1 catalog's brands (items with SKU, status and face values)."""
        from tui.api.models import BrandsPage, BrandsQuery

        params = (query or BrandsQuery()).to_wire()
        return _parse(BrandsPage, await self._get_json(BRANDS_PATH, endpoints.CATALOG_V21, params=params), BRANDS_PATH)

    async def stock(self, sku: str, face_value: Decimal) -> Stock:
        """Stock of one SKU at one face value."""
        from tui.api.models import Stock

        path = STOCK_PATH.format(sku=quote(sku.strip(), safe=""), face_value=quote(str(face_value), safe=""))
        return _parse(Stock, await self._get_json(path, endpoints.CATALOG_V21), path)

    async def categories(self) -> list[Category]:
        from tui.api.models import Category

        data = await self._get_json(CATEGORIES_PATH, endpoints.CATALOG_V21)
        return _parse_list(Category, data, CATEGORIES_PATH)

    async def catalog_countries(self) -> list[CatalogCountry]:
        from tui.api.models import CatalogCountry

        data = await self._get_json(COUNTRIES_PATH, endpoints.CATALOG_V21)
        return _parse_list(CatalogCountry, data, COUNTRIES_PATH)

    async def get_order(self, request_id: str) -> Order:
        from tui.api.models import Order

        path = _order_path(request_id)
        return _parse(Order, await self._get_order_json(path), path)

    async def get_order_wire(self, request_id: str) -> dict[str, Any]:
        """The order as the service sent it, as `to_wire(await get_order(...))` gives it, checked as
        get_order checks it; the model (and pydantic) is asked only when the answer is unusual."""
        path = _order_path(request_id)
        data = await self._get_order_json(path)
        wire = ORDER.arranged(data)
        if wire is not None:
            return wire
        from tui.api.models import Order, to_wire

        return to_wire(_parse(Order, data, path))

    async def order_history(self, day_range: WireDays) -> list[OrderHistoryLine]:
        """Every order line of the days in `day_range` (a tui.core.dates.DayRange: both days included)."""
        from tui.api.models import OrderHistoryLine

        data = await self._get_json(ORDER_HISTORY_PATH, endpoints.ORDER_HISTORY, params=day_range.to_wire())
        return _parse_list(OrderHistoryLine, data, ORDER_HISTORY_PATH)

    async def get_notifications(self) -> NotificationConfig:
        from tui.api.models import NotificationConfig

        return _parse(
            NotificationConfig, await self._get_json(NOTIFICATION_PATH, endpoints.NOTIFICATIONS), NOTIFICATION_PATH
        )

    async def set_notifications(self, config: NotificationConfig) -> NotificationConfig:
        from tui.api.models import NotificationConfig

        body = config.model_dump(by_alias=True, include={"notification_url", "notification_url_sandbox", "secret_key"})
        response = await self._send(
            "POST", NOTIFICATION_PATH, endpoints.NOTIFICATIONS, json=body, retry_on=RetryOn.READ
        )
        return _parse(NotificationConfig, _json(response, NOTIFICATION_PATH), NOTIFICATION_PATH)

    async def redeem_payout(self, weblink_or_card_code: str, request: RedeemRequest) -> RedeemResult:
        """Redeem a payout; raises RecipientInvalid before sending when the body breaks a spec rule."""
        from tui.api.models import RedeemResult

        validate_redeem(request)
        path = REDEEM_PATH.format(token=weblink_token(weblink_or_card_code))
        response = await self._send("POST", path, endpoints.REDEEM, json=request.to_wire(), retry_on=RetryOn.REDEEM)
        data = _json(response, path)
        if isinstance(data, dict):
            data = {**data, "http_status": response.status_code}
        return _parse(RedeemResult, data, path)

    async def payout_status(self, weblink_or_card_code: str) -> PayoutStatus:
        from tui.api.models import PayoutStatus

        path = PAYOUT_STATUS_PATH.format(token=weblink_token(weblink_or_card_code))
        return _parse(PayoutStatus, await self._get_json(path, endpoints.PAYOUT_STATUS), path)

    async def transactions(self, start: date, end: date) -> TransactionsReport:
        """Transactions of the days from `start` to `end`, both included."""
        from tui.api.money_models import TransactionsReport

        params = {"startDate": start.isoformat(), "endDate": end.isoformat()}
        return _parse(
            TransactionsReport,
            await self._get_json(TRANSACTIONS_PATH, endpoints.TRANSACTIONS, params=params),
            TRANSACTIONS_PATH,
        )

    async def exchange_rates(self, base: str | None = None, currency: str | None = None) -> ExchangeRates:
        """Every rate based on USD; with `base`, every rate based on it; with both, that one rate."""
        from tui.api.money_models import ExchangeRates

        params = {name: value for name, value in (("baseCurrency", base), ("currency", currency)) if value}
        return _parse(
            ExchangeRates,
            await self._get_json(EXCHANGE_RATES_PATH, endpoints.EXCHANGE_RATES, params=params),
            EXCHANGE_RATES_PATH,
        )

    # --- transport, errors and retries ---------------------------------------

    async def _get_order_json(self, path: str) -> Any:
        """Get order's answer; an unknown RequestId (404, or the provider's 400 OrderNotFound) is OrderNotFoundError."""
        try:
            return await self._get_json(path, endpoints.GET_ORDER)
        except RefusedError as error:
            if error.status == 404 or error.reason == "OrderNotFound":
                raise OrderNotFoundError(self.environment, status=error.status or 404, context=error.context) from None
            raise

    async def _get_json(self, path: str, endpoint: str, params: dict[str, str] | None = None) -> Any:
        response = await self._send("GET", path, endpoint, params=params, retry_on=RetryOn.READ)
        return _json(response, path)

    async def _send(
        self,
        method: str,
        path: str,
        endpoint: str,
        *,
        retry_on: RetryOn,
        retry: RetryPolicy | None = None,
        also: tuple[str, ...] = (),
        **request: Any,
    ) -> httpx.Response:
        """The one path of every request: each try waits for its turn (the limiter; `also`: the further
        windows it needs room in), then goes out. A try that never reached the service does not count."""
        where = mask_text(f"{method} {path}")
        policy = retry or self.retry
        attempt = 0
        in_doubt = False  # an earlier attempt may have reached the service: its answer was lost, or a 5xx
        while True:
            attempt += 1
            turn = await self._wait_for_turn(endpoint, where, announce=attempt == 1, also=also)
            outcome: httpx.Response | _Failure | None = None
            try:
                outcome = await self._attempt(method, path, where, request)
            except RefusedError as refused:
                refused.after_unknown_attempt = in_doubt  # tui.money tells "ours" from "placed before" by it
                raise
            finally:
                if isinstance(outcome, _Failure) and outcome.kind is RetryOn.CONNECT:
                    self.limiter.cancel(turn)
                else:
                    self.limiter.answered(turn)
            if isinstance(outcome, httpx.Response):
                self._honour_limit_headers(endpoint, outcome)
                return outcome
            in_doubt = in_doubt or outcome.kind in RetryOn.IN_FLIGHT | RetryOn.SERVER
            delay = policy.delay(attempt, outcome.retry_after, self._rand) if outcome.kind in retry_on else None
            if outcome.kind is RetryOn.RATE_LIMIT:
                # The service's word overrides the table, for this process and the profile's others:
                # the endpoint is held back, and the next try's turn waits it out.
                self.limiter.hold(
                    endpoint,
                    outcome.retry_after
                    if outcome.retry_after is not None
                    else delay or self.limiter.pause_after_refusal(endpoint),
                )
            if delay is not None and self.ends_by is not None and time.monotonic() + delay >= self.ends_by:
                delay = None  # the wait would outlast the command's deadline
            if delay is None:
                raise outcome.error
            log.info("%s: %s; retry %d in %.1f s", where, outcome.reason, attempt, delay)
            if self.on_retry:
                self.on_retry(attempt, delay, outcome.reason)
            if outcome.kind is not RetryOn.RATE_LIMIT:
                await self._sleep(delay)

    async def _wait_for_turn(self, endpoint: str, where: str, *, announce: bool, also: tuple[str, ...]) -> Turn:
        """Wait for the endpoint's turn (`announce`: tell on_wait of a long one; a retry was told already)."""
        # Place order's further windows may ask for up to a minute's wait (6 orders of a product): waited for.
        max_wait = max(self.max_wait, PLACE_MAX_RETRY_AFTER) if also else self.max_wait
        turn = self._booked(self.limiter.turn(endpoint, max_wait=max_wait, also=also), where)
        if announce and turn.wait > VISIBLE_WAIT and self.on_wait is not None:
            self.on_wait(endpoint, turn.wait, self.limiter.limits.get(endpoint))
        while turn.wait > 0:
            log.debug("%s: waiting %.2f s for its turn", where, turn.wait)
            await self._sleep(turn.wait)
            # A 429 that came meanwhile (here or in another process) may hold the endpoint past this turn.
            turn = self._booked(self.limiter.recheck(turn, max_wait=max_wait), where)
        return turn

    def _booked(self, turn: Turn, where: str) -> Turn:
        """The turn, or RateLimitedError saying when the next request is possible when it was too far to book."""
        if turn.booking is not None:
            return turn
        limit = self.limiter.limits.get(turn.endpoint)
        moment = time.strftime("%H:%M:%S", time.localtime(turn.at))
        rule = f"the provider allows {limit} here" if limit else "the provider asked for a pause"
        raise RateLimitedError(
            f"{where}: held back by the provider's limits ({rule}); the next request is possible at {moment} "
            f"(in {wait_words(turn.wait)})",
            retry_after=turn.wait,
            hint=f"Try again at {moment}, or use what giftdesk keeps locally.",
        )

    def _honour_limit_headers(self, endpoint: str, response: httpx.Response) -> None:
        """An answer saying no requests are left until a reset holds the endpoint back until then."""
        reset = exhausted_until(response.headers)
        if reset is not None:
            self.limiter.hold(endpoint, reset)

    def _deadline(self, path: str) -> tuple[float, float]:
        """This request's seconds and the instant it must end by: its own deadline, within the command's."""
        seconds = self.limits.catalog_seconds if path.startswith(CATALOG_PATHS) else self.limits.request_seconds
        deadline_at = time.monotonic() + seconds
        if self.ends_by is not None and self.ends_by < deadline_at:
            return max(0.0, self.ends_by - time.monotonic()), self.ends_by
        return seconds, deadline_at

    async def _exchange(self, method: str, path: str, request: dict[str, Any]) -> httpx.Response:
        """The request sent and its answer read whole, within the deadline and the size cap."""
        seconds, deadline_at = self._deadline(path)
        if seconds <= 0:
            raise DeadlineExceeded
        # A slow answer may take until the deadline (a catalog page: 120 s on the real provider).
        timeout = httpx.Timeout(
            connect=min(self._timeout.connect or seconds, seconds), read=seconds, write=seconds, pool=seconds
        )
        built = self._http.build_request(
            method,
            path,
            timeout=timeout,
            extensions={DEADLINE: deadline_at, BODY_CAP: self.limits.body_bytes},
            **request,
        )
        response = await self._http.send(built, stream=True)
        return await read_answer(response, self.limits.body_bytes, deadline_at)

    async def _attempt(self, method: str, path: str, where: str, request: dict[str, Any]) -> httpx.Response | _Failure:
        """One try: the 2xx response, a failure that may be retried, or a raised final error."""
        try:
            response = await self._exchange(method, path, request)
        except AnswerTooLarge:
            raise MalformedResponseError(
                f"{where}: the answer is larger than {self.limits.body_bytes // bounds.MEGABYTE} MB; not read further"
            ) from None
        except UnreadableEncoding as exc:
            raise MalformedResponseError(f"{where}: {exc}") from None
        except DeadlineExceeded:
            return self._past_deadline(where)
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise UnreachableError(f"{where}: the base URL {self.base_url!r} is not usable ({exc})") from None
        except (httpx.ConnectTimeout, httpx.PoolTimeout):
            return _Failure(
                UnreachableError(f"{where}: timed out connecting to {self.base_url}"),
                RetryOn.CONNECT,
                "timed out connecting",
            )
        except httpx.ConnectError as exc:
            reason = f"connection failed ({type(exc).__name__})"
            return _Failure(UnreachableError(f"{where}: {reason} at {self.base_url}"), RetryOn.CONNECT, reason)
        except httpx.TimeoutException:
            if self._deadline_passed():
                return self._past_deadline(where)
            if method == "GET":  # a read changes nothing: its outcome is not in doubt
                error = UnreachableError(f"{where}: timed out waiting for the answer", hint=READ_TIMED_OUT_HINT)
            else:
                error = UnreachableError(
                    f"{where}: timed out after sending; the outcome is unknown", hint=OUTCOME_UNKNOWN_HINT
                )
            return _Failure(error, RetryOn.IN_FLIGHT, "timed out")
        except httpx.TransportError as exc:
            reason = f"connection lost after sending ({type(exc).__name__})"
            error = UnreachableError(
                f"{where}: {reason} at {self.base_url}; the outcome is unknown", hint=OUTCOME_UNKNOWN_HINT
            )
            return _Failure(error, RetryOn.IN_FLIGHT, reason)
        status = response.status_code
        log.debug("%s -> %d", where, status)
        if status < 300:
            return response
        if status == 429:
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            limited = RateLimitedError(f"{where}: rate limited (429)", retry_after=retry_after, status=429)
            return _Failure(limited, RetryOn.RATE_LIMIT, "rate limited", retry_after)
        if status >= 500:
            return _Failure(
                ServerError(f"{where}: server error {status}", status=status), RetryOn.SERVER, f"HTTP {status}"
            )
        if status == 401:
            raise AuthenticationError(f"{where}: authentication failed (401)", status=401)
        if status == 403:
            text = _service_message(response)
            raise ForbiddenError(
                f"{where}: these credentials have no access to this resource (403): {text}", status=403
            )
        if status >= 400:
            raise RefusedError(_service_message(response), status=status, context=f"{where} -> {status}")
        raise MalformedResponseError(f"{where}: unexpected HTTP {status}", status=status)

    def _deadline_passed(self) -> bool:
        return self.ends_by is not None and time.monotonic() >= self.ends_by

    def _past_deadline(self, where: str) -> _Failure:
        error = UnreachableError(
            f"{where}: no whole answer within the deadline "
            f"({self.limits.request_seconds:g} s a request, {self.limits.catalog_seconds:g} s a catalog page, "
            f"{self.limits.command_seconds:g} s a command); the outcome is unknown",
            hint=DEADLINE_HINT,
        )
        return _Failure(error, RetryOn.IN_FLIGHT, "no answer within the deadline")


@dataclass(frozen=True)
class _Failure:
    error: ServiceError
    kind: RetryOn
    reason: str  # for a person: "rate limited", "HTTP 503", "timed out"
    retry_after: float | None = None


def exhausted_until(headers: httpx.Headers) -> float | None:
    """Seconds until the service's budget resets, when its rate-limit headers say none is left
    (`RateLimit-Remaining`/`-Reset`, or the `X-RateLimit-` ones; a reset may be delta seconds or a Unix time)."""
    for prefix in ("ratelimit-", "x-ratelimit-"):
        remaining, reset = headers.get(prefix + "remaining"), headers.get(prefix + "reset")
        if remaining is None or reset is None:
            continue
        try:
            left, moment = int(remaining.strip()), float(reset.strip())
        except ValueError:
            return None
        if left > 0:
            return None
        return max(0.0, moment - time.time()) if moment > 1_000_000_000 else max(0.0, moment)
    return None


def _service_message(response: httpx.Response) -> str:
    """The service's refusal text: a JSON string (SPEC Errors), or an object's `message` (a reason code)
    or `error` (403)."""
    try:
        data = bounds.loads(response.content)
    except (ValueError, MalformedResponseError):  # not JSON, or too deep to read: its start, as text
        data = response.text[:500]
    if isinstance(data, dict):
        data = next((data[key] for key in ("message", "Message", "title", "error") if key in data), "")
    text = str(data).strip() if data is not None else ""
    return text[:500] or f"HTTP {response.status_code}"


def _json(response: httpx.Response, path: str) -> Any:
    try:  # numbers with a fraction as Decimal, never float; too deep or absurd numbers refused
        return bounds.loads(response.content, where=mask_text(path))
    except ValueError:
        raise MalformedResponseError(f"{mask_text(path)}: response is not JSON") from None


def _field(data: Any, name: str, path: str) -> Any:
    if not isinstance(data, dict) or name not in data:
        raise MalformedResponseError(f"{mask_text(path)}: response has no {name!r} field")
    return data[name]


def _order_path(request_id: str) -> str:
    return ORDER_PATH.format(request_id=quote(request_id.strip(), safe=""))


def _parse(model: type[M], data: Any, path: str) -> M:
    from pydantic import ValidationError

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise MalformedResponseError(_describe(exc, model, path)) from None


def _parse_list(model: type[M], data: Any, path: str) -> list[M]:
    if not isinstance(data, list):
        raise MalformedResponseError(f"{mask_text(path)}: expected a list of {model.__name__}")
    return [_parse(model, item, path) for item in data]


def _describe(exc: ValidationError, model: type[BaseModel], path: str) -> str:
    # Locations and kinds only: the input values may be card codes or PINs.
    problems = "; ".join(
        f"{'.'.join(str(part) for part in error['loc']) or model.__name__}: {error['type']}"
        for error in exc.errors()[:3]
    )
    return f"{mask_text(path)}: response does not match {model.__name__} ({problems})"


__all__ = [
    "DEFAULT_TIMEOUT",
    "NO_RETRY",
    "RetryOn",
    "RetryPolicy",
    "ServiceClient",
    "ServiceError",
    "parse_retry_after",
]
