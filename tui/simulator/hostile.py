"""Hostile mode: every free-text field the simulator serves holds text that tries to obey.

`giftdesk sim --hostile` and `SimulatorSettings(hostile=True)`. Each string
field whose name is in `FREE_TEXT_FIELDS`, anywhere in a 2xx JSON answer,
gets one of `HOSTILE_STRINGS` in front of its value (markup tags, escape and
OSC sequences, BEL, CR, backspace, bidi and zero-width characters, a
10,000-character run, emoji and combining marks). The choice depends only on
the seed, the field name and the value, so the same seed serves the same text.

`HostileText` is an ASGI wrapper around the whole application, so an endpoint
added later is covered as soon as its free-text field names are in
`FREE_TEXT_FIELDS` (docs/simulator.md). Statuses, ids the client sends back
(RequestIds, weblinks), codes, numbers and dates are left alone: the service's
state machine and the client's lookups keep working.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LONG_RUN = "W" * 10_000

# Each would change the screen or the terminal if it were obeyed.
HOSTILE_STRINGS: tuple[str, ...] = (
    "Bad [/] brand",
    "[/b] unbalanced",
    "[id 12] tag",
    "[@click=app.quit]x[/]",
    "[link=https://x]y[/link]",
    "[b red]balanced[/b red]",
    "\x1b[2J cleared",
    "\x1b]52;c;ZXZpbA==\x07 clipboard",
    "bell\x07 rings",
    "carriage\r return",
    "back\x08space",
    "\u202eright-to-left",
    "zero\u200bwidth\u200d",
    "emoji 🎁👩\u200d💻",
    "combining e\u0301\u0308",
    LONG_RUN,
)

# Field names of free text, in every answer (catalog, orders, payouts, notifications, and the
# history, transactions and rates endpoints): add a new endpoint's free-text fields here.
FREE_TEXT_FIELDS: frozenset[str] = frozenset(
    {
        "name",
        "description",
        "disclaimer",
        "redemptionInstructions",
        "terms",  # catalog
        "errorMessage",
        "serialNumber",
        "brandCode",
        "orderType",  # orders
        "transactionId",
        "payoutBatchId",  # payouts
        "notificationUrl",
        "notificationUrlSandbox",  # notification configuration
        "clientName",
        "productName",
        "brandName",
        "channel",
        "comment",
        "notes",
        "transactionType",  # history, transactions
    }
)


def hostile_string(seed: int, field: str, value: str) -> str:
    """The hostile string `value` gets for `field` under `seed` (deterministic)."""
    index = zlib.crc32(f"{seed}\0{field}\0{value}".encode()) % len(HOSTILE_STRINGS)
    return HOSTILE_STRINGS[index]


def harden(payload: Any, seed: int, fields: frozenset[str] = FREE_TEXT_FIELDS) -> Any:
    """`payload` (decoded JSON) with a hostile string in front of every free-text field's value.

    An empty string stays empty: it often means "none" (an empty notification URL turns callbacks off).
    """
    if isinstance(payload, list):
        return [harden(item, seed, fields) for item in payload]
    if isinstance(payload, dict):
        return {
            key: f"{hostile_string(seed, key, value)} {value}"
            if key in fields and isinstance(value, str) and value
            else harden(value, seed, fields)
            for key, value in payload.items()
        }
    return payload


class HostileText:
    """ASGI wrapper: rewrites every 2xx JSON answer with `harden`."""

    def __init__(self, app: ASGIApp, seed: int):
        self.app = app
        self.seed = seed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        body = bytearray()

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            body.extend(message.get("body", b""))
            if message.get("more_body"):
                return
            await self._send_rewritten(start, bytes(body), send)

        await self.app(scope, receive, capture)

    async def _send_rewritten(self, start: Message, body: bytes, send: Send) -> None:
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        is_json = any(k.lower() == b"content-type" and v.startswith(b"application/json") for k, v in headers)
        if is_json and 200 <= start["status"] < 300 and body:
            body = json.dumps(harden(json.loads(body), self.seed), ensure_ascii=False).encode()
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body})
