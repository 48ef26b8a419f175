"""The receiver: the service's order callbacks and its signed webhooks, kept before they are answered.

Paths:
- POST /callback: the notification callback (SPEC "Events"). Trusted when its
  `secretKey` matches the configured one (Authentication rule 5, constant time).
  Its event id is `callback:<requestId>`: the provider sends one per order.
- POST /webhooks: Svix webhooks (DESIGN "What the real provider sends"), verified
  by the `standardwebhooks` library: the `svix-signature` over id, timestamp and
  body, the timestamp within 5 minutes, against every configured `whsec_` secret
  (several during a rotation). Its event id is the `svix-id`; its kind the
  payload's `type`.
- GET /health: 200 while the inbox can be written, else 503 (for load balancers).

Every delivery is written to the profile's inbox (`tui.local.inbox`) durably
before it is answered: an accepted one, then 200; an event id already kept (a
retry, or a replay) is answered 200 and not kept or processed again; a refused
one is kept as refused with its reason and nothing from its body, then 4xx
(403 for a callback secret that does not match, 400 for a webhook that fails
verification or a body that is not a delivery's shape, 413 over the size cap).
A source over its rate gets 429 with Retry-After and is not kept. If the inbox
cannot be written the answer is 503: the sender retries, nothing is lost.

Writes go through one thread that commits the deliveries waiting together in
one transaction (group commit, `tui.listener_inbox`); what is trusted is decided by
`tui.listener_verify`.
Subscribers hear of each newly kept delivery after it is on disk (processing:
`tui.inbox_work`). Access logs are one JSON object per request on the
`giftdesk.receiver.access` logger, without bodies or signatures. No Textual.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tui.api.redact import mask_text
from tui.core.safe_text import visible
from tui.listener_guard import (
    ACCEPT_BATCH,
    SAMPLE_PER_REASON_PER_HOUR,
    ConnectionGuard,
    RefusalSample,
    UnverifiedBudget,
    connection_cap,
    guarded_protocol,
    say_accepts_at_the_limit_once,
)
from tui.listener_inbox import InboxWriter, OpenInbox
from tui.listener_verify import Refused, verified_callback, verified_webhook
from tui.local.inbox import CALLBACK, WEBHOOK, Delivery

log = logging.getLogger("giftdesk.receiver")
access_log = logging.getLogger("giftdesk.receiver.access")

LOOPBACK = "127.0.0.1"
CALLBACK_PATH = "/callback"
WEBHOOK_PATH = "/webhooks"
HEALTH_PATH = "/health"
START_TIMEOUT_SECONDS = 5.0
SOURCES_REMEMBERED = 10_000  # rate-limit buckets kept; the idlest are forgotten beyond this
METRICS_PATH = "/metrics"


@dataclass(frozen=True)
class ReceiverSettings:
    host: str = LOOPBACK
    port: int = 0
    max_body_bytes: int = 256 * 1024  # a delivery is a few hundred bytes; anything near this is not one
    rate_per_second: float = 50.0  # per source address; the provider's retries come well under it
    rate_burst: int = 200
    graceful_seconds: float = 10.0  # on stop, deliveries in flight get this long to finish
    # Addresses of the proxies whose X-Forwarded-For is believed ("*": any); none by default.
    forwarded_allow_ips: tuple[str, ...] = ()
    header_seconds: float = 5.0  # a request's headers must arrive within this
    body_seconds: float = 10.0  # and its body within this of its headers
    max_connections: int | None = None  # None: as many as the file limit leaves room for
    unverified_per_second: float = 100.0  # refused deliveries, whatever their source (UnverifiedBudget)
    unverified_burst: int = 400
    refused_kept_per_hour: int = SAMPLE_PER_REASON_PER_HOUR  # refused deliveries kept per reason per hour
    refused_kept_days: float = 7.0  # refused samples older than this are pruned
    give_up_seconds: float = 300.0  # unable to keep deliveries this long: the receiver stops (its exit says so)

    @property
    def loopback_only(self) -> bool:
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return self.host == "localhost"


WEBHOOK_SECRET_VARIABLE = "GIFTDESK_WEBHOOK_SECRET"  # the TUI's receiver reads its webhook secret here


def webhook_secrets_from_env(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The webhook secret in GIFTDESK_WEBHOOK_SECRET, if set (the TUI's receiver; `giftdesk listen` takes flags)."""
    import os

    value = (environ if environ is not None else os.environ).get(WEBHOOK_SECRET_VARIABLE, "")
    return (value,) if value else ()


