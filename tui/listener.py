"""A local receiver for the service's one event, the order final-status callback.

SPEC "Events": the service POSTs the callback payload to the configured URL;
the receiver checks `secretKey` on its own side before trusting anything in
it (Authentication rule 5), then calls Get order with the `requestId`
(Events rule 4). This module does the receiving and the checking; whoever
subscribes does the fetching.

Answers:
- 200: the payload is well formed and its secret matches; subscribers get a
  `CallbackAccepted`.
- 403: the secret does not match. The caller is not one we trust, and there
  is no credential scheme to challenge it with, so 403 rather than 401.
  Subscribers get a `CallbackRejected` that carries nothing from the body.
- 400: the body is not JSON, not the payload's shape, or over
  `MAX_BODY_BYTES`. Nothing changes and nobody is told; it is logged.

Runs on 127.0.0.1 only: in a background thread (`start`/`stop`, for the TUI)
or in the caller's event loop (`serve`, for `giftdesk listen`). No Textual.
"""

from __future__ import annotations

import hmac
import itertools
import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tui.api.models import CallbackPayload
from tui.api.statuses import ORDER_STATUS_MEANING, is_order_final

log = logging.getLogger("giftdesk.listener")

HOST = "127.0.0.1"  # loopback only: the listener is never reachable from outside this machine
CALLBACK_PATH = "/callback"
MAX_BODY_BYTES = 64 * 1024  # a callback is a few hundred bytes; anything near this is not one
SECRET_MISMATCH_STATUS = 403
START_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class CallbackAccepted:
    """A well-formed callback whose secret matched: its requestId may be looked up."""

    sequence: int  # 1, 2, ... in order of arrival, shared with rejections
    payload: CallbackPayload

    @property
    def request_id(self) -> str:
        return self.payload.request_id

    @property
    def status(self) -> str:
        return canonical_status(self.payload.status)

    @property
    def is_final(self) -> bool:
        return is_order_final(self.payload.status)


@dataclass(frozen=True)
class CallbackRejected:
    """A callback whose secret did not match. Nothing from its body is kept: none of it is trusted."""

    sequence: int
    reason: str


ListenerEvent = CallbackAccepted | CallbackRejected
Subscriber = Callable[[ListenerEvent], None]


def canonical_status(status: str) -> str:
    """"succeeded" -> "Succeeded" (DESIGN: callbacks may be lower case); unknown ones as they came."""
    wanted = status.strip().lower()
    return next((name for name in ORDER_STATUS_MEANING if name.lower() == wanted), status)


def secret_matches(received: object, expected: str) -> bool:
    """Constant-time comparison; bytes, because compare_digest refuses non-ASCII str."""
    if not isinstance(received, str):
        return False
    return hmac.compare_digest(received.encode("utf-8"), expected.encode("utf-8"))


class Malformed(Exception):
    """The body is not a callback payload (answered 400)."""


async def _read_capped(request: Request) -> bytes:
    # Content-Length may be absent or lie, so the cap is enforced on what arrives.
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise Malformed(f"body over {MAX_BODY_BYTES} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise Malformed(f"body over {MAX_BODY_BYTES} bytes")
    return bytes(body)


def _parse_object(body: bytes) -> dict:
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise Malformed("body is not JSON") from None
    if not isinstance(data, dict):
        raise Malformed("body is not a JSON object")
    if "secretKey" in data and not isinstance(data["secretKey"], str):
        raise Malformed("secretKey is not a string")
    return data


def _parse_payload(data: dict) -> CallbackPayload:
    try:
        payload = CallbackPayload.model_validate(data)
    except ValidationError as error:
        fields = ", ".join(sorted({str(e["loc"][0]) for e in error.errors() if e["loc"]}))
        raise Malformed(f"not a callback payload ({fields or 'shape'})") from None
    if not payload.request_id.strip():
        raise Malformed("requestId is empty")
    return payload


class CallbackListener:
    """The receiver. `expected_secret` is the configured secretKey ("" when none is configured)."""

    def __init__(self, expected_secret: str, *, port: int = 0) -> None:
        self.expected_secret = expected_secret  # replaced when the configured secret changes
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()
        self._sequence = itertools.count(1)
        # Bound now, so the URL is known (and a busy port reported) before serving starts.
        self._socket = socket.create_server((HOST, port))
        self.port: int = self._socket.getsockname()[1]
        self._server = self._make_server()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}{CALLBACK_PATH}"

    @property
    def verifies(self) -> bool:
        """False when no secret is configured: callbacks then cannot be told from forgeries."""
        return bool(self.expected_secret)

    def subscribe(self, subscriber: Subscriber) -> None:
        """Called for every accepted or rejected callback, on the listener's thread or loop."""
        with self._lock:
            self._subscribers.append(subscriber)

    # --- running ---------------------------------------------------------------------

    def _make_server(self):
        import uvicorn

        app = Starlette(routes=[Route(CALLBACK_PATH, self._receive, methods=["POST"])])
        # log_config=None: uvicorn must not reconfigure the app's (redacting) logging.
        config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="off", log_level="warning")
        return uvicorn.Server(config)

    async def serve(self) -> None:
        """In the caller's event loop until `stop()` (or Ctrl+C in the main thread)."""
        await self._server.serve(sockets=[self._socket])

    def start(self) -> CallbackListener:
        """In a background thread; returns once it accepts connections."""
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name=f"giftdesk-listener-{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the callback listener did not start on {HOST}:{self.port}")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=START_TIMEOUT_SECONDS)
            self._thread = None
        self._socket.close()

    def __enter__(self) -> CallbackListener:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- receiving -------------------------------------------------------------------

    async def _receive(self, request: Request) -> JSONResponse:
        try:
            data = _parse_object(await _read_capped(request))
            if not secret_matches(data.get("secretKey", ""), self.expected_secret):
                self._publish(CallbackRejected(next(self._sequence), "secretKey does not match the configured secret"))
                return JSONResponse({"error": "secretKey does not match"}, status_code=SECRET_MISMATCH_STATUS)
            event = CallbackAccepted(next(self._sequence), _parse_payload(data))
        except Malformed as problem:
            log.warning("callback refused (400): %s", problem)
            return JSONResponse({"error": str(problem)}, status_code=400)
        self._publish(event)
        return JSONResponse({"received": event.request_id})

    def _publish(self, event: ListenerEvent) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            try:
                subscriber(event)
            except Exception:  # a subscriber's bug must not turn a good callback into a 500
                log.exception("callback subscriber failed")
