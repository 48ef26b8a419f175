"""Figure 13: the Orders board filtering 5,000 orders of a 30-day history, keypress to rows drawn.

    .venv/bin/python -m bench.orders_board [--quick] [--orders 5000]

The simulator (seeded with 5,000 orders over the last 30 days: about 6,400
order lines) runs in this process on loopback; each app runs headless under
Pilot at 160x48 with every line of the 30 days loaded. Keys are typed into
the `/` filter as the terminal driver delivers them: a product word, then
backspaces to empty, then an order-number prefix, then backspaces again (the
empty filter shows every line: the heaviest keystroke). Each keystroke is
timed from the key handed to the app until the first frame composed after
the table holds the filtered rows. Target (issue 13): under one frame, 16 ms
(p95).

Baseline: a bare Textual app (an Input over a DataTable) filtering the same
lines, as plain strings, the same way (every typed word must appear in the
line) on every change of the Input.

Keys come at a fast typist's pace, one every 100 ms (TYPING_GAP_SECONDS).
Until 2026-11-23 each key followed the previous key's frame at once (typing
at the frame rate): Textual draws on a 60 fps grid (Screen's update timer),
so a change made within 16.7 ms of the last frame waits for the next grid
tick, and every key measured at least about one frame whatever its cost
(p50 16.6 ms, p95 48.9 ms in that run): "under one frame" could not be met
by any Textual app that way. At a typist's pace a key finds the app idle and
the figure is what the issue asks about: the key's work until its frame.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from datetime import date

import httpx
from textual import events, on
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Input

from bench.catalog_paging import frame_clock
from bench.common import ROOT, TYPING_GAP_SECONDS, Figure, median, p95, print_figures, private_dirs

sys.path.insert(0, str(ROOT / "tests"))  # tests/apps.py

from apps import app_on

from tui.core.dates import DayRange
from tui.screens.orders import COLUMNS, OrdersScreen
from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential

SIZE = (160, 48)
FRAME_MS = 16.0
ORDERS = 5_000
DAYS = 30
HISTORY = "/api/integration/v1.0/orders"
# (key, character) as a terminal sends them.
TYPED = (
    [(c, c) for c in "tech"]
    + [("backspace", None)] * 4
    + [("o", "o"), ("minus", "-"), *[(c, c) for c in "0050"]]
    + [("backspace", None)] * 6
)


class BareFilterApp(App[None]):
    """The yardstick: an Input over a DataTable, rows as plain strings, filtered on every change."""

    def __init__(self, rows: list[tuple[str, ...]]) -> None:
        super().__init__()
        self.rows = rows
        self.haystacks = [" ".join(row).lower() for row in rows]
        self.shown: list[tuple[str, ...]] = []

    def compose(self) -> ComposeResult:
        yield Input()
        yield DataTable(cursor_type="row")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*(column.title for column in COLUMNS))
        self.show("")
        self.query_one(Input).focus()

    @on(Input.Changed)
    def changed(self, event: Input.Changed) -> None:
        self.show(event.value)

    def show(self, text: str) -> None:
        words = text.lower().split()
        self.shown = [row for row, hay in zip(self.rows, self.haystacks, strict=True) if all(w in hay for w in words)]
        table = self.query_one(DataTable)
        table.clear()
        table.add_rows(self.shown)


def press(app: App, key: str, character: str | None) -> None:
    """The key as the terminal driver would deliver it (Pilot.press adds idle waits)."""
    event = events.Key(key, character)
    event.set_sender(app)
    app._driver.send_message(event)


async def type_and_time(app: App, ready: Callable[[object], object], shown: Callable[[App], object]) -> list[float]:
    times: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        frames = frame_clock(app)
        await ready(pilot)
        for key, character in TYPED:
            await asyncio.sleep(TYPING_GAP_SECONDS)
            before = shown(app)
            pressed = time.perf_counter()
            press(app, key, character)
            while shown(app) is before:
                await asyncio.sleep(0)
            filtered = time.perf_counter()
            while frames[0] < filtered:
                await asyncio.sleep(0)
            times.append((frames[0] - pressed) * 1000)
    return times


async def board_ready(pilot) -> None:
    app = pilot.app
    await app.navigate("orders")
    screen = app.screen
    assert isinstance(screen, OrdersScreen)
    screen.day_range = DayRange.last_days(DAYS, today=date.today())
    screen.range_changed()  # replaces (cancels) the load of today
    while screen.table.loading or not screen.rows or (screen.rows[-1].day or date.today()) >= date.today():
        await asyncio.sleep(0.05)
    await pilot.pause()
    screen.action_filter()
    await pilot.pause()


async def bare_ready(pilot) -> None:
    await pilot.pause()


def board_lines(sim: SimulatorServer) -> list[dict]:
    credential = demo_credential("acme-sandbox")
    params = DayRange.last_days(DAYS, today=date.today()).to_wire()
    return httpx.get(sim.base_url + HISTORY, params=params, auth=credential.auth, timeout=60).json()


def plain_rows(lines: list[dict]) -> list[tuple[str, ...]]:
    return [
        (
            line["orderDate"][5:10],
            line["status"],
            line["orderNumber"],
            line["productName"],
            line["denomination"],
            str(line["quantity"]),
            f"{line['subTotal']:.2f} {line['accountCurrency']}",
            line["clientReferenceNumber"],
        )
        for line in lines
    ]


def figures(quick: bool = False, orders: int = ORDERS) -> list[Figure]:
    rounds = 1 if quick else 3
    ours: list[float] = []
    yardstick: list[float] = []
    with private_dirs(limits=False), SimulatorServer(SimulatorSettings(history=orders, limits=None)) as sim:
        lines = board_lines(sim)
        rows = plain_rows(lines)
        for _ in range(rounds):  # taking turns, so that a burst of load hits both alike
            ours += asyncio.run(type_and_time(app_on(sim), board_ready, lambda app: app.screen.shown))
            yardstick += asyncio.run(type_and_time(BareFilterApp(rows), bare_ready, lambda app: app.shown))
    where = f"{orders:,} orders, {len(lines):,} lines, {len(TYPED)} keys x {rounds}"
    return [
        Figure(
            13,
            f"orders board filter, keypress to rows drawn, p50 ({where})",
            median(ours),
            median(yardstick),
            "bare DataTable filter",
            "ms",
        ),
        Figure(
            13,
            f"orders board filter, keypress to rows drawn, p95 ({where})",
            p95(ours),
            p95(yardstick),
            "bare DataTable filter",
            "ms",
            FRAME_MS,
            "value",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round of keys instead of three")
    parser.add_argument("--orders", type=int, default=ORDERS)
    args = parser.parse_args()
    print_figures(figures(args.quick, args.orders))


if __name__ == "__main__":
    main()
