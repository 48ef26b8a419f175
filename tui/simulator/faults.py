"""Injected faults for resilience tests: latency, 5xx, 429, dropped connections.

`--faults "latency=50ms,5xx=0.1,drop=0.05,429=0.1"`. The n-th request to
one method and raw path draws from a generator seeded with (seed, method,
path, n): the same seed and the same requests meet the same faults, however
other requests (polls, say) interleave.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class FaultSpec:
    latency_seconds: float = 0.0  # added before every request
    error_rate: float = 0.0  # "5xx": 503 before the handler runs (nothing recorded)
    throttle_rate: float = 0.0  # "429": 429 before the handler runs
    drop_rate: float = 0.0  # "drop": handler runs, then the connection closes with no response
    retry_after: int | None = None  # Retry-After header on injected 429s

    @classmethod
    def parse(cls, text: str | None) -> FaultSpec:
        spec: dict = {}
        for part in filter(None, (p.strip() for p in (text or "").split(","))):
            name, _, value = part.partition("=")
            name, value = name.strip().lower(), value.strip()
            try:
                if name == "latency":
                    spec["latency_seconds"] = _duration(value)
                elif name in ("5xx", "429", "drop"):
                    rate = float(value)
                    if not 0.0 <= rate <= 1.0:
                        raise ValueError
                    spec[{"5xx": "error_rate", "429": "throttle_rate", "drop": "drop_rate"}[name]] = rate
                elif name == "retry-after":
                    spec["retry_after"] = int(value)
                else:
                    raise KeyError(name)
            except KeyError:
                raise ValueError(f"unknown fault {name!r}; known: latency, 5xx, 429, drop, retry-after") from None
            except ValueError:
                raise ValueError(f"bad value for fault {name!r}: {value!r}") from None
        return cls(**spec)

    @property
    def active(self) -> bool:
        return any((self.latency_seconds, self.error_rate, self.throttle_rate, self.drop_rate))


def _duration(text: str) -> float:
    """'50ms', '0.2s' or a bare number of milliseconds."""
    if text.endswith("ms"):
        return float(text[:-2]) / 1000
    if text.endswith("s"):
        return float(text[:-1])
    return float(text) / 1000


def fault_draws(seed: int, method: str, raw_path: bytes, number: int) -> tuple[float, float, float]:
    """The draws (429, 5xx, drop) that the `number`-th request (from 0) to one method and raw path meets:
    a fault happens when its draw is below its rate. Tests choose a seed by them."""
    draw = random.Random(f"{seed}:{method}:{raw_path!r}:{number}").random
    return draw(), draw(), draw()


class FaultInjector:
    """ASGI middleware; must wrap the app directly under uvicorn (see _drop_connection)."""

    def __init__(self, app, spec: FaultSpec, seed: int):
        self.app = app
        self.spec = spec
        self.seed = seed
        self._counters: dict[tuple[str, bytes], itertools.count] = {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        key = (scope["method"], scope.get("raw_path", b""))
        number = next(self._counters.setdefault(key, itertools.count()))
        throttle, error, drop = (
            value < rate
            for value, rate in zip(
                fault_draws(self.seed, *key, number),
                (self.spec.throttle_rate, self.spec.error_rate, self.spec.drop_rate),
                strict=True,
            )
        )
        if self.spec.latency_seconds:
            await asyncio.sleep(self.spec.latency_seconds)
        if throttle:
            headers = (
                [(b"retry-after", str(self.spec.retry_after).encode())] if self.spec.retry_after is not None else []
            )
            return await _respond(send, 429, b"", headers)
        if error:
            return await _respond(
                send,
                503,
                json.dumps("Service unavailable (simulated fault)").encode(),
                [(b"content-type", b"application/json")],
            )
        if drop:
            await self.app(scope, receive, _discard)
            return await _drop_connection(receive)
        return await self.app(scope, receive, send)


async def _respond(send, status: int, body: bytes, headers: list) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _discard(message) -> None:
    """Swallows the handler's response: the client never sees it."""


async def _drop_connection(receive) -> None:
    # uvicorn's `receive` is a bound method of its request cycle, which holds
    # the transport. Closing it ends the connection with no response at all.
    transport = getattr(getattr(receive, "__self__", None), "transport", None)
    if transport is None:
        raise RuntimeError("drop fault needs uvicorn's receive (no middleware in between)")
    transport.close()
    await asyncio.sleep(0.01)  # let uvicorn see the disconnect before we return
