"""The client's transports: each reads an answer whole, bounded in time and size (DESIGN rule 10).

The client puts the request's deadline (a `time.monotonic()` instant) in the request's
extensions (`DEADLINE`); the transport enforces it on every byte, headers included, so a
server dripping a byte a second is cut off at the deadline, and reads the body through
`tui.api.bounds.BoundedBody` (decoded by us, capped: a gzip bomb is never inflated past it).

Why blocking transports at all: httpx's async transport imports anyio on its first
request, which costs a one-shot command tens of milliseconds of a few hundred.
- ThreadedTransport runs each request in a worker thread, so concurrent
  requests stay concurrent (`catalog --all`).
- InlineTransport runs it in the caller: the request never suspends the
  coroutine, so a command can drive the client without an event loop at all
  (tui/commands/runner.py `run_inline`) and need not import asyncio.
A request in a thread cannot be cancelled, so these enforce the deadline at the socket:
every read, write and connect waits at most until it (`_DeadlineBackend`).
- BoundedAsyncTransport is httpx's async transport under an asyncio timeout, for the TUI,
  whose requests are cancelled when a newer one replaces them.
"""

from __future__ import annotations

import contextvars
import time
from typing import Any

import httpcore
import httpx

from tui.api.bounds import AnswerTooLarge, BoundedBody, decoded_headers

DEADLINE = "giftdesk.deadline"  # request extension: the monotonic instant the whole exchange must end by
BODY_CAP = "giftdesk.body_cap"  # request extension: the most decoded bytes the body may have
DEFAULT_BODY_CAP = 32 * 1024 * 1024

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("giftdesk_deadline", default=None)


def _within(timeout: float | None) -> float | None:
    """The socket timeout for one operation: no later than the current request's deadline."""
    deadline_at = _deadline.get()
    if deadline_at is None:
        return timeout
    remaining = deadline_at - time.monotonic()
    if remaining <= 0:
        raise httpcore.ReadTimeout("the request's deadline passed")
    return remaining if timeout is None else min(timeout, remaining)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _within(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _within(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, _within(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's blocking sockets, each operation timed out at the current request's deadline."""

    def __init__(self) -> None:
        self._backend = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(self._backend.connect_tcp(host, port, _within(timeout), local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(self._backend.connect_unix_socket(path, _within(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _bounded_http_transport(verify: bool) -> httpx.HTTPTransport:
    transport = httpx.HTTPTransport(verify=verify)
    # httpx takes no network backend; its pool does (same settings, the deadline-keeping sockets).
    pool = transport._pool
    transport._pool = httpcore.ConnectionPool(ssl_context=pool._ssl_context, network_backend=_DeadlineBackend())
    return transport


def _limits(request: httpx.Request) -> tuple[float | None, int]:
    return request.extensions.get(DEADLINE), request.extensions.get(BODY_CAP, DEFAULT_BODY_CAP)


def _whole(response: httpx.Response, body: bytes) -> httpx.Response:
    """The answer with its decoded body; the headers that described the encoded one dropped."""
    extensions = {key: value for key, value in response.extensions.items() if key in ("http_version", "reason_phrase")}
    return httpx.Response(
        response.status_code, headers=decoded_headers(response.headers), content=body, extensions=extensions
    )


class ThreadedTransport(httpx.AsyncBaseTransport):
    def __init__(self, blocking: httpx.BaseTransport | None = None, *, verify: bool = True) -> None:
        self._blocking = blocking or _bounded_http_transport(verify)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        import asyncio

        return await asyncio.to_thread(self._exchange, request)

    def _exchange(self, request: httpx.Request) -> httpx.Response:
        deadline_at, cap = _limits(request)
        token = _deadline.set(deadline_at)
        try:
            response = self._blocking.handle_request(request)
            try:
                body = BoundedBody(response.headers.get("content-encoding"), cap, deadline_at)
                for chunk in response.stream:  # type: ignore[union-attr]  # a sync transport's stream
                    body.feed(chunk)
                return _whole(response, body.finish())
            finally:
                response.close()
        finally:
            _deadline.reset(token)

    async def aclose(self) -> None:
        self._blocking.close()


class InlineTransport(ThreadedTransport):
    """The same exchange, in the calling thread: the awaiting coroutine never suspends."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return self._exchange(request)


class BoundedAsyncTransport(httpx.AsyncBaseTransport):
    """httpx's async transport; the whole exchange (headers and body) within the deadline, the body capped."""

    def __init__(self, *, verify: bool = True) -> None:
        self._inner = httpx.AsyncHTTPTransport(verify=verify)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        import asyncio

        deadline_at, cap = _limits(request)
        remaining = None if deadline_at is None else max(0.0, deadline_at - time.monotonic())
        try:
            async with asyncio.timeout(remaining):
                response = await self._inner.handle_async_request(request)
                try:
                    body = BoundedBody(response.headers.get("content-encoding"), cap, deadline_at)
                    async for chunk in response.stream:  # type: ignore[union-attr]  # an async transport's stream
                        body.feed(chunk)
                    return _whole(response, body.finish())
                finally:
                    await response.aclose()
        except TimeoutError:
            raise httpx.ReadTimeout("the request's deadline passed", request=request) from None

    async def aclose(self) -> None:
        await self._inner.aclose()


async def read_answer(response: httpx.Response, cap: int, deadline_at: float | None) -> httpx.Response:
    """A streamed response read whole through BoundedBody (the client's one way of reading answers):
    bounded whatever transport sent it. Ours hand it over read already (decoded and capped)."""
    try:
        content = response.content
    except httpx.ResponseNotRead:
        pass
    else:
        if len(content) > cap:
            raise AnswerTooLarge
        return response
    try:
        body = BoundedBody(response.headers.get("content-encoding"), cap, deadline_at)
        async for chunk in response.aiter_raw():
            body.feed(chunk)
        content = body.finish()
    finally:
        await response.aclose()
    return httpx.Response(
        response.status_code,
        headers=decoded_headers(response.headers),
        content=content,
        request=response.request,
        extensions=response.extensions,
    )
