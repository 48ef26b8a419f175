"""Transports that fail the way a network does, around real requests to the simulator."""

from __future__ import annotations

import httpx


class FailAfter(httpx.AsyncBaseTransport):
    """Real requests to the simulator, then the connection is gone for good after `allowed` of them."""

    def __init__(self, allowed: int):
        self.allowed = allowed
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request):
        if self.allowed <= 0:
            raise httpx.ConnectError("the network went away", request=request)
        self.allowed -= 1
        return await self.inner.handle_async_request(request)
