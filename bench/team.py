"""Figures 19-21: ten giftdesks on one team profile, the receiver taking 20 callbacks a second.

    .venv/bin/python -m bench.team [--quick] [--processes 10]

A throwaway PostgreSQL cluster (tui.team.cluster) holds the team database;
the simulator runs in this process and counts every Get order it answers.
Each giftdesk is the real app, headless (Pilot, 160x48), in an interpreter
of its own, on the demo sandbox profile, in team mode; it prints the time
(wall clock, shared by the processes of one machine) at which each watched
order went final on its screen: when the app set the header's counts with it
(the app tells a burst of settled orders together: one redraw, bell and toast).

- (19) Settle latency: N orders that stay Pending are pinned in the team's
  watch list; the receiver (tui.listener.Receiver on loopback, in this
  process, keeping each delivery in the team's inbox before its 2xx, then
  settling the order with the callback's status) takes their callbacks at 20
  a second; from each callback's 2xx to the order settled on every screen,
  p50 and p95 over all (callback, screen) pairs. Baseline: the same with one
  team giftdesk. Target: p95 under 1 s.
- (20) Requests to the provider: Get orders per second while the ten watch
  the N orders, against one giftdesk alone (local mode) watching the same
  orders over a window as long. Target: the same (at most 1.1x).
- (21) Database bytes per 1,000 audit entries (1,000 rows: one per entry, and
  the head's row, tables and indexes, vacuumed), against the local audit
  file's bytes for the same entries.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.common import ROOT, Figure, module_command, print_figures, private_dirs
from bench.watch_list import CountingApp, pending_orders

SIZE = (160, 48)
PROFILE = "demo-sandbox"
CALLBACKS_PER_SECOND = 20
CALLBACK_SECRET = "bench-callback-secret"
LATENCY_TARGET_SECONDS = 1.0
REQUESTS_TARGET = 1.1
READY_TIMEOUT_SECONDS = 120.0
SETTLE_TIMEOUT_SECONDS = 10.0
AUDIT_ENTRIES = 1000
AUDIT_SIZE = (
    "pg_total_relation_size('audit') + pg_total_relation_size('audit_head')"  # the entries and the chain's head
)


def figures(quick: bool = False, processes: int = 10) -> list[Figure]:
    from tui.team.cluster import running_cluster, server_bindir

    bindir = server_bindir()
    if bindir is None:
        print("figures 19-21 skipped: no PostgreSQL server programs (initdb, pg_ctl)", flush=True)
        return []
    seconds = 4.0 if quick else 10.0
    with private_dirs(), running_cluster(bindir) as cluster:
        return _measure(cluster, processes, seconds)


def _measure(cluster, processes: int, seconds: float) -> list[Figure]:
    from tui.simulator import SimulatorServer, SimulatorSettings
    from tui.simulator.settings import TIMING_PRESETS
    from tui.team.database import TeamDatabase, migrate

    team_database = TeamDatabase(cluster.create_database())
    migrate(team_database)
    sim = SimulatorServer(SimulatorSettings(timing=TIMING_PRESETS["fast"].replace(pause_seconds=3600.0), limits=None))
    counter = CountingApp(sim._server.config.app)
    sim._server.config.app = counter
    with sim:
        count = int(seconds * CALLBACKS_PER_SECOND)
        orders = pending_orders(sim.base_url, count)
        alone = _requests_per_second(counter, sim.base_url, None, orders, 1, seconds)
        one, _ = _team_run(counter, sim.base_url, team_database, pending_orders(sim.base_url, count), 1, seconds)
        many, requests = _team_run(counter, sim.base_url, team_database, orders, processes, seconds)
    name = f"callback 2xx to settled on every screen, {CALLBACKS_PER_SECOND}/s, {processes} giftdesks"
    return [
        Figure(19, f"{name}, p50", _percentile(many, 50), _percentile(one, 50), "one team giftdesk", "ms"),
        Figure(
            19,
            f"{name}, p95",
            _percentile(many, 95),
            _percentile(one, 95),
            "one team giftdesk",
            "ms",
            LATENCY_TARGET_SECONDS * 1000,
            "value",
        ),
        Figure(
            20,
            f"Get order requests per second, {processes} team giftdesks watching {count}",
            requests,
            alone,
            "one giftdesk alone",
            "req/s",
            REQUESTS_TARGET,
        ),
        _audit_bytes(team_database),
    ]


# --- the children ----------------------------------------------------------------------------


class Children:
    """Headless giftdesks, one per data folder; each prints `ready`, then `settled REQUEST_ID WALL_TIME` lines."""

    def __init__(self, base_url: str, database_url: str | None, data_dirs: list[Path]) -> None:
        self.processes = [
            subprocess.Popen(
                module_command("bench.team", "--child", base_url, database_url or "-"),
                cwd=ROOT,
                text=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=dict(os.environ, GIFTDESK_DATA_DIR=str(data)),
            )
            for data in data_dirs
        ]
        self.settled: list[dict[str, float]] = [{} for _ in data_dirs]
        self._ready = [threading.Event() for _ in data_dirs]
        self._readers = [
            threading.Thread(target=self._read, args=(index,), daemon=True) for index in range(len(data_dirs))
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, index: int) -> None:
        stream = self.processes[index].stdout
        assert stream is not None
        for line in stream:
            words = line.split()
            if words == ["ready"]:
                self._ready[index].set()
            elif len(words) == 3 and words[0] == "settled":
                self.settled[index][words[1]] = float(words[2])

    def wait_ready(self) -> None:
        for index, ready in enumerate(self._ready):
            if not ready.wait(READY_TIMEOUT_SECONDS):
                raise RuntimeError(f"giftdesk {index} never said it was ready (exit {self.processes[index].poll()})")

    def stop(self) -> None:
        for process in self.processes:
            if process.stdin is not None:
                process.stdin.close()  # the child ends when its stdin does
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def _pin(orders: list[str], database_url: str | None, data: list[Path]) -> None:
    """The orders on the team's watch list, or on each local child's own."""
    if database_url is None:
        from tui.local.watchlist import WatchList

        for folder in data:
            store = WatchList(folder / "watchlist.sqlite3")
            for request_id in orders:
                store.add(PROFILE, "order", request_id)
            store.close()
        return
    from tui.team.database import TeamDatabase
    from tui.team.link import TeamLink
    from tui.team.watchlist import TeamWatchList

    link = TeamLink(TeamDatabase(database_url), user="bench")
    try:
        store = TeamWatchList(link, "sandbox")
        for request_id in orders:
            store.add(PROFILE, "order", request_id)
    finally:
        link.close()


def _requests_per_second(
    counter: CountingApp, base_url: str, database_url: str | None, orders: list[str], count: int, seconds: float
) -> float:
    """Get orders per second at the simulator over `seconds` after `count` giftdesks are ready."""
    data_dirs = [Path(tempfile.mkdtemp(prefix="giftdesk-bench-")) for _ in range(count)]
    _pin(orders, database_url, data_dirs)
    children = Children(base_url, database_url, data_dirs)
    try:
        children.wait_ready()
        start = time.perf_counter()
        time.sleep(seconds)
        return counter.between(start, time.perf_counter()) / seconds
    finally:
        children.stop()


def _team_run(
    counter: CountingApp, base_url: str, database, orders: list[str], count: int, seconds: float
) -> tuple[list[float], float]:
    """(each (callback, screen)'s ms from the 2xx to the order settled on that screen, Get orders per
    second while the giftdesks watched before the callbacks); an order never seen on a screen counts as
    the whole wait."""
    import httpx

    from tui.listener import Receiver
    from tui.local.inbox import CALLBACK, Delivery
    from tui.team.inbox import TeamInbox
    from tui.team.link import TeamLink
    from tui.team.watchlist import TeamWatchList

    data_dirs = [Path(tempfile.mkdtemp(prefix="giftdesk-bench-")) for _ in range(count)]
    _pin(orders, database.url, data_dirs)
    link = TeamLink(database, user="receiver")
    store = TeamWatchList(link, "sandbox")

    def settle(
        delivery: Delivery,
    ) -> None:  # the receiver's processing, after the 2xx: the callback's status settles the order
        if delivery.accepted and delivery.kind == CALLBACK and delivery.payload is not None:
            store.settle_order(PROFILE, str(delivery.payload["requestId"]), str(delivery.payload["status"]))

    children = Children(base_url, database.url, data_dirs)
    try:
        children.wait_ready()
        start = time.perf_counter()
        time.sleep(seconds)
        requests = counter.between(start, time.perf_counter()) / seconds
        acked: dict[str, float] = {}
        with (
            Receiver(lambda: TeamInbox(link, PROFILE, "sandbox"), callback_secret=CALLBACK_SECRET) as receiver,
            httpx.Client() as client,
        ):
            receiver.subscribe(settle)
            began = time.perf_counter()
            for number, request_id in enumerate(orders):
                time.sleep(max(0.0, began + number / CALLBACKS_PER_SECOND - time.perf_counter()))
                body = {
                    "orderId": number + 1,
                    "status": "Succeeded",
                    "secretKey": CALLBACK_SECRET,
                    "requestId": request_id,
                }
                client.post(receiver.url, json=body).raise_for_status()
                acked[request_id] = time.time()
        deadline = time.monotonic() + SETTLE_TIMEOUT_SECONDS
        while time.monotonic() < deadline and any(len(seen) < len(orders) for seen in children.settled):
            time.sleep(0.1)
    finally:
        children.stop()
        link.close()
    never = SETTLE_TIMEOUT_SECONDS
    delays = [1000 * (seen[rid] - acked[rid] if rid in seen else never) for seen in children.settled for rid in acked]
    missing = sum(rid not in seen for seen in children.settled for rid in acked)
    if missing:
        print(f"{missing} of {len(delays)} settlements never seen on a screen (counted as {never:g} s)", flush=True)
    return delays, requests


def _percentile(values: list[float], percent: int) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[percent - 1]


def _audit_bytes(database) -> Figure:
    from tui.local.storage import AuditLog
    from tui.team.audit import TeamAuditLog
    from tui.team.link import TeamLink

    link = TeamLink(database, user="bench", host="bench-host")
    try:
        with link.connection() as connection:
            before = connection.execute(f"SELECT {AUDIT_SIZE}, count(*) FROM audit").fetchone()
        team = TeamAuditLog(link, throwaway=True)  # a throwaway cluster: its signing key lives for this run
        with tempfile.TemporaryDirectory() as folder:
            local = AuditLog(Path(folder) / "audit.jsonl")
            for number in range(AUDIT_ENTRIES):
                fields = dict(
                    profile=PROFILE,
                    environment="sandbox",
                    action="redeem",
                    subject=f"https://pay.example.test/payout/TOKEN{number:06d}%3D",
                    outcome="completed",
                    wallet="PayPal",
                    recipient="jane.doe@example.com",
                    detail=f"HTTP 200; transactionId T{number}",
                )
                team.record(**fields)
                local.record(**fields)
            file_bytes = local.path.stat().st_size
        with link.connection() as connection:
            for table in ("audit", "audit_head"):  # the free space and visibility maps as live tables have them
                connection.execute(f"VACUUM ANALYZE {table}")
            after = connection.execute(f"SELECT {AUDIT_SIZE}, count(*) FROM audit").fetchone()
    finally:
        link.close()
    rows = after[1] - before[1]
    return Figure(
        21,
        f"team database bytes per {AUDIT_ENTRIES} audit entries ({rows} rows and the head's, tables and indexes)",
        (after[0] - before[0]) * AUDIT_ENTRIES / rows,
        file_bytes * AUDIT_ENTRIES / rows,
        "the local audit file",
        "bytes",
    )


# --- one child: a headless giftdesk ----------------------------------------------------------


async def run_child(base_url: str, database_url: str | None) -> None:
    sys.path.insert(0, str(ROOT / "tests"))  # tests/apps.py: the demo profiles on a running simulator
    from apps import demo_profiles

    from tui.app import AppSettings, build_app

    team = None
    if database_url is not None:
        from tui.team.database import TeamDatabase
        from tui.team.mode import TeamMode

        team = TeamMode(TeamDatabase(database_url), user=f"bench-{os.getpid()}")
    app = build_app(AppSettings(profiles=demo_profiles(base_url), profile_name=PROFILE, team=team))
    apply_context = app._apply_context
    counted: set[int] = set()

    def header_drawn() -> None:  # the header's counts, from what the watch list's store knows now
        apply_context()
        known = app.watching.service.store._last_read if app.watching.service is not None and team is not None else {}
        for item in known.values():
            if item.final and item.id not in counted:
                counted.add(item.id)
                print(f"settled {item.reference} {time.time():.6f}", flush=True)

    app._apply_context = header_drawn  # type: ignore[method-assign]
    app.bell = lambda: None  # type: ignore[method-assign]
    try:
        async with app.run_test(size=SIZE) as pilot:
            app.watch_list  # noqa: B018 (asking for it starts it now)
            while team is not None and not (app.team_follower and app.team_follower.listening):
                await pilot.pause(0.05)
            print("ready", flush=True)
            await asyncio.to_thread(sys.stdin.read)  # until the parent closes it
    finally:
        if team is not None:
            team.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4 s of callbacks instead of 10 s")
    parser.add_argument("--processes", type=int, default=10)
    parser.add_argument("--child", nargs=2, metavar=("BASE_URL", "DATABASE_URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        base_url, database_url = args.child
        asyncio.run(run_child(base_url, None if database_url == "-" else database_url))
        return
    print_figures(figures(args.quick, args.processes))


if __name__ == "__main__":
    main()
