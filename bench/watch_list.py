"""Figure 14: 500 watched orders: requests at the simulator, keypress-to-screen latency, CPU.

    .venv/bin/python -m bench.watch_list [--quick] [--orders 500] [--seconds S]

The simulator runs in this process on loopback with 500 orders that stay
Pending (a Paused card that never resumes), and counts every request it
answers. Each app runs headless (Pilot, 160x48) in a fresh interpreter of its
own, so the simulator's work is not counted in the app's CPU:

- "watching": giftdesk on the demo sandbox profile with the 500 orders in its
  watch list (the shared scheduler follows them from the first frame);
- "idle": the same giftdesk with an empty watch list;
- "bare": the bare Textual app idle (bench/bare_app.py).

Requests: the Get order requests the simulator answered per second while the
"watching" child ran, against the budget's rate (`Budget.per_second`); the
target allows the one burst (`Budget.burst`) spread over the run. The most in
any one second is printed too: arrival jitter on a loaded machine can bunch
requests that left on schedule. Latency: the median, over alternating
presses of 3 and 7 (Order and Audit, two screens with no request of their
own), from the key handed to the app until the first frame composed on the
new screen; watching against idle, target at most 1.2x. CPU: share of one
core over the window after the first frame (all threads of the child),
watching against the bare app idle (reported, no target).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from bench.common import ROOT, Figure, median, module_command, print_figures, private_dirs

SIZE = (160, 48)
SETTLE_SECONDS = 1.0
LATENCY_TARGET = 1.2
PRESSES = ("3", "7")
ORDER_PATH = "/api/integration/v1.0/orders/"


class CountingApp:
    """ASGI wrapper: the time of every Get order the simulator answers (the watch list's requests)."""

    def __init__(self, app) -> None:
        self.app = app
        self.times: list[float] = []
        self._lock = threading.Lock()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(ORDER_PATH):
            with self._lock:
                self.times.append(time.perf_counter())
        await self.app(scope, receive, send)

    def between(self, start: float, end: float) -> int:
        with self._lock:
            return sum(start <= t < end for t in self.times)

    def peak_per_second(self, start: float, end: float) -> int:
        """The most requests in any one-second stretch that begins at a request in [start, end)."""
        with self._lock:
            times = [t for t in self.times if start <= t < end]
        return max((bisect.bisect_left(times, t + 1.0) - i for i, t in enumerate(times)), default=0)


def pending_orders(base_url: str, count: int) -> list[str]:
    """`count` orders that stay Pending: one card of .14 (Paused), with a pause longer than the run."""
    import httpx

    from tui.simulator import demo_credential

    auth = demo_credential("acme-sandbox").auth
    ids = [str(uuid.uuid4()) for _ in range(count)]
    with httpx.Client(base_url=base_url, auth=auth) as client:
        for request_id in ids:
            body = {
                "RequestId": request_id,
                "AccountId": 1001,
                "Products": [{"ProductId": 201, "Quantity": 1, "Value": 10.14}],
            }
            client.post("/api/integration/v1.0/orders/checkout", json=body).raise_for_status()
    return ids


def child(subject: str, base_url: str, data: Path, seconds: float) -> dict:
    env = dict(os.environ, GIFTDESK_DATA_DIR=str(data))
    done = subprocess.run(
        module_command("bench.watch_list", "--child", subject, base_url, str(seconds)),
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    if done.returncode:
        raise RuntimeError(f"the {subject} child failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def figures(quick: bool = False, orders: int = 500, seconds: float | None = None) -> list[Figure]:
    from tui.core.watching import DEFAULT_BUDGET
    from tui.local.watchlist import WatchList
    from tui.simulator import SimulatorServer, SimulatorSettings
    from tui.simulator.settings import TIMING_PRESETS

    seconds = seconds or (4.0 if quick else 15.0)
    timing = TIMING_PRESETS["fast"].replace(pause_seconds=3600.0)
    with private_dirs(), tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as full:
        sim = SimulatorServer(SimulatorSettings(timing=timing, limits=None))  # the scheduler's own budget is measured
        counter = CountingApp(sim._server.config.app)
        sim._server.config.app = counter  # counted where the provider would count them
        with sim:
            store = WatchList(Path(full) / "watchlist.sqlite3")
            for request_id in pending_orders(sim.base_url, orders):
                store.add("demo-sandbox", "order", request_id)
            store.close()
            started = time.perf_counter()
            watching = child("watching", sim.base_url, Path(full), seconds)
            ended = time.perf_counter()
            rate = counter.between(started, ended) / (ended - started)
            print(f"most Get order requests in any 1 s: {counter.peak_per_second(started, ended)}", flush=True)
            idle = child("idle", sim.base_url, Path(empty), seconds)
            bare = child("bare", sim.base_url, Path(empty), seconds)
    budget = DEFAULT_BUDGET
    allowance = 1 + budget.burst / (budget.per_second * (ended - started))
    return [
        Figure(
            14,
            f"Get order requests per second at the simulator, {orders} watched",
            rate,
            budget.per_second,
            "the budget's rate",
            "req/s",
            round(allowance, 2),
        ),
        Figure(
            14,
            f"keypress to new screen, median, {orders} watched",
            watching["latency_ms"],
            idle["latency_ms"],
            "same TUI, nothing watched",
            "ms",
            LATENCY_TARGET,
        ),
        Figure(
            14, f"CPU while watching {orders} for {seconds:g} s", watching["cpu"], bare["cpu"], "bare app idle", "% CPU"
        ),
    ]


# --- the child ------------------------------------------------------------------------------


def make_app(subject: str, base_url: str):
    if subject == "bare":
        from bench.bare_app import BareApp

        return BareApp(base_url)
    sys.path.insert(0, str(ROOT / "tests"))  # tests/apps.py: the demo profiles on a running simulator
    from apps import demo_profiles

    from tui.app import AppSettings, build_app

    return build_app(AppSettings(profiles=demo_profiles(base_url), profile_name="demo-sandbox"))


async def key_to_frame(app, key: str, frames: list[float]) -> float:
    from textual import events

    before = app.screen
    pressed = time.perf_counter()
    event = events.Key(key, key)
    event.set_sender(app)
    app._driver.send_message(event)  # as the terminal driver delivers it (Pilot.press adds waits)
    while app.screen is before:
        await asyncio.sleep(0)
    switched = time.perf_counter()
    while frames[0] < switched:
        await asyncio.sleep(0)
    return (frames[0] - pressed) * 1000


async def measure(subject: str, base_url: str, seconds: float) -> dict:
    from bench.catalog_paging import frame_clock

    app = make_app(subject, base_url)
    async with app.run_test(size=SIZE):
        frames = frame_clock(app)
        await asyncio.sleep(SETTLE_SECONDS)
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.sleep(seconds)
        share = 100 * (time.process_time() - cpu) / (time.perf_counter() - wall)
        latencies = []
        if subject != "bare":
            for turn in range(20):
                latencies.append(await key_to_frame(app, PRESSES[turn % 2], frames))
                await asyncio.sleep(0.05)
        return {"cpu": share, "latency_ms": median(latencies) if latencies else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4 s windows instead of 15 s")
    parser.add_argument("--orders", type=int, default=500)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--child", nargs=3, metavar=("SUBJECT", "BASE_URL", "SECONDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        subject, base_url, seconds = args.child
        print(json.dumps(asyncio.run(measure(subject, base_url, float(seconds)))))
        return
    print_figures(figures(args.quick, args.orders, args.seconds))


if __name__ == "__main__":
    main()
