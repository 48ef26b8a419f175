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
one transaction (group commit), so the fsync each 2xx needs is shared under load.
Subscribers hear of each newly kept delivery after it is on disk (processing:
`tui.inbox_work`). Access logs are one JSON object per request on the
`giftdesk.receiver.access` logger, without bodies or signatures. No Textual.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import queue
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tui.api import bounds
from tui.api.errors import MalformedResponseError
from tui.api.redact import mask_text
from tui.local.inbox import CALLBACK, WEBHOOK, Delivery, InboxStore

log = logging.getLogger("giftdesk.receiver")
access_log = logging.getLogger("giftdesk.receiver.access")

LOOPBACK = "127.0.0.1"
CALLBACK_PATH = "/callback"
WEBHOOK_PATH = "/webhooks"
HEALTH_PATH = "/health"
SECRET_MISMATCH_STATUS = 403  # no credential scheme to challenge with, so not 401
START_TIMEOUT_SECONDS = 5.0
GROUP_COMMIT_MAX = 256  # deliveries in one transaction at most
SOURCES_REMEMBERED = 10_000  # rate-limit buckets kept; the idlest are forgotten beyond this


@dataclass(frozen=True)
class ReceiverSettings:
    host: str = LOOPBACK
    port: int = 0
    max_body_bytes: int = 256 * 1024  # a delivery is a few hundred bytes; anything near this is not one
    rate_per_second: float = 50.0  # per source address; the provider's retries come well under it
    rate_burst: int = 200
    graceful_seconds: float = 10.0  # on stop, deliveries in flight get this long to finish

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
OpenInbox = Callable[[], InboxStore]


# --- verification ------------------------------------------------------------------------------


