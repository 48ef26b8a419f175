"""Figures 31 and 32 (issue 27): a busy hour under the provider's limits, and the limiter's own cost.

    .venv/bin/python -m bench.busy_hour [--quick]

(31) A busy hour, compressed: every limit of the table is SCALE times faster
on both sides (the simulator enforces the scaled table, the client keeps it
through GIFTDESK_LIMITS), and so are the copies' keeping times and the watch
list's polling, so an hour takes 3600/SCALE seconds and every ratio holds.
Meanwhile, on one profile: the watch list follows 200 Pending orders; the
Orders board opens on 7 days and stays open; the ledger on 7 days is opened
10 times and the rates 30 times, and both stay open between (an open screen
refreshes by itself when its local copy falls due, as the TUI's do:
Answer.renew_in); the catalog mirror syncs in full; and a shell loop runs
`giftdesk order show` 50 times, one process after another, sharing the
profile's budget through its SQLite limiter. The figure is the number of 429
answers the service gave (target 0), beside the requests made; printed too:
the requests per endpoint beside what the limit allows in the hour, how long
the shell loop and the sync took, and each screen's staleness at the hour's
end (in the hour's minutes: the age of its newest data; the watch list's, of
its least recently looked-at order) beside how old the limits let it get.

(33, 34) The same hour with the service away for 5 of its minutes, in its middle (issue 35): the
client reaches the simulator through a gate (tui-free TCP forwarding) that is shut (its port refuses
connections, open ones are cut) and opened again on the same port, so the simulator's state survives.
(33) is the 429 answers of that hour (target 0: an outage spends none of the budget, and what it held
back is not sent in a burst); (34) the worst screen's staleness at the hour's end against its limit plus
the outage (target at most 1x: every screen got fresh data back as soon as the limits allowed).

(32) The limiter's cost per request: Get order through the client (its
limiter booking in the profile's SQLite file, limits far away) against a bare
httpx.AsyncClient making the same request, on one loopback simulator
without limits, interleaved; the ratio of the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from bench.common import Figure, interleaved, median, print_figures, private_dirs
from tui.api.limits import GET_ORDER, ORDER_HISTORY, TRANSACTIONS
from tui.local import report_copies
from tui.local.report_copies import RATES_KEPT_FOR, UNLIMITED_KEPT_FOR

SCALE = 30  # an hour in two minutes: the shell loop's 50 processes fit in it on a loaded machine
OUTAGE_MINUTES = 5.0  # of the hour, in its middle (figures 33 and 34)
ORDERS = 200
SHELL_SHOWS = 50


def scaled_limits(scale: float) -> tuple[str, tuple[tuple[str, int, float], ...]]:
    """GIFTDESK_LIMITS for the client and the simulator's table, both `scale` times faster."""
    from tui.api.limits import DEFAULT_LIMITS

    client = ",".join(f"{name}={limit.requests}/{limit.seconds / scale:g}s" for name, limit in DEFAULT_LIMITS.items())
    return client, tuple((name, limit.requests, limit.seconds / scale) for name, limit in DEFAULT_LIMITS.items())


def place_pending_orders(sim, credential) -> list[str]:
    """ORDERS orders with a Paused card (.14) that never resumes: Pending all hour. Placed before the hour,
    as fast as the simulator admits them (its 429s before the hour are not counted)."""
    import httpx

    ids = []
    with httpx.Client(base_url=sim.base_url, auth=credential.auth) as http:
        while len(ids) < ORDERS:
            request_id = str(uuid.uuid4())
            body = {
                "RequestId": request_id,
                "AccountId": 1001,
                "Products": [{"ProductId": 201, "Quantity": 1, "Value": 25.14}],
            }
            answer = http.post("/api/integration/v1.0/orders/checkout", json=body)
            if answer.status_code == 429:
                time.sleep(float(answer.headers["Retry-After"]))
                continue
            answer.raise_for_status()
            ids.append(request_id)
    return ids


class Gate:
    """The service's door: TCP forwarded to the simulator, shut (the port refuses connections, open ones
    are cut) and opened again on the same port: an outage that the simulator's state survives."""

    def __init__(self, target_port: int) -> None:
        import socket

        self.target_port = target_port
        with socket.socket() as probe:  # a free port, known before the hour's loop starts
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def open(self) -> None:
        self._server = await asyncio.start_server(self._forward, "127.0.0.1", self.port, reuse_address=True)

    async def shut(self) -> None:
        if self._server is not None:
            self._server.close()
            for writer in list(self._open):
                writer.close()
            await self._server.wait_closed()
            self._server = None

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self._open |= {writer, upstream_writer}

        async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except OSError:
                pass
            finally:
                sink.close()
                self._open.discard(sink)

        # Cancelled when the hour's loop ends: its end, not a failure (asyncio's server would print it as one).
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(copy(reader, upstream_writer), copy(upstream_reader, writer))


