"""ThreadedTransport: httpx's blocking transport, run in worker threads, for one-shot commands.

Why: httpx's async transport imports anyio on its first request, which costs
a one-shot command tens of milliseconds of a few hundred. Threads keep
concurrent requests concurrent (`catalog --all`). The TUI keeps the default
async transport: a request in a thread cannot be cancelled, only waited for
(up to its timeout), which a long-lived interactive app must not do.
"""

from __future__ import annotations

import asyncio

import httpx


class ThreadedTransport(httpx.AsyncBaseTransport):
    def __init__(self, **transport_options) -> None:
        self._blocking = httpx.HTTPTransport(**transport_options)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await asyncio.to_thread(self._exchange, request)

    def _exchange(self, request: httpx.Request) -> httpx.Response:
        response = self._blocking.handle_request(request)
        try:
            # Raw bytes, still content-encoded: the async client decodes them once, as usual.
            body = b"".join(response.iter_raw())
        finally:
            response.close()
        return httpx.Response(response.status_code, headers=response.headers, content=body,
                              extensions={k: v for k, v in response.extensions.items() if k in ("http_version", "reason_phrase")})

    async def aclose(self) -> None:
        self._blocking.close()
