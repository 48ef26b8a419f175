"""ThreadedTransport: the blocking transport behind an async client, byte for byte."""

from __future__ import annotations

import gzip
import json

import httpx

from tui.api.client import ServiceClient
from tui.api.transport import ThreadedTransport


async def test_requests_and_encoded_answers_pass_through_unchanged():
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = gzip.compress(json.dumps({"status": "Pending", "note": "é"}).encode())
        return httpx.Response(
            200, headers={"Content-Encoding": "gzip", "Content-Type": "application/json"}, content=body
        )

    transport = ThreadedTransport(httpx.MockTransport(handler))
    # A realistic secret: it joins the process-wide redaction list, and a common word there would mask other tests' text.
    async with ServiceClient("http://svc.test", "id", "transport-test-secret-7", transport=transport) as client:
        payout = await client.payout_status("https://pay.example.test/payout/tok12%3D")
    assert payout.status == "Pending" and payout.model_extra == {"note": "é"}
    assert seen[0].url.raw_path == b"/api/Integration/v2/payout/status/tok12%3D"
    assert seen[0].headers["Accept"] == "application/json"
