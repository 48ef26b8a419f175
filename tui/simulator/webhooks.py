"""Signed webhooks, as the provider sends them through Svix (DESIGN "What the real provider sends").

Each demo credential has a webhook endpoint (a URL, empty until set through the
portal routes below or `SimulatorServer.set_webhook_endpoint`) and a signing
secret `whsec_...`, derived from the seed and the credential's name, so it is
known before the simulator starts (docs/simulator.md lists how). Events:

- `productupdated.v1` for each product whose price or stock changed or that
  went away (`SimulatorServer.change_catalog`, the hourly refresh), to every
  endpoint (the catalog is shared);
- `ordercompleted.v1` when an order reaches its final status, to its
  credential's endpoint.

A delivery is a POST of `{"type", "timestamp", "data"}` with `svix-id`,
`svix-timestamp` and `svix-signature` (one `v1,` signature per valid secret),
signed by the `standardwebhooks` library, retried with a doubling delay until
the endpoint answers 2xx (`MAX_ATTEMPTS` at most); each retry is signed anew
with the same id. A rotation adds a new secret and keeps the old one valid for
`ROTATION_GRACE_SECONDS`: meanwhile deliveries carry both signatures. In
hostile mode each event also brings deliveries a receiver must refuse: badly
signed, stale, malformed, without headers (sent once, never retried).

Deliveries go out from a thread of their own with its own event loop, so the
catalog's refresh thread, the server's loop and tests can all send.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from standardwebhooks import Webhook

from .catalog_changes import CatalogChanges
from .credentials import DEMO_CREDENTIALS, DemoCredential
from .settings import Timing

if TYPE_CHECKING:
    import httpx
    from starlette.requests import Request
    from starlette.responses import Response

    from .order_records import Order

log = logging.getLogger("giftdesk.simulator")

PRODUCT_UPDATED = "productupdated.v1"
ORDER_COMPLETED = "ordercompleted.v1"
ROTATION_GRACE_SECONDS = 24 * 3600.0  # the provider keeps a rotated-out secret valid this long
MAX_ATTEMPTS = 12
BACKOFF_CAP_STEPS = 25  # the delay stops doubling at this many first delays (5 s with the fast timing)
PORTAL_PATH = "/portal/webhooks"
HOSTILE_KINDS = ("bad-signature", "stale", "malformed", "no-headers")


def initial_secret(seed: int, credential: str) -> str:
    """The endpoint secret a simulator with `seed` starts with for `credential`."""
    digest = hashlib.sha256(f"giftdesk-sim-webhooks:{seed}:{credential}".encode()).digest()
    return "whsec_" + base64.b64encode(digest[:24]).decode()


@dataclass
class Endpoint:
    url: str = ""
    secrets: list[tuple[str, float]] = field(default_factory=list)  # (secret, valid until: wall time)

    def valid_secrets(self, now: float) -> list[str]:
        return [secret for secret, until in self.secrets if until > now]


class WebhookSender:
    def __init__(self, timing: Timing, seed: int, credentials: tuple[DemoCredential, ...] = DEMO_CREDENTIALS) -> None:
        self.timing = timing
        self.hostile = False
        self.endpoints = {c.name: Endpoint(secrets=[(initial_secret(seed, c.name), float("inf"))]) for c in credentials}
        self.attempts: list[dict[str, Any]] = []  # every delivery attempt, for inspection
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._http: httpx.AsyncClient | None = None

    # --- the portal -------------------------------------------------------------------------

    def portal(self, credential: str) -> dict[str, Any]:
        """What the provider's portal shows: the endpoint URL and the secrets valid now, newest last."""
        endpoint = self.endpoints[credential]
        return {"url": endpoint.url, "secrets": endpoint.valid_secrets(time.time())}

    def set_url(self, credential: str, url: str) -> dict[str, Any]:
        self.endpoints[credential].url = url
        return self.portal(credential)

    def rotate(self, credential: str, *, grace_seconds: float = ROTATION_GRACE_SECONDS) -> str:
        """A new secret; the ones valid now stay valid `grace_seconds` longer at most."""
        endpoint = self.endpoints[credential]
        now = time.time()
        new = "whsec_" + base64.b64encode(uuid.uuid4().bytes + uuid.uuid4().bytes[:8]).decode()
        with self._lock:
            endpoint.secrets = [(s, min(until, now + grace_seconds)) for s, until in endpoint.secrets if until > now]
            endpoint.secrets.append((new, float("inf")))
        return new

    # --- events -----------------------------------------------------------------------------

    def catalog_changed(self, changes: CatalogChanges) -> None:
        for change, ids in (
            ("price", changes.priced),
            ("out-of-stock", changes.out_of_stock),
            ("back-in-stock", changes.back_in_stock),
            ("removed", changes.removed),
        ):
            for product_id in ids:
                for credential in self.endpoints:
                    self.send(credential, PRODUCT_UPDATED, {"productId": product_id, "change": change})

    def order_placed(self, order: Order) -> None:
        """Announce the order when it is final (called as it is placed)."""
        data = {"requestId": order.request_id, "orderId": order.order_id, "status": order.final_status()}
        self.send(order.credential.name, ORDER_COMPLETED, data, delay=max(order.final_at - order.elapsed(), 0.0))

    def send(self, credential: str, event_type: str, data: dict[str, Any], *, delay: float = 0.0) -> None:
        """Deliver (from the delivery thread) if the credential's endpoint has a URL; thread-safe."""
        if not self.endpoints[credential].url:
            return
        message_id = f"msg_{uuid.uuid4().hex}"
        body = json.dumps({"type": event_type, "timestamp": datetime.now(UTC).isoformat(), "data": data})
        self._submit(self._deliver(credential, message_id, event_type, body, delay))
        if self.hostile:
            for kind in HOSTILE_KINDS:
                self._submit(self._hostile(credential, kind, body, delay))

    def stop(self) -> None:
        with self._lock:
            loop, self._loop = self._loop, None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)

    # --- delivering -------------------------------------------------------------------------

    def _submit(self, delivery: Awaitable[None]) -> None:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._loop.run_forever, name="giftdesk-simulator-webhooks", daemon=True).start()
            asyncio.run_coroutine_threadsafe(_logged(delivery), self._loop)

    def _client(self) -> httpx.AsyncClient:
        import httpx

        if self._http is None:
            self._http = httpx.AsyncClient(timeout=self.timing.callback_timeout_seconds)
        return self._http

    def _headers(
        self, credential: str, message_id: str, body: str, when: datetime, secrets: list[str] | None = None
    ) -> dict[str, str]:
        valid = secrets if secrets is not None else self.endpoints[credential].valid_secrets(time.time())
        signatures = " ".join(Webhook(secret).sign(message_id, when, body) for secret in valid)
        return {
            "svix-id": message_id,
            "svix-timestamp": str(int(when.timestamp())),
            "svix-signature": signatures,
            "content-type": "application/json",
        }

    async def _deliver(self, credential: str, message_id: str, event_type: str, body: str, delay: float) -> None:
        await asyncio.sleep(delay)
        first = self.timing.callback_backoff_seconds
        for attempt in range(1, MAX_ATTEMPTS + 1):
            url = self.endpoints[credential].url
            headers = self._headers(credential, message_id, body, datetime.now(UTC))
            outcome = await self._post(url, body, headers)
            self.attempts.append(
                {
                    "credential": credential,
                    "msgId": message_id,
                    "type": event_type,
                    "attempt": attempt,
                    "outcome": outcome,
                    "url": url,
                    "at": time.monotonic(),
                }
            )
            if isinstance(outcome, int) and 200 <= outcome < 300:
                return
            await asyncio.sleep(min(first * 2 ** (attempt - 1), first * BACKOFF_CAP_STEPS))
        log.warning("webhook %s (%s) gave up after %d attempts", message_id, event_type, MAX_ATTEMPTS)

    async def _hostile(self, credential: str, kind: str, body: str, delay: float) -> None:
        """One delivery the receiver must refuse, of `kind` (HOSTILE_KINDS)."""
        await asyncio.sleep(delay)
        message_id = f"msg_{uuid.uuid4().hex}"
        now = datetime.now(UTC)
        if kind == "bad-signature":
            headers = self._headers(credential, message_id, body, now, [initial_secret(-1, "forger")])
        elif kind == "stale":
            headers = self._headers(credential, message_id, body, now - timedelta(minutes=10))
        elif kind == "malformed":
            body = '{"type": "productupdated.v1", "data": [\x00'
            headers = {**self._headers(credential, message_id, body, now), "svix-signature": "v1,not base64!"}
        else:
            headers = {"content-type": "application/json"}
        outcome = await self._post(self.endpoints[credential].url, body, headers)
        self.attempts.append(
            {
                "credential": credential,
                "msgId": message_id,
                "type": f"hostile:{kind}",
                "attempt": 1,
                "outcome": outcome,
                "url": self.endpoints[credential].url,
                "at": time.monotonic(),
            }
        )

    async def _post(self, url: str, body: str, headers: dict[str, str]) -> int | str:
        import httpx

        try:
            response = await self._client().post(url, content=body.encode(), headers=headers)
        except httpx.HTTPError as error:
            return type(error).__name__
        return response.status_code


async def _logged(delivery: Awaitable[None]) -> None:
    try:
        await delivery
    except Exception:  # a bug here must not pass silently (DESIGN rule 10)
        log.exception("webhook delivery failed")


def portal_handlers(sender: WebhookSender) -> dict[str, Callable[[Request, DemoCredential], Awaitable[Response]]]:
    """The provider's webhook portal, for the authenticated credential: GET shows the endpoint
    and its valid secrets, POST `{"url": ...}` sets the URL, POST .../rotate adds a secret."""
    from starlette.responses import JSONResponse

    async def endpoint(request: Request, credential: DemoCredential) -> Response:
        if request.method == "POST":
            try:
                url = json.loads(await request.body()).get("url")
            except (ValueError, AttributeError):
                url = None
            if not isinstance(url, str):
                return JSONResponse("A JSON object with a url string is required.", status_code=400)
            return JSONResponse(sender.set_url(credential.name, url))
        return JSONResponse(sender.portal(credential.name))

    async def rotate(request: Request, credential: DemoCredential) -> Response:
        sender.rotate(credential.name)
        return JSONResponse(sender.portal(credential.name))

    return {PORTAL_PATH: endpoint, PORTAL_PATH + "/rotate": rotate}
