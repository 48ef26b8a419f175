"""httpx's blocking transport behind the async client, for one-shot commands.

Why: httpx's async transport imports anyio on its first request, which costs
a one-shot command tens of milliseconds of a few hundred.
- ThreadedTransport runs each request in a worker thread, so concurrent
  requests stay concurrent (`catalog --all`).
- InlineTransport runs it in the caller: the request never suspends the
  coroutine, so a command can drive the client without an event loop at all
  (tui/commands/common.py `run_inline`) and need not import asyncio.
The TUI keeps the default async transport: a request in a thread cannot be
cancelled, only waited for (up to its timeout), which a long-lived
interactive app must not do.
"""

from __future__ import annotations

import httpx


class ThreadedTransport(httpx.AsyncBaseTransport):
    def __init__(self, blocking: httpx.BaseTransport | None = None, *, verify: bool = True) -> None:
        self._blocking = blocking or httpx.HTTPTransport(verify=verify)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        import asyncio

        return await asyncio.to_thread(self._exchange, request)

    def _exchange(self, request: httpx.Request) -> httpx.Response:
        response = self._blocking.handle_request(request)
        try:
            body = response.read()  # decoded here, so the encoding headers no longer apply
        finally:
            response.close()
        headers = [(name, value) for name, value in response.headers.multi_items()
                   if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
        extensions = {key: value for key, value in response.extensions.items()
                      if key in ("http_version", "reason_phrase")}
        return httpx.Response(response.status_code, headers=headers, content=body, extensions=extensions)

    async def aclose(self) -> None:
        self._blocking.close()


class InlineTransport(ThreadedTransport):
    """The same exchange, in the calling thread: the awaiting coroutine never suspends."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return self._exchange(request)
