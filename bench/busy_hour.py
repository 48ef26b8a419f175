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

(32) The limiter's cost per request: Get order through the client (its
limiter booking in the profile's SQLite file, limits far away) against a bare
httpx.AsyncClient making the same request, on one loopback simulator
without limits, interleaved; the ratio of the medians.
"""

from __future__ import annotations

import argparse
import asyncio
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


@dataclass
class Hour:
    """What the bench saw at the hour's end."""

    staleness: dict[str, float]  # each screen's age at the end, seconds (real, compressed)
    limits: dict[str, float]  # how old each screen may get under the limits, seconds (real, compressed)
    shell_seconds: float  # how long the shell loop took
    sync_seconds: float  # how long the mirror's full sync took


async def busy_hour(sim, profile, ids: list[str], scale: float) -> Hour:
    """The hour's work on one profile, with each screen's staleness at the hour's end."""
    from tui.api.limiter import margin
    from tui.commands.common import build_client
    from tui.core.dates import DayRange
    from tui.core.polling import Backoff
    from tui.core.watching import Watched, WatchScheduler, budget_for, client_fetch, looked_again_within
    from tui.local.limit_store import profile_database
    from tui.local.mirror import Mirror, mirror_path
    from tui.local.mirror_sync import sync
    from tui.local.report_copies import ReportCopies

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
        """A screen left open looks again when its copy falls due, as the TUI's do (Answer.renew_in)."""
        while (wait := (await look(screen)).renew_in()) is not None:
            await asyncio.sleep(wait)

    async def opened(screen: str, times: int) -> None:
        """Opened `times` in the hour, evenly: each opening takes the copy."""
        for n in range(times):
            await asyncio.sleep(max(0.0, started + n * hour / times - time.time()))
            await look(screen)

    async def mirror_sync() -> float:
        with Mirror(mirror_path(profile.name, profile.environment)) as mirror:
            await sync(mirror, client, full=True)
        return time.time() - started

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


def hour_figure(quick: bool) -> Figure:
    from tui.api.limits import DEFAULT_LIMITS
    from tui.local.config import SecretSource, make_profile
    from tui.simulator import TIMING_PRESETS, SimulatorServer, SimulatorSettings, demo_credential

    scale = SCALE * (2 if quick else 1)
    hour = 3600 / scale
    client_limits, sim_limits = scaled_limits(scale)
    credential = demo_credential("acme-sandbox")
    timing = TIMING_PRESETS["fast"].replace(pause_seconds=1e6)
    settings = SimulatorSettings(brands=2000, history=200, timing=timing, limits=sim_limits)
    with private_dirs(), SimulatorServer(settings) as sim:
        os.environ.update(
            {
                "GIFTDESK_LIMITS": client_limits,
                "GIFTDESK_BASE_URL": sim.base_url,
                "GIFTDESK_CLIENT_ID": credential.client_id,
                "GIFTDESK_CLIENT_SECRET": credential.client_secret,
            }
        )
        try:
            profile = make_profile(
                name="env",
                environment="sandbox",
                base_url=sim.base_url,
                client_id=credential.client_id,
                secret=SecretSource(kind="env", ref="GIFTDESK_CLIENT_SECRET"),
            )
            ids = place_pending_orders(sim, credential)
            hour_started = len(sim.requests())
            seen = asyncio.run(busy_hour(sim, profile, ids, scale))
        finally:
            for name in ("GIFTDESK_LIMITS", "GIFTDESK_BASE_URL", "GIFTDESK_CLIENT_ID", "GIFTDESK_CLIENT_SECRET"):
                os.environ.pop(name, None)
            report_copies.RATES_KEPT_FOR, report_copies.UNLIMITED_KEPT_FOR = RATES_KEPT_FOR, UNLIMITED_KEPT_FOR
        log = sim.requests()[hour_started:]
    refused = sum(1 for logged in log if logged.status == 429)
    spent = Counter(logged.endpoint for logged in log)
    minutes = scale / 60  # real seconds -> the hour's minutes
    print(f"busy hour in {hour:.0f} s ({scale}x): requests per endpoint beside what the limit allows in the hour")
    for endpoint, count in sorted(spent.items()):
        limit = DEFAULT_LIMITS.get(endpoint)
        allowed = f"{limit.requests * 3600 / limit.seconds:.0f} ({limit})" if limit else "no limit"
        print(f"  {endpoint:15} {count:6}   allowed {allowed}")
    print(
        f"the shell loop's {SHELL_SHOWS} order shows took {seen.shell_seconds * minutes:.1f} min, the mirror's full sync "
        f"{seen.sync_seconds * minutes:.1f} min (of the hour's 60)"
    )
    print("staleness at the hour's end (today's data), in the hour's minutes, beside how old the limits let it get:")
    for screen, age in sorted(seen.staleness.items()):
        limit = seen.limits[screen]
        verdict = "within" if age <= limit else f"OVER by {(age - limit) * minutes:.2f} min"
        print(
            f"  {screen:11} {age * minutes:6.2f} min   limit {limit * minutes:6.2f} min   {age / limit:5.2f}x  {verdict}"
        )
    summary = ", ".join(f"{endpoint} {count}" for endpoint, count in sorted(spent.items()))
    return Figure(
        31,
        f"busy hour ({scale}x): 429 answers (requests: {summary})",
        refused,
        len(log),
        "requests in the hour",
        "",
        0,
        limit_on="value",
    )


def cost_figure(quick: bool) -> Figure:
    import httpx

    from tui.api.limiter import Limiter
    from tui.api.limits import limits_table
    from tui.commands.common import build_client, run_inline
    from tui.local.config import SecretSource, make_profile
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
    return [hour_figure(quick), cost_figure(quick)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the hour in 30 s, 200 requests each for the cost")
    print_figures(figures(parser.parse_args().quick))


if __name__ == "__main__":
    main()
