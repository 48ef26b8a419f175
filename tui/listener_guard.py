"""What keeps the receiver standing when senders without credentials come (docs/receiver.md, threat model).

- `ConnectionGuard` with `guarded_protocol`: uvicorn's HTTP/1.1 protocol (h11) with
  deadlines (a request's headers within `header_seconds` of the connection or of the
  previous response, its body within `body_seconds` of its headers) and a cap on open
  connections below the process's file limit. At the cap, the connection that has waited
  longest without sending a complete request is closed to make room, so a new one
  (`/health`, a genuine delivery) always gets in and slow senders are the ones that go.
  uvicorn has neither (docs/decisions.md).
- `UnverifiedBudget`: refused deliveries, whatever their source, spend one shared budget;
  once it is spent, sources that have not delivered a verified delivery lately get 429
  before their body is read.
- `RefusalSample`: refused deliveries are counted per reason and source; only the first
  few per reason per hour are kept in the inbox (with the counts said once an hour).

No Textual.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("giftdesk.receiver")

ACCEPT_BATCH = 32  # asyncio accepts up to the listen backlog at once, before any is counted: kept small
# Files left beyond the cap: one accept batch, and the inbox, the team database's pool, logs, the socket.
FILES_KEPT_BACK = ACCEPT_BATCH + 64
SWEEP_SECONDS = 0.5  # how often deadlines are checked


def connection_cap(wanted: int | None = None) -> int:
    """Open connections allowed: `wanted`, or as many as the file limit leaves room for."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    room = max(8, soft - FILES_KEPT_BACK) if soft != resource.RLIM_INFINITY else 10_000
    return min(wanted, room) if wanted else room


@dataclass
class _Timing:
    waiting_since: float  # the connection's start, or its last response's end: a request's headers are due
    request_at: float = 0.0  # when the current request's headers were complete
    cycle: Any = None  # the request seen last (uvicorn's RequestResponseCycle)


class ConnectionGuard:
    """The open connections of one server, their deadlines, and the cap."""

    def __init__(self, cap: int, header_seconds: float, body_seconds: float) -> None:
        self.cap = cap
        self.header_seconds = header_seconds
        self.body_seconds = body_seconds
        self._open: OrderedDict[H11Protocol, _Timing] = OrderedDict()
        self._sweeper: asyncio.TimerHandle | None = None
        self.closed_late = 0  # connections closed for a deadline (tests, metrics)
        self.closed_for_room = 0  # connections closed at the cap

    @property
    def open_connections(self) -> int:
        return len(self._open)

    def opened(self, connection: H11Protocol) -> None:
        now = time.monotonic()
        if len(self._open) >= self.cap:
            self._make_room(connection)
        self._open[connection] = _Timing(now)
        if self._sweeper is None:
            self._sweeper = connection.loop.call_later(SWEEP_SECONDS, self._sweep, connection.loop)

    def closed(self, connection: H11Protocol) -> None:
        self._open.pop(connection, None)

    def answered(self, connection: H11Protocol) -> None:
        timing = self._open.get(connection)
        if timing is not None:
            timing.waiting_since = time.monotonic()

    def received(self, connection: H11Protocol) -> None:
        timing = self._open.get(connection)
        if timing is not None and connection.cycle is not timing.cycle:  # a new request's headers are in
            timing.cycle = connection.cycle
            timing.request_at = time.monotonic()

    def _make_room(self, newcomer: H11Protocol) -> None:
        for connection, timing in self._open.items():  # oldest first
            if _waiting(connection, timing):
                self.closed_for_room += 1
                self._close(connection)
                return
        # Every one is in the middle of a request: the newcomer waits its turn (the sender retries).
        self.closed_for_room += 1
        newcomer.transport.abort()

    def _close(self, connection: H11Protocol) -> None:
        self._open.pop(connection, None)
        connection.transport.abort()  # no FIN handshake to wait for: the file is released now

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        self._sweeper = None
        now = time.monotonic()
        for connection, timing in list(self._open.items()):
            if connection.transport.is_closing():
                continue
            if _waiting(connection, timing):
                late = now - timing.waiting_since > self.header_seconds
            else:
                late = bool(connection.cycle.more_body) and now - timing.request_at > self.body_seconds
            if late:
                self.closed_late += 1
                self._close(connection)
        if self._open:
            self._sweeper = loop.call_later(SWEEP_SECONDS, self._sweep, loop)


def _waiting(connection: H11Protocol, timing: _Timing) -> bool:
    """No request of this connection is being read or answered: its next request's headers are due."""
    cycle = connection.cycle
    return cycle is None or (cycle is timing.cycle and cycle.response_complete)