@dataclass
class Hour:
    """What the bench saw at the hour's end."""

    staleness: dict[str, float]  # each screen's age at the end, seconds (real, compressed)
    limits: dict[str, float]  # how old each screen may get under the limits, seconds (real, compressed)
    shell_seconds: float  # how long the shell loop took
    sync_seconds: float  # how long the mirror's full sync took


async def busy_hour(sim, profile, ids: list[str], scale: float, gate: Gate | None = None) -> Hour:
    """The hour's work on one profile, with each screen's staleness at the hour's end; with a `gate`, the
    service is away for OUTAGE_MINUTES in the hour's middle (a screen whose refresh failed tries again
    after freshness.RETRY_SECONDS, a failed sync resumes, as the TUI's do)."""
    from tui.api.errors import ServiceError
    from tui.api.limiter import margin
    from tui.commands.runner import build_client
    from tui.core.dates import DayRange
    from tui.core.polling import Backoff
    from tui.core.watching import Watched, WatchScheduler, budget_for, client_fetch, looked_again_within
    from tui.local.limit_store import profile_database
    from tui.local.mirror import Mirror, mirror_path
    from tui.local.mirror_sync import sync
    from tui.local.report_copies import ReportCopies
    from tui.screens.freshness import RETRY_SECONDS

    # The copies' keeping times and the watch list's polling, compressed like the limits.
    report_copies.RATES_KEPT_FOR = RATES_KEPT_FOR / scale
    report_copies.UNLIMITED_KEPT_FOR = UNLIMITED_KEPT_FOR / scale
    backoff = Backoff(first=Backoff.first / scale, cap=Backoff.cap / scale)
    client = build_client(profile, concurrent=True)
    client.on_wait = None
    copies = ReportCopies(profile_database(profile.name, profile.environment), client.limiter.limits)
    today = date.today()
    week = DayRange(today - timedelta(days=6), today)
    hour = 3600 / scale
    if gate is not None:
        await gate.open()
    started = time.time()

    async def fetch():
        return client

    looked: dict[str, float] = {}  # each watched order's last look

    async def look_at(item):
        observation = await client_fetch(fetch)(item)
        looked[item.reference] = time.time()
        return observation

    budget = budget_for(client.limiter.limits)
    scheduler = WatchScheduler(look_at, lambda item, observation: None, budget=budget, backoff=backoff)
    for index, request_id in enumerate(ids):
        scheduler.add(Watched(index, "order", request_id, profile.name))
    reads = {
        "board": lambda: copies.order_history(client, week),
        "ledger": lambda: copies.transactions(client, week.start, week.end),
        "rates": lambda: copies.exchange_rates(client),
    }
    fetched: dict[str, float] = {}  # each screen's newest data: when it came from the service
    one_at_a_time = {screen: asyncio.Lock() for screen in reads}  # a screen's looks never overlap (its worker)

    async def look(screen: str):
        async with one_at_a_time[screen]:
            answer = await reads[screen]()
        fetched[screen] = max(fetched.get(screen, 0.0), answer.fetched)
        return answer

    async def left_open(screen: str) -> None:
        """A screen left open looks again when its copy falls due, as the TUI's do (Answer.renew_in);
        after a failed look, RETRY_SECONDS later."""
        while True:
            try:
                wait = (await look(screen)).renew_in()
            except ServiceError:
                wait = RETRY_SECONDS / scale
            if wait is None:
                return
            await asyncio.sleep(wait)

    async def opened(screen: str, times: int) -> None:
        """Opened `times` in the hour, evenly: each opening takes the copy (one that fails is said, and passed)."""
        for n in range(times):
            await asyncio.sleep(max(0.0, started + n * hour / times - time.time()))
            with contextlib.suppress(ServiceError):
                await look(screen)

    async def mirror_sync() -> float:
        while True:
            try:
                with Mirror(mirror_path(profile.name, profile.environment)) as mirror:
                    await sync(mirror, client, full=True)
                return time.time() - started
            except ServiceError:  # the service away: the full walk goes on from the pages it kept
                await asyncio.sleep(RETRY_SECONDS / scale)

    async def outage() -> None:
        assert gate is not None
        seconds = OUTAGE_MINUTES * 60 / scale
        await asyncio.sleep(max(0.0, started + (hour - seconds) / 2 - time.time()))
        await gate.shut()
        await asyncio.sleep(seconds)
        await gate.open()

    async def shell_loop() -> float:
        """A runbook's loop of `giftdesk order show`, one process after another, as fast as it goes."""
        giftdesk = Path(sys.executable).with_name("giftdesk")
        shell = await asyncio.create_subprocess_exec(
            "sh",
            "-c",
            f"for i in $(seq {SHELL_SHOWS}); do {giftdesk} order show {ids[0]} --json > /dev/null; done",
            stderr=subprocess.DEVNULL,
        )
        await shell.wait()
        return time.time() - started

    tasks = [
        asyncio.create_task(work)
        for work in (
            scheduler.run(),
            *(left_open(screen) for screen in reads),
            opened("ledger", 10),
            opened("rates", 30),
            *([outage()] if gate is not None else []),
        )
    ]
    shell, syncing = asyncio.create_task(shell_loop()), asyncio.create_task(mirror_sync())
    await asyncio.sleep(max(0.0, started + hour - time.time()))
    end = time.time()
    staleness = {screen: end - at for screen, at in fetched.items()}
    staleness["watch list"] = end - min(looked.get(request_id, started) for request_id in ids)  # its oldest
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    shell_seconds, sync_seconds = await shell, await syncing
    await client.aclose()
    if gate is not None:
        await gate.shut()
    get_order = client.limiter.limits[GET_ORDER]
    limits = {
        "ledger": copies.kept_for(TRANSACTIONS),
        "rates": report_copies.RATES_KEPT_FOR,
        "board": copies.kept_for(ORDER_HISTORY),
        # What the Watch screen says (one round of the orders at the budget), with the limiter's margin:
        # it keeps each of Get order's windows 1% longer (tui.api.limiter.margin).
        "watch list": looked_again_within(len(ids), budget, backoff) * (1 + margin(get_order) / get_order.seconds),
    }
    return Hour(staleness, limits, shell_seconds, sync_seconds)


