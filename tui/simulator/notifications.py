"""Notification configuration per client, and callback delivery with retries."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from .order_records import Order, wire_time
from .settings import Timing

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("giftdesk.simulator")

FIELDS = ("notificationUrl", "notificationUrlSandbox", "secretKey")


class NotificationConfigInvalid(ValueError):
    """A POST notification body that is not an object of strings."""


class Notifier:
    def __init__(self, timing: Timing):
        self.timing = timing
        self.configs: dict[str, dict[str, str | None]] = {}  # client -> config; shared by its environments
        self.attempts: list[dict] = []  # every delivery attempt, for inspection
        self._tasks: set[asyncio.Task] = set()

    def get(self, client: str) -> dict[str, str | None]:
        """As the provider answers: null for a field never set."""
        return dict(self.configs.get(client) or dict.fromkeys(FIELDS))

    def set(self, client: str, body: object) -> dict[str, str | None]:
        """POST replaces all three fields; a missing field is stored as null (never set), as the provider does."""
        if not isinstance(body, dict):
            raise NotificationConfigInvalid("InvalidRequest")
        config = {}
        for name in FIELDS:
            value = body.get(name)
            if value is not None and not isinstance(value, str):
                raise NotificationConfigInvalid("InvalidRequest")
            config[name] = value
        self.configs[client] = config
        return dict(config)

    def schedule(self, order: Order) -> None:
        """Deliver the order's callback once it is final (runs in the server loop)."""
        task = asyncio.get_running_loop().create_task(self._deliver_when_final(order))
        self._tasks.add(task)  # keep a reference until done
        task.add_done_callback(self._tasks.discard)

    async def _deliver_when_final(self, order: Order) -> None:
        await asyncio.sleep(max(order.final_at - order.elapsed(), 0.0))
        # Read the configuration when the order is final, as a real service would.
        config = self.get(order.credential.client)
        url = config["notificationUrlSandbox" if order.credential.environment == "sandbox" else "notificationUrl"]
        # SPEC: an empty notificationUrl disables notifications (both environments).
        if not config["notificationUrl"] or not url:
            return
        await self._post_with_retries(url, callback_payload(order, config["secretKey"] or ""))

    async def _post_with_retries(self, url: str, payload: dict) -> None:
        import httpx  # with the first callback: a simulator that sends none (the demo's, at start) never loads it

        t = self.timing
        async with httpx.AsyncClient(timeout=t.callback_timeout_seconds) as http:
            for attempt in range(1, t.callback_attempts + 1):
                outcome = await _post_once(http, url, payload)
                self.attempts.append(
                    {
                        "url": url,
                        "requestId": payload["requestId"],
                        "attempt": attempt,
                        "outcome": outcome,
                        "at": time.monotonic(),
                    }
                )
                if isinstance(outcome, int) and 200 <= outcome < 300:
                    return
                if attempt < t.callback_attempts:
                    await asyncio.sleep(t.callback_backoff_seconds * 2 ** (attempt - 1))
        log.warning("callback for order %s gave up after %d attempts", payload["orderId"], t.callback_attempts)


async def _post_once(http: httpx.AsyncClient, url: str, payload: dict) -> int | str:
    import httpx

    try:
        response = await http.post(url, json=payload)
    except httpx.HTTPError as error:
        return type(error).__name__
    return response.status_code


def callback_payload(order: Order, secret_key: str) -> dict:
    return {
        "orderId": order.order_id,
        # DESIGN: the provider sends the status in lower case; clients compare case-insensitively.
        "status": order.final_status().lower(),
        "totalCards": len(order.cards),
        "createdOn": wire_time(order.created_wall),
        "completedOn": wire_time(order.completed_wall()),
        "secretKey": secret_key,
        "requestId": order.request_id,
    }