def guarded_protocol(guard: ConnectionGuard) -> type[H11Protocol]:
    """uvicorn's h11 protocol reporting to `guard` (uvicorn takes a protocol class as `http`)."""

    class GuardedH11Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            guard.opened(self)

        def connection_lost(self, exc: Exception | None) -> None:
            guard.closed(self)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            guard.received(self)

        def on_response_complete(self) -> None:
            guard.answered(self)
            super().on_response_complete()

    return GuardedH11Protocol


# --- unauthenticated traffic ------------------------------------------------------------------------

TRUSTED_SOURCES_REMEMBERED = 1_000
TRUSTED_FOR_SECONDS = 3600.0


class UnverifiedBudget:
    """A token bucket that every refused delivery spends from, whatever its address."""

    def __init__(self, per_second: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = per_second
        self.burst = float(burst)
        self._clock = clock
        self._tokens = self.burst
        self._at = clock()
        self._trusted: OrderedDict[str, float] = OrderedDict()  # source -> when it last delivered a verified one

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.per_second)
        self._at = now

    def wait_needed(self, source: str) -> float:
        """0 when a request from `source` may be read, else seconds until the budget allows it."""
        trusted_at = self._trusted.get(source)
        if trusted_at is not None and self._clock() - trusted_at < TRUSTED_FOR_SECONDS:
            return 0.0
        self._refill()
        return 0.0 if self._tokens >= 1.0 else (1.0 - self._tokens) / self.per_second

    def refused(self) -> None:
        self._refill()
        self._tokens = max(-self.burst, self._tokens - 1.0)  # a burst past zero is paid back before more

    def verified(self, source: str) -> None:
        self._trusted.pop(source, None)
        self._trusted[source] = self._clock()
        if len(self._trusted) > TRUSTED_SOURCES_REMEMBERED:
            del self._trusted[next(iter(self._trusted))]


# --- refused deliveries: counted, a sample kept -------------------------------------------------------

SAMPLE_PER_REASON_PER_HOUR = 20
SOURCES_COUNTED = 10_000  # (reason, source) pairs counted in an hour; beyond it, counted as "(other sources)"
SOURCES_SAID = 5


class RefusalSample:
    """Counts refusals per reason and source within the hour; says which ones the inbox keeps."""

    def __init__(self, per_reason: int = SAMPLE_PER_REASON_PER_HOUR, clock: Callable[[], float] = time.time) -> None:
        self.per_reason = per_reason
        self._clock = clock
        self._hour = int(clock() // 3600)
        self.by_reason: Counter[str] = Counter()
        self.by_source: Counter[tuple[str, str]] = Counter()

    def count(self, reason: str, source: str) -> bool:
        """Count this refusal; True when the inbox keeps it (one of the first of its reason this hour)."""
        hour = int(self._clock() // 3600)
        if hour != self._hour:
            self.say_hour()
            self._hour = hour
            self.by_reason.clear()
            self.by_source.clear()
        self.by_reason[reason] += 1
        key = (reason, source)
        if key in self.by_source or len(self.by_source) < SOURCES_COUNTED:
            self.by_source[key] += 1
        else:
            self.by_source[(reason, "(other sources)")] += 1
        return self.by_reason[reason] <= self.per_reason

    def say_hour(self) -> None:
        """One log line for the hour's refusals beyond the sample kept."""
        dropped = sum(max(0, count - self.per_reason) for count in self.by_reason.values())
        if not dropped:
            return
        reasons = ", ".join(f"{reason}: {count}" for reason, count in self.by_reason.most_common())
        sources = ", ".join(f"{source} ({count})" for (_, source), count in self.by_source.most_common(SOURCES_SAID))
        log.warning(
            "refused deliveries this hour: %s; %d not kept beyond the first %d per reason; most from: %s",
            reasons,
            dropped,
            self.per_reason,
            sources,
        )


class AcceptsAtTheLimit(logging.Filter):
    """asyncio logs an error with its traceback for every accept() refused at the open-files limit (then pauses
    accepting for a second): under a flood of connections, many a second. One line of ours a minute instead;
    the guard meanwhile closes the slowest connections to make room."""

    def __init__(self, every_seconds: float = 60.0) -> None:
        super().__init__()
        self.every_seconds = every_seconds
        self._said: float | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if "accept() out of system resource" not in record.getMessage():
            return True
        now = time.monotonic()
        if self._said is None or now - self._said >= self.every_seconds:
            self._said = now
            log.warning("at the open-files limit: new connections wait a second (the slowest are being closed)")
        return False


def say_accepts_at_the_limit_once() -> None:
    """Installed once per process, on asyncio's own logger."""
    asyncio_log = logging.getLogger("asyncio")
    if not any(isinstance(f, AcceptsAtTheLimit) for f in asyncio_log.filters):
        asyncio_log.addFilter(AcceptsAtTheLimit())