def hour_figures(quick: bool, outage: bool = False) -> list[Figure]:
    """Figure 31 (the hour), or with `outage` figures 33 and 34 (the hour with the service away for OUTAGE_MINUTES)."""
    from tui.api.limits import DEFAULT_LIMITS
    from tui.local.config import SecretSource
    from tui.local.profiles import make_profile
    from tui.simulator import TIMING_PRESETS, SimulatorServer, SimulatorSettings, demo_credential

    scale = SCALE * (2 if quick else 1)
    hour = 3600 / scale
    client_limits, sim_limits = scaled_limits(scale)
    credential = demo_credential("acme-sandbox")
    timing = TIMING_PRESETS["fast"].replace(pause_seconds=1e6)
    settings = SimulatorSettings(brands=2000, history=200, timing=timing, limits=sim_limits)
    with private_dirs(), SimulatorServer(settings) as sim:
        gate = Gate(sim.port) if outage else None
        base_url = gate.base_url if gate is not None else sim.base_url
        os.environ.update(
            {
                "GIFTDESK_LIMITS": client_limits,
                "GIFTDESK_BASE_URL": base_url,
                "GIFTDESK_CLIENT_ID": credential.client_id,
                "GIFTDESK_CLIENT_SECRET": credential.client_secret,
            }
        )
        try:
            profile = make_profile(
                name="env",
                environment="sandbox",
                base_url=base_url,
                client_id=credential.client_id,
                secret=SecretSource(kind="env", ref="GIFTDESK_CLIENT_SECRET"),
            )
            ids = place_pending_orders(sim, credential)
            hour_started = len(sim.requests())
            seen = asyncio.run(busy_hour(sim, profile, ids, scale, gate))
        finally:
            for name in ("GIFTDESK_LIMITS", "GIFTDESK_BASE_URL", "GIFTDESK_CLIENT_ID", "GIFTDESK_CLIENT_SECRET"):
                os.environ.pop(name, None)
            report_copies.RATES_KEPT_FOR, report_copies.UNLIMITED_KEPT_FOR = RATES_KEPT_FOR, UNLIMITED_KEPT_FOR
        log = sim.requests()[hour_started:]
    refused = sum(1 for logged in log if logged.status == 429)
    spent = Counter(logged.endpoint for logged in log)
    minutes = scale / 60  # real seconds -> the hour's minutes
    away = OUTAGE_MINUTES * 60 / scale if outage else 0.0  # real seconds
    with_outage = f" with the service away {OUTAGE_MINUTES:g} min in its middle" if outage else ""
    print(f"busy hour{with_outage} in {hour:.0f} s ({scale}x): requests per endpoint beside what the limit allows")
    for endpoint, count in sorted(spent.items()):
        limit = DEFAULT_LIMITS.get(endpoint)
        allowed = f"{limit.requests * 3600 / limit.seconds:.0f} ({limit})" if limit else "no limit"
        print(f"  {endpoint:15} {count:6}   allowed {allowed}")
    print(
        f"the shell loop's {SHELL_SHOWS} order shows took {seen.shell_seconds * minutes:.1f} min, the mirror's full sync "
        f"{seen.sync_seconds * minutes:.1f} min (of the hour's 60)"
    )
    print("staleness at the hour's end (today's data), in the hour's minutes, beside how old the limits let it get:")
    worst = 0.0
    for screen, age in sorted(seen.staleness.items()):
        limit = seen.limits[screen] + away
        worst = max(worst, age / limit)
        verdict = "within" if age <= limit else f"OVER by {(age - limit) * minutes:.2f} min"
        print(
            f"  {screen:11} {age * minutes:6.2f} min   limit {limit * minutes:6.2f} min   {age / limit:5.2f}x  {verdict}"
        )
    summary = ", ".join(f"{endpoint} {count}" for endpoint, count in sorted(spent.items()))
    refusals = Figure(
        33 if outage else 31,
        f"busy hour{with_outage} ({scale}x): 429 answers (requests: {summary})",
        refused,
        len(log),
        "requests in the hour",
        "",
        0,
        limit_on="value",
    )
    if not outage:
        return [refusals]
    staleness = Figure(
        34,
        f"busy hour{with_outage} ({scale}x): the stalest screen at the hour's end against its limit + the outage",
        worst,
        1.0,
        "its limit + the outage",
        "x",
        1.0,
        limit_on="value",
    )
    return [refusals, staleness]