Subscriber = Callable[[Delivery], None]


# --- limits and logs -----------------------------------------------------------------------------


class RateLimiter:
    """A token bucket per source address."""

    def __init__(self, per_second: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = per_second
        self.burst = float(burst)
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # source -> (tokens, at)

    def wait_needed(self, source: str) -> float:
        """0 when this request may go (and it is counted), else seconds until one may."""
        now = self._clock()
        tokens, at = self._buckets.pop(source, (self.burst, now))  # popped and put back: the dict stays in idle order
        tokens = min(self.burst, tokens + (now - at) * self.per_second)
        wait = 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.per_second
        self._buckets[source] = (tokens - 1.0 if wait == 0.0 else tokens, now)
        if len(self._buckets) > SOURCES_REMEMBERED:
            del self._buckets[next(iter(self._buckets))]
        return wait


class AccessLog:
    """ASGI wrapper: one JSON line per request (source, method, path, status, ms, and the delivery's
    event id, kind and verdict when the handler noted them). No body, no query, no headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        noted: dict[str, str] = {}
        scope.setdefault("state", {})["access"] = noted
        try:
            await self.app(scope, receive, sending)
        finally:
            if access_log.isEnabledFor(logging.INFO):
                client = scope.get("client")
                record = {
                    "source": client[0] if client else "",
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "ms": round((time.perf_counter() - started) * 1000, 2),
                    **noted,
                }
                # ensure_ascii: C0, C1 and bidi controls from outside (an event id) are \u escapes, never raw
                access_log.info("%s", mask_text(json.dumps(record)))


# --- the receiver --------------------------------------------------------------------------------


class Receiver:
    """Serve callbacks and webhooks for one profile's inbox.

    `callback_secret`: the configured secretKey ("" when none: callbacks cannot then be
    told from forgeries); `webhook_secrets`: the endpoint's `whsec_` secrets (several
    during a rotation). Both may be replaced while it runs.
    """

    def __init__(
        self,
        open_inbox: OpenInbox,
        *,
        callback_secret: str = "",
        webhook_secrets: Sequence[str] = (),
        settings: ReceiverSettings | None = None,
    ) -> None:
        self.settings = settings or ReceiverSettings()
        self.callback_secret = callback_secret
        self.webhook_secrets = tuple(webhook_secrets)
        self._subscribers: list[Subscriber] = []
        self._serving_here = False  # serve() runs in the caller's loop: stop() only asks it to end
        self._lock = threading.Lock()
        settings = self.settings
        self._limiter = RateLimiter(settings.rate_per_second, settings.rate_burst)
        self._budget = UnverifiedBudget(settings.unverified_per_second, settings.unverified_burst)
        self.refusals = RefusalSample(settings.refused_kept_per_hour)
        self.guard = ConnectionGuard(
            connection_cap(settings.max_connections), settings.header_seconds, settings.body_seconds
        )
        # Bound now, so the URL is known (and a busy port reported) before serving starts.
        self._socket = socket.create_server((settings.host, settings.port), backlog=ACCEPT_BATCH)
        self.port: int = self._socket.getsockname()[1]
        try:
            self._writer = InboxWriter(
                open_inbox,
                give_up_seconds=settings.give_up_seconds,
                refused_kept_days=settings.refused_kept_days,
                on_give_up=self._give_up,
            )
        except BaseException:  # the inbox cannot be opened: nothing listens
            self._socket.close()
            raise
        self.metrics = ReceiverMetrics(self)
        self._server = self._make_server()
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host = self.settings.host if ":" not in self.settings.host else f"[{self.settings.host}]"
        return f"http://{host}:{self.port}"

    @property
    def url(self) -> str:
        """The callback URL."""
        return self.base_url + CALLBACK_PATH

    @property
    def webhook_url(self) -> str:
        return self.base_url + WEBHOOK_PATH

    @property
    def verifies(self) -> bool:
        """False when no callback secret is configured."""
        return bool(self.callback_secret)

    @property
    def gave_up(self) -> bool:
        """It stopped because the inbox could not be written for `give_up_seconds`."""
        return self._writer.gave_up

    def _give_up(self) -> None:
        self._server.should_exit = True  # from the writer's thread: uvicorn looks at it every tick

    def subscribe(self, subscriber: Subscriber) -> None:
        """Called with each newly kept delivery (accepted or refused), once it is on disk and answered."""
        with self._lock:
            self._subscribers.append(subscriber)

    # --- running ---------------------------------------------------------------------------

    def _make_server(self) -> Any:
        import uvicorn

        app = Starlette(
            routes=[
                Route(CALLBACK_PATH, self._callback, methods=["POST"]),
                Route(WEBHOOK_PATH, self._webhook, methods=["POST"]),
                Route(HEALTH_PATH, self._health, methods=["GET"]),
                Route(METRICS_PATH, self._metrics, methods=["GET"]),
            ]
        )
        say_accepts_at_the_limit_once()
        # log_config=None: uvicorn must not reconfigure the app's (redacting) logging; our own access log.
        config = uvicorn.Config(
            AccessLog(app),
            log_config=None,
            access_log=False,
            lifespan="off",
            log_level="warning",
            timeout_graceful_shutdown=int(self.settings.graceful_seconds),
            http=guarded_protocol(self.guard),  # headers' and bodies' deadlines, the cap on connections
            # X-Forwarded-For only from the proxies named: any other sender could claim any address.
            proxy_headers=bool(self.settings.forwarded_allow_ips),
            forwarded_allow_ips=list(self.settings.forwarded_allow_ips),
            backlog=ACCEPT_BATCH,  # also how many asyncio accepts at once, before the guard counts them
        )
        return uvicorn.Server(config)

    async def serve(self) -> None:
        """In the caller's event loop until stopped (`stop()`, SIGTERM or Ctrl+C in the main thread);
        deliveries in flight finish first."""
        self._serving_here = True
        try:
            await self._server.serve(sockets=[self._socket])
        finally:
            self._serving_here = False
            self._writer.stop()
            self._socket.close()

    def start(self) -> Receiver:
        """In a background thread; returns once it accepts connections."""
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._socket]},
            name=f"giftdesk-receiver-{self.port}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the receiver did not start on {self.settings.host}:{self.port}")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Ends serve() (which then closes what it used) or the thread of start(); in flight finishes first."""
        self._server.should_exit = True
        if self._serving_here:
            return
        if self._thread is not None:
            self._thread.join(timeout=self.settings.graceful_seconds + START_TIMEOUT_SECONDS)
            self._thread = None
        self._writer.stop()
        self._socket.close()

    def __enter__(self) -> Receiver:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- receiving -------------------------------------------------------------------------

    async def _callback(self, request: Request) -> Response:
        return await self._receive(request, CALLBACK, lambda body: verified_callback(body, self.callback_secret))

    async def _webhook(self, request: Request) -> Response:
        return await self._receive(
            request, WEBHOOK, lambda body: verified_webhook(body, request.headers, self.webhook_secrets)
        )

    async def _health(self, request: Request) -> JSONResponse:
        trouble = self._writer.trouble
        if trouble:
            return JSONResponse({"status": "inbox cannot be written", "why": visible(trouble)}, status_code=503)
        return JSONResponse({"status": "ok"})

    async def _metrics(self, request: Request) -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return Response(generate_latest(self.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    async def _receive(
        self, request: Request, path_kind: str, verify: Callable[[bytes], tuple[str, str, dict[str, Any]]]
    ) -> Response:
        source = request.client.host if request.client else ""
        noted: dict[str, str] = request.scope.get("state", {}).get("access", {})
        wait = self._limiter.wait_needed(source) or self._budget.wait_needed(source)
        if wait:
            noted["verdict"] = "rate-limited"
            self.metrics.delivery(path_kind, "rate-limited")
            return JSONResponse(
                {"error": "too many requests; retry later"},
                status_code=429,
                headers={"Retry-After": str(max(1, round(wait)))},
            )
        try:
            event_id, kind, payload = verify(await self._read_capped(request))
            delivery = Delivery.accepted_now(event_id, kind, payload, source)
            status, answer = 200, {"received": event_id}
        except Refused as refused:
            self._budget.refused()
            self.metrics.refused(refused.code)
            noted.update(kind=path_kind, verdict="refused", reason=refused.code)
            answer = {"error": refused.reason}
            if not self.refusals.count(refused.code, source):  # counted; beyond the hour's sample, not kept
                self.metrics.delivery(path_kind, "refused")
                return JSONResponse(answer, status_code=refused.status)
            delivery = Delivery.refused_now(path_kind, refused.reason, source)
            status = refused.status
        except ClientDisconnect:  # gone, or closed for being too slow: nothing to answer
            noted["verdict"] = "disconnected"
            return Response(status_code=400)
        noted.update(event=delivery.event_id, kind=delivery.kind, verdict=delivery.verdict)
        try:
            fresh = await self._writer.keep(delivery)
        except Exception:  # said by the writer; the sender retries later, nothing is lost
            noted["verdict"] = "unavailable"
            self.metrics.delivery(path_kind, "unavailable")
            return JSONResponse({"error": "the inbox cannot be written now; retry"}, status_code=503)
        if delivery.accepted:
            self._budget.verified(source)
        if not fresh:
            noted["verdict"] = "duplicate"
            self.metrics.delivery(path_kind, "duplicate")
            return JSONResponse({"received": delivery.event_id, "duplicate": True})
        self.metrics.delivery(path_kind, delivery.verdict)
        self._publish(delivery)
        return JSONResponse(answer, status_code=status)

    async def _read_capped(self, request: Request) -> bytes:
        # Content-Length may be absent or lie, so the cap is enforced on what arrives.
        cap = self.settings.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise Refused(f"body over {cap} bytes", 413, "too-large")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > cap:
                raise Refused(f"body over {cap} bytes", 413, "too-large")
        return bytes(body)

    def _publish(self, delivery: Delivery) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            try:
                subscriber(delivery)
            except Exception:  # a subscriber's bug must not turn a kept delivery into a 500
                log.exception("receiver subscriber failed")


class ReceiverMetrics:
    """The receiver's figures for /metrics, in a registry of its own (several receivers in one process: tests)."""

    def __init__(self, receiver: Receiver) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge

        self.registry = CollectorRegistry(auto_describe=True)
        self._deliveries = Counter(
            "giftdesk_receiver_deliveries",
            "Deliveries answered, by path (callback, webhook) and verdict "
            "(accepted, refused, duplicate, rate-limited, unavailable).",
            ["path", "verdict"],
            registry=self.registry,
        )
        self._refusals = Counter(
            "giftdesk_receiver_refusals",
            "Refused deliveries by reason (secret, signature, not-json, shape, too-large, no-secret).",
            ["reason"],
            registry=self.registry,
        )
        self._processing_errors = Counter(
            "giftdesk_receiver_processing_errors",
            "Deliveries whose processing failed (tried again later, or given up on).",
            registry=self.registry,
        )
        self._lag = Gauge(
            "giftdesk_receiver_inbox_lag_seconds",
            "Age of the oldest accepted delivery not processed yet (0 when none waits).",
            registry=self.registry,
        )
        up = Gauge(
            "giftdesk_receiver_inbox_up",
            "1 while the inbox (its disk, or the team database) can be written.",
            registry=self.registry,
        )
        up.set_function(lambda: 1.0 if receiver._writer.healthy else 0.0)
        connections = Gauge("giftdesk_receiver_open_connections", "Connections open now.", registry=self.registry)
        connections.set_function(lambda: float(receiver.guard.open_connections))
        closed = Gauge(
            "giftdesk_receiver_connections_closed",
            "Connections the receiver closed since it started: late (headers or body past their deadline) "
            "or for room (at the cap).",
            ["why"],
            registry=self.registry,
        )
        closed.labels("late").set_function(lambda: float(receiver.guard.closed_late))
        closed.labels("room").set_function(lambda: float(receiver.guard.closed_for_room))

    def delivery(self, path: str, verdict: str) -> None:
        self._deliveries.labels(path, verdict).inc()

    def refused(self, reason: str) -> None:
        self._refusals.labels(reason).inc()

    def processing_failed(self) -> None:
        self._processing_errors.inc()

    def lag(self, seconds: float) -> None:
        self._lag.set(seconds)
