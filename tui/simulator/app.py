"""The HTTP surface: routes with the spec's exact paths, Basic auth, JSON bodies."""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import math
import threading
from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from . import catalog_v21
from .catalog import Catalog, CatalogQuery, CatalogQueryError
from .credentials import DEMO_CREDENTIALS, DemoCredential
from .history import HISTORY_PATH, history_endpoint
from .money_endpoints import exchange_rates, transactions
from .notifications import NotificationConfigInvalid, Notifier
from .order_records import Order
from .orders import OrderBook, OrderRejected
from .pacing import PlaceOrderLimits
from .payouts import PayoutDesk, RedeemRefused, parse_redeem_body
from .rate_limits import RateLimits, retry_after
from .settings import Timing
from .spelling import AnySpelling
from .webhooks import WebhookSender, portal_handlers

REDEEM_PREFIX = "/api/Integration/v2/payout/redeem/"
STATUS_PREFIX = "/api/Integration/v2/payout/status/"
PAYOUT_NOT_FOUND = "Payout not found"
NO_ACCESS = "The client does not have access to this resource."


class SimulatorState:
    """Everything the service knows; lives in the server's event loop."""

    def __init__(self, catalog: Catalog, timing: Timing, seed: int, rate_limits: RateLimits | None = None):
        self.catalog = catalog
        self.timing = timing
        self.orders = OrderBook(catalog, timing, seed)
        self.payouts = PayoutDesk(self.orders, timing, seed)
        self.notifier = Notifier(timing)
        self.webhooks = WebhookSender(timing, seed)  # signed webhooks (Svix), docs/simulator.md
        self.credentials = {c.client_id: c for c in DEMO_CREDENTIALS}
        self.place_limits: PlaceOrderLimits | None = None  # SimulatorSettings.place_limits
        self.rate_limits = rate_limits or RateLimits(None)  # SimulatorSettings.limits; logs every request
        # Set once the seeded past exists (SimulatorServer.seed_past); only the catalog answers before.
        self.past = threading.Event()
        # Set once a catalog page went out or a request waits for the past: time to seed it
        # (SimulatorServer.seed_past_when_wanted), not sooner, so that it does not slow the first page.
        self.past_wanted = threading.Event()


Handler = Callable[[Request, DemoCredential], Awaitable[Response]]


def text(status: int, message: str) -> JSONResponse:
    """The payout endpoints' error bodies are JSON strings (SPEC Errors)."""
    return JSONResponse(message, status_code=status)


def reason(message: str) -> JSONResponse:
    """The other endpoints' 400 bodies are objects whose message is a reason code (the provider's dialect)."""
    return JSONResponse({"message": message}, status_code=400)