def cost_figure(quick: bool) -> Figure:
    import httpx

    from tui.api.limiter import Limiter
    from tui.api.limits import limits_table
    from tui.commands.runner import build_client, run_inline
    from tui.local.config import SecretSource
    from tui.local.profiles import make_profile
    from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential

    runs = 200 if quick else 1000
    credential = demo_credential("acme-sandbox")
    with private_dirs(), SimulatorServer(SimulatorSettings(limits=None)) as sim:
        request_id = str(uuid.uuid4())
        body = {
            "RequestId": request_id,
            "AccountId": 1001,
            "Products": [{"ProductId": 201, "Quantity": 1, "Value": 25}],
        }
        httpx.post(
            f"{sim.base_url}/api/integration/v1.0/orders/checkout", json=body, auth=credential.auth
        ).raise_for_status()
        os.environ["BENCH_SECRET"] = credential.client_secret
        os.environ["GIFTDESK_LIMITS"] = "get_order=1000000/s"
        try:
            profile = make_profile(
                name="bench",
                environment="sandbox",
                base_url=sim.base_url,
                client_id=credential.client_id,
                secret=SecretSource(kind="env", ref="BENCH_SECRET"),
            )
            ours = build_client(profile)  # the commands' client: inline transport, the profile's SQLite limiter
            in_memory = build_client(profile, limiter=Limiter(limits_table()))  # the same, its limiter in memory
        finally:
            os.environ.pop("GIFTDESK_LIMITS")
        bare = httpx.Client(base_url=sim.base_url, auth=credential.auth, headers={"Accept": "application/json"})
        path = f"/api/integration/v1.0/orders/{request_id}"

        def through(client) -> float:
            start = time.perf_counter()
            run_inline(client._send("GET", path, "get_order", retry_on=_read()))
            return time.perf_counter() - start

        def bare_httpx() -> float:
            start = time.perf_counter()
            bare.get(path).raise_for_status()
            return time.perf_counter() - start

        subjects = {"client": lambda: through(ours), "memory": lambda: through(in_memory), "httpx": bare_httpx}
        interleaved(20, subjects)  # warm up
        times = interleaved(runs, subjects)
        bare.close()
        os.environ.pop("BENCH_SECRET")
    client_ms, memory_ms, bare_ms = (median(times[name]) * 1000 for name in ("client", "memory", "httpx"))
    return Figure(
        32,
        f"one request through the client, its limiter in SQLite (median of {runs}; limiter in memory "
        f"{memory_ms:.3f} ms: SQLite's share {client_ms - memory_ms:.3f} ms)",
        client_ms,
        bare_ms,
        "bare httpx request",
        "ms",
    )


def _read():
    from tui.api.client import RetryOn

    return RetryOn.READ


def figures(quick: bool = False) -> list[Figure]:
    return [*hour_figures(quick), cost_figure(quick), *hour_figures(quick, outage=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the hour in 30 s, 200 requests each for the cost")
    print_figures(figures(parser.parse_args().quick))


if __name__ == "__main__":
    main()