class Refused(Exception):
    """A delivery that is not trusted or not a delivery's shape: kept as refused, answered `status`."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


def secret_matches(received: object, expected: str) -> bool:
    """Constant-time comparison; bytes, because compare_digest refuses non-ASCII str."""
    if not isinstance(received, str):
        return False
    return hmac.compare_digest(received.encode("utf-8"), expected.encode("utf-8"))


def _json_object(body: bytes) -> dict[str, Any]:
    try:  # too deep, or an absurd number (1e999999, 5,000 digits): refused naming it, before any use
        data = bounds.loads(body, where="callback")
    except MalformedResponseError as error:
        raise Refused(error.message) from None
    except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise Refused("body is not JSON") from None
    if not isinstance(data, dict):
        raise Refused("body is not a JSON object")
    return data


def verified_callback(body: bytes, expected_secret: str) -> tuple[str, str, dict[str, Any]]:
    """(event id, kind, payload) of a callback whose secretKey matches; else Refused."""
    data = _json_object(body)
    if not secret_matches(data.get("secretKey", ""), expected_secret):
        raise Refused("secretKey does not match the configured secret", SECRET_MISMATCH_STATUS)
    request_id = data.get("requestId")
    if not isinstance(request_id, str) or not request_id.strip():
        raise Refused("not a callback payload (requestId)")
    if not isinstance(data.get("status"), str):
        raise Refused("not a callback payload (status)")
    return f"callback:{request_id.strip()}", CALLBACK, data


def verified_webhook(
    body: bytes, headers: Mapping[str, str], secrets: Sequence[str]
) -> tuple[str, str, dict[str, Any]]:
    """(event id, event type, payload) of a webhook signed with one of `secrets`; else Refused."""
    from standardwebhooks import Webhook, WebhookVerificationError

    # The library reads the standard's `webhook-*` names; Svix sends `svix-*` (the same scheme).
    wanted = {
        name: headers.get(f"svix-{name}") or headers.get(f"webhook-{name}") or ""
        for name in ("id", "timestamp", "signature")
    }
    if not all(wanted.values()):
        raise Refused("missing svix-id, svix-timestamp or svix-signature")
    if not secrets:
        raise Refused("no webhook secret is configured")
    reason = ""
    for secret in secrets:
        try:
            Webhook(secret).verify(body, {f"webhook-{name}": value for name, value in wanted.items()}, json_parse=False)
        except WebhookVerificationError as error:
            reason = str(error).lower()  # the library's fixed texts: "message timestamp too old", ...
            continue
        except ValueError:  # a signature that is not `v1,<base64>`, or a body that is not UTF-8
            reason = "malformed signature or body"
            continue
        data = _json_object(body)
        kind = data.get("type") or data.get("eventType")
        return wanted["id"], kind if isinstance(kind, str) and kind else "unknown", data
    raise Refused(reason)


# --- keeping: one writer thread, group commit ----------------------------------------------------


class InboxWriter:
    """Owns the inbox's writes in one thread; deliveries waiting together are committed together."""

    def __init__(self, open_inbox: OpenInbox) -> None:
        self._open_inbox = open_inbox
        self._queue: queue.SimpleQueue[tuple[Delivery, asyncio.AbstractEventLoop, asyncio.Future[bool]] | None] = (
            queue.SimpleQueue()
        )
        self._opened = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="giftdesk-inbox-writer", daemon=True)
        self._thread.start()
        self._opened.wait()
        if self._failure is not None:
            raise self._failure
        self.healthy = True  # False after a failed commit, until one succeeds

    async def keep(self, delivery: Delivery) -> bool:
        """True once it is on disk; False if its event id was kept before. Raises if it cannot be written."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        self._queue.put((delivery, loop, future))
        return await future

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=START_TIMEOUT_SECONDS)

    def _run(self) -> None:
        try:
            inbox = self._open_inbox()
        except BaseException as error:
            self._failure = error
            self._opened.set()
            return
        self._opened.set()
        try:
            while (batch := self._next_batch()) is not None:
                self._commit(inbox, batch)
        finally:
            inbox.close()

    def _next_batch(self) -> list[tuple[Delivery, asyncio.AbstractEventLoop, asyncio.Future[bool]]] | None:
        first = self._queue.get()
        if first is None:
            return None
        batch = [first]
        while len(batch) < GROUP_COMMIT_MAX:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._queue.put(None)  # stop after this batch
                break
            batch.append(item)
        return batch

    def _commit(
        self, inbox: InboxStore, batch: list[tuple[Delivery, asyncio.AbstractEventLoop, asyncio.Future[bool]]]
    ) -> None:
        try:
            outcomes: list[bool | BaseException] = list(inbox.keep_all([delivery for delivery, _, _ in batch]))
            self.healthy = True
        except Exception as error:
            log.error("the inbox could not be written: %s", error)
            self.healthy = False
            outcomes = [error] * len(batch)
        for (_, loop, future), outcome in zip(batch, outcomes, strict=True):
            loop.call_soon_threadsafe(_settle, future, outcome)


def _settle(future: asyncio.Future[bool], outcome: bool | BaseException) -> None:
    if future.done():  # the request went away meanwhile
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


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
                access_log.info("%s", mask_text(json.dumps(record, ensure_ascii=False)))


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
        self._limiter = RateLimiter(self.settings.rate_per_second, self.settings.rate_burst)
        # Bound now, so the URL is known (and a busy port reported) before serving starts.
        self._socket = socket.create_server((self.settings.host, self.settings.port))
        self.port: int = self._socket.getsockname()[1]
        try:
            self._writer = InboxWriter(open_inbox)
        except BaseException:  # the inbox cannot be opened: nothing listens
            self._socket.close()
            raise
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
            ]
        )
        # log_config=None: uvicorn must not reconfigure the app's (redacting) logging; our own access log.
        config = uvicorn.Config(
            AccessLog(app),
            log_config=None,
            access_log=False,
            lifespan="off",
            log_level="warning",
            timeout_graceful_shutdown=int(self.settings.graceful_seconds),
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

    async def _callback(self, request: Request) -> JSONResponse:
        return await self._receive(request, CALLBACK, lambda body: verified_callback(body, self.callback_secret))

    async def _webhook(self, request: Request) -> JSONResponse:
        return await self._receive(
            request, WEBHOOK, lambda body: verified_webhook(body, request.headers, self.webhook_secrets)
        )

    async def _health(self, request: Request) -> JSONResponse:
        healthy = self._writer.healthy
        return JSONResponse(
            {"status": "ok" if healthy else "inbox cannot be written"}, status_code=200 if healthy else 503
        )

    async def _receive(
        self, request: Request, path_kind: str, verify: Callable[[bytes], tuple[str, str, dict[str, Any]]]
    ) -> JSONResponse:
        source = request.client.host if request.client else ""
        noted: dict[str, str] = request.scope.get("state", {}).get("access", {})
        wait = self._limiter.wait_needed(source)
        if wait:
            noted["verdict"] = "rate-limited"
            return JSONResponse(
                {"error": "too many requests from this address"},
                status_code=429,
                headers={"Retry-After": str(max(1, round(wait)))},
            )
        try:
            event_id, kind, payload = verify(await self._read_capped(request))
            delivery = Delivery.accepted_now(event_id, kind, payload, source)
            status, answer = 200, {"received": event_id}
        except Refused as refused:
            delivery = Delivery.refused_now(path_kind, refused.reason, source)
            status, answer = refused.status, {"error": refused.reason}
        noted.update(event=delivery.event_id, kind=delivery.kind, verdict=delivery.verdict)
        try:
            fresh = await self._writer.keep(delivery)
        except Exception:  # logged by the writer; the sender retries later, nothing is lost
            return JSONResponse({"error": "the inbox cannot be written now; retry"}, status_code=503)
        if not fresh:
            noted["verdict"] = "duplicate"
            return JSONResponse({"received": delivery.event_id, "duplicate": True})
        self._publish(delivery)
        return JSONResponse(answer, status_code=status)

    async def _read_capped(self, request: Request) -> bytes:
        # Content-Length may be absent or lie, so the cap is enforced on what arrives.
        cap = self.settings.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise Refused(f"body over {cap} bytes", 413)
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > cap:
                raise Refused(f"body over {cap} bytes", 413)
        return bytes(body)

    def _publish(self, delivery: Delivery) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            try:
                subscriber(delivery)
            except Exception:  # a subscriber's bug must not turn a kept delivery into a 500
                log.exception("receiver subscriber failed")