def authenticate(state: SimulatorState, request: Request) -> DemoCredential | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        client_id, _, secret = base64.b64decode(token, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    credential = state.credentials.get(client_id)
    return credential if credential and credential.client_secret == secret else None


def raw_token(request: Request, prefix: str) -> str | None:
    """The weblink exactly as sent: matched on the raw path, never the decoded one."""
    raw = request.scope.get("raw_path", b"").decode("latin-1")
    return raw[len(prefix) :] if raw.startswith(prefix) else None


async def json_body(request: Request) -> object:
    try:
        return json.loads(await request.body())
    except ValueError:
        return None


def build_app(state: SimulatorState) -> Starlette:
    def endpoint(handler: Handler, resource: str, name: str, *, needs_past: bool = True):
        """`resource`: what a credential needs access to (403 without); `name`: the endpoint's rate limit."""

        async def run(request: Request) -> Response:
            credential = authenticate(state, request)
            if credential is None:
                return Response(status_code=401, headers={"WWW-Authenticate": 'Basic realm="giftdesk-sim"'})
            limits = state.rate_limits
            wait = limits.admit(name, credential.name)
            if wait is not None:
                limits.record(name, credential.name, 429, request.url.query)
                return Response(status_code=429, headers={"Retry-After": retry_after(wait)})
            response = await answer(request, credential)
            limits.record(name, credential.name, response.status_code, request.url.query)
            return response

        async def answer(request: Request, credential: DemoCredential) -> Response:
            if not credential.may_use(resource):
                return JSONResponse({"error": NO_ACCESS}, status_code=403)
            if needs_past and not state.past.is_set():  # e.g. Get order of a seeded order, asked early
                state.past_wanted.set()
                await asyncio.to_thread(state.past.wait)
            response = await handler(request, credential)
            if not needs_past:  # the catalog: its first page is out (built, about to be sent)
                state.past_wanted.set()
            return response

        return run

    async def accounts(request, credential):
        return JSONResponse({"accounts": [a.to_json() for a in state.orders.accounts_of(credential)]})

    async def catalog_v1(request, credential):
        return JSONResponse(state.catalog.all_brands())

    async def catalog_v2(request, credential):
        try:
            query = CatalogQuery.from_params(dict(request.query_params))
        except CatalogQueryError as error:
            return reason(str(error))
        return JSONResponse(state.catalog.page(query))

    def place(credential: DemoCredential, body: object, answer: Callable[[Order], object]) -> Response:
        """Place order's one path, by product id or by SKU: pacing, the money rules, the order's events."""
        if state.place_limits and (wait := state.place_limits.admit(credential.name, body)) is not None:
            return Response(status_code=429, headers={"Retry-After": str(math.ceil(wait))})
        try:
            order = state.orders.place(credential, body)
        except OrderRejected as rejected:
            return reason(str(rejected))
        state.notifier.schedule(order)
        state.webhooks.order_placed(order)
        return JSONResponse(answer(order))

    async def checkout(request, credential):
        return place(credential, await json_body(request), lambda order: order.request_id)

    async def brands_v21(request, credential):
        try:
            return JSONResponse(catalog_v21.brands_page(state.catalog, dict(request.query_params)))
        except CatalogQueryError as error:
            return reason(str(error))

    async def stock_v21(request, credential):
        try:
            params = request.path_params
            return JSONResponse(catalog_v21.stock(state.catalog, params["sku"], params["face_value"]))
        except OrderRejected as rejected:
            return reason(str(rejected))

    async def categories_v21(request, credential):
        return JSONResponse(catalog_v21.categories())

    async def countries_v21(request, credential):
        return JSONResponse(catalog_v21.countries())

    async def checkout_by_sku(request, credential):
        try:
            body = catalog_v21.checkout_by_product(state.catalog, await json_body(request))
        except OrderRejected as rejected:
            return reason(str(rejected))
        return place(credential, body, catalog_v21.checkout_answer)

    async def get_order(request, credential):
        order = state.orders.get(credential, request.path_params["request_id"])
        return JSONResponse(order.to_json()) if order else reason("OrderNotFound")  # the provider's way: 400

    async def notification(request, credential):
        if request.method == "GET":
            return JSONResponse(state.notifier.get(credential.client))
        try:
            return JSONResponse(state.notifier.set(credential.client, await json_body(request)))
        except NotificationConfigInvalid as error:
            return reason(str(error))

    async def redeem(request, credential):
        token = raw_token(request, REDEEM_PREFIX) or ""
        desk = state.payouts
        if token in desk.in_flight:
            return Response(status_code=429)
        desk.in_flight.add(token)
        try:
            wallet, recipient = parse_redeem_body(await request.body())
            existing = desk.check_redeemable(credential, token, wallet, recipient)
            # Submitting to the wallet provider takes a while; a second request meanwhile gets 429.
            await asyncio.sleep(state.timing.redeem_hold_seconds)
            payout = existing or desk.create(credential, token, wallet, recipient)
        except RedeemRefused as refused:
            return text(400, str(refused))
        finally:
            desk.in_flight.discard(token)
        result = payout.result_json()
        return JSONResponse(result, status_code=202 if result["isProcessing"] else 200)

    async def payout_status(request, credential):
        payout = state.payouts.status_of(credential, raw_token(request, STATUS_PREFIX) or "")
        return JSONResponse(payout.status_json()) if payout else text(404, PAYOUT_NOT_FOUND)

    routes = [
        Route("/api/integration/v1.0/accounts", endpoint(accounts, "accounts", "accounts"), methods=["GET"]),
        Route(
            "/api/integration/v1.0/catalog",
            endpoint(catalog_v1, "catalog", "catalog_v1", needs_past=False),
            methods=["GET"],
        ),
        Route(
            "/api/integration/v2.0/catalog",
            endpoint(catalog_v2, "catalog", "catalog_v2", needs_past=False),
            methods=["GET"],
        ),
        Route(
            "/api/Integration/v2.0/brands",
            endpoint(brands_v21, "catalog", "catalog_v21", needs_past=False),
            methods=["GET"],
        ),
        Route(
            "/api/integration/v2.0/getstock/{sku}/{face_value}",
            endpoint(stock_v21, "catalog", "catalog_v21", needs_past=False),
            methods=["GET"],
        ),
        Route(
            "/api/integration/v2.0/categories",
            endpoint(categories_v21, "catalog", "catalog_v21", needs_past=False),
            methods=["GET"],
        ),
        Route(
            "/api/integration/v2.0/catalog-countries",
            endpoint(countries_v21, "catalog", "catalog_v21", needs_past=False),
            methods=["GET"],
        ),
        Route(
            "/api/integration/v2.0/orders/checkout",
            endpoint(checkout_by_sku, "orders", "place_order"),
            methods=["POST"],
        ),
        Route("/api/integration/v1.0/orders/checkout", endpoint(checkout, "orders", "place_order"), methods=["POST"]),
        Route(HISTORY_PATH, endpoint(history_endpoint(state.orders), "orders", "order_history"), methods=["GET"]),
        Route("/api/integration/v1.0/orders/{request_id}", endpoint(get_order, "orders", "get_order"), methods=["GET"]),
        Route(
            "/api/integration/v1.0/transactions",
            endpoint(transactions(state.orders.ledger), "transactions", "transactions"),
            methods=["GET"],
        ),
        Route(
            "/api/integration/v1.0/exchange-rates", endpoint(exchange_rates, "rates", "exchange_rates"), methods=["GET"]
        ),
        Route(
            "/api/Integration/v1/notification",
            endpoint(notification, "notifications", "notifications"),
            methods=["GET", "POST"],
        ),
        Route(REDEEM_PREFIX + "{weblink:path}", endpoint(redeem, "payouts", "redeem"), methods=["POST"]),
        Route(STATUS_PREFIX + "{weblink:path}", endpoint(payout_status, "payouts", "payout_status"), methods=["GET"]),
        *(
            Route(path, endpoint(handler, "webhooks", "webhooks", needs_past=False), methods=["GET", "POST"])
            for path, handler in portal_handlers(state.webhooks).items()
        ),
    ]
    spellings = Middleware(AnySpelling, templates=[route.path for route in routes])
    return Starlette(routes=routes, middleware=[spellings])
