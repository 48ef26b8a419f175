"""Catalog screen paging: keypress "next page" -> new rows drawn, and memory while paging.

    .venv/bin/python bench/catalog_paging.py [--brands 20000] [--pages 100] [--page-size 50]

The simulator (20,000 brands, ~100,000 products) runs in this process on
loopback; each app runs headless under Pilot at 160x48. Figures only, no
pass/fail (issue 5 asks for p95 <= 40 ms and memory bounded while paging).

Latency: from the key event handed to the app (as the terminal driver does)
until the first frame composed after the new page's rows are in the table. Memory: tracemalloc (a separate
run, since tracing slows Python down), counted from the first page shown, so
the simulator's catalog and Textual's start-up are left out. Both apps are
measured the same way; the bare app is Header + DataTable + Footer fetching
the same pages with the same client.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual import events, work
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/apps.py

from apps import app_on  # noqa: E402
from tui.api.client import ServiceClient  # noqa: E402
from tui.api.models import CatalogQuery  # noqa: E402
from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential  # noqa: E402
from widgets.filter_bar import FilterBar  # noqa: E402

SIZE = (160, 48)


class BareApp(App[None]):
    """The least a paged brand table can be: the yardstick."""

    BINDINGS = [("n", "next_page", "Next page")]

    def __init__(self, base_url: str, page_size: int) -> None:
        super().__init__()
        credential = demo_credential("acme-sandbox")
        self.client = ServiceClient(base_url, credential.client_id, credential.client_secret)
        self.page_size = page_size
        self.wanted = 0
        self.shown = -1

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("Brand", "Country", "Currency", "Products")
        self.load(0)

    def action_next_page(self) -> None:
        self.wanted += 1
        self.load(self.wanted)

    @work(exclusive=True)
    async def load(self, index: int) -> None:
        page = await self.client.catalog(CatalogQuery(page_size=self.page_size, page_index=index))
        table = self.query_one(DataTable)
        table.clear()
        table.add_rows((b.name, b.country_code, b.currency_code, str(len(b.products))) for b in page.items)
        self.shown = index


@dataclass
class Subject:
    """One app to measure and how to read which page it shows."""

    name: str
    make: Callable[[], App]
    shown_page: Callable[[App], int]
    prepare: Callable[[object], object] | None = None  # async, after the first page


def giftdesk(sim: SimulatorServer, page_size: int) -> Subject:
    async def use_page_size(pilot) -> None:
        bar = pilot.app.screen.query_one(FilterBar)
        bar.set_values({"page_size": str(page_size)})
        bar.post_message(FilterBar.Applied(bar.values()))
        await settle(pilot)

    return Subject("giftdesk catalog", lambda: app_on(sim), shown_catalog_page, use_page_size)


def shown_catalog_page(app: App) -> int:
    screen = app.screen
    return screen.pager.state.index if getattr(screen, "brands", None) else -1


def bare(sim: SimulatorServer, page_size: int) -> Subject:
    return Subject("bare Textual app", lambda: BareApp(sim.base_url, page_size), lambda app: app.shown)


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def frame_clock(app: App) -> list[float]:
    """[time of the last frame handed to the terminal]: Textual's `_display`
    gets every composed update (headless skips only the write)."""
    last = [0.0]
    display = app._display

    def timed_display(screen, renderable) -> None:
        if renderable is not None:
            last[0] = time.perf_counter()
        display(screen, renderable)

    app._display = timed_display
    return last


async def wait_for_page(app: App, subject: Subject, index: int, frames: list[float]) -> float:
    """When page `index` was first drawn: its rows in the table, then a frame after that."""
    while subject.shown_page(app) != index:
        await asyncio.sleep(0)
    shown = time.perf_counter()
    while frames[0] < shown:
        await asyncio.sleep(0)
    return frames[0]


def press_next(app: App) -> None:
    """The key as the terminal driver would deliver it (Pilot.press adds idle waits)."""
    key = events.Key("n", "n")
    key.set_sender(app)
    app._driver.send_message(key)


async def page_through(subject: Subject, pages: int, on_page: Callable[[int, float, float], None]) -> None:
    """Page `pages` times; `on_page(index, pressed, drawn)` after each (pressed is 0 for the first)."""
    app = subject.make()
    async with app.run_test(size=SIZE) as pilot:
        frames = frame_clock(app)
        await wait_for_page(app, subject, 0, frames)
        if subject.prepare is not None:
            await subject.prepare(pilot)
        on_page(0, 0.0, 0.0)
        for index in range(1, pages + 1):
            pressed = time.perf_counter()
            press_next(app)
            drawn = await wait_for_page(app, subject, index, frames)
            on_page(index, pressed, drawn)


async def latencies(subject: Subject, pages: int) -> list[float]:
    times: list[float] = []

    def keep(index: int, pressed: float, drawn: float) -> None:
        if index:
            times.append((drawn - pressed) * 1000)

    await page_through(subject, pages, keep)
    return times


async def memory(subject: Subject, pages: int) -> dict[str, float]:
    figures: dict[str, float] = {}

    def sample(index: int, pressed: float, drawn: float) -> None:
        current, peak = tracemalloc.get_traced_memory()
        if index == 0:
            tracemalloc.reset_peak()
            figures["base"] = current
        if index == 10:
            figures["after 10"] = current - figures["base"]
        if index == pages:
            figures["after all"] = current - figures["base"]
            figures["peak"] = peak - figures["base"]

    tracemalloc.start()
    try:
        await page_through(subject, pages, sample)
    finally:
        tracemalloc.stop()
    return figures


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * 0.95) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--brands", type=int, default=20_000)
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--page-size", type=int, default=50)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as private:  # never the user's dirs
        for variable in ("GIFTDESK_DATA_DIR", "GIFTDESK_LOG_DIR"):
            os.environ[variable] = private
        os.environ["GIFTDESK_CONFIG"] = str(Path(private) / "config.toml")
        with SimulatorServer(SimulatorSettings(brands=args.brands)) as sim:
            subjects = [giftdesk(sim, args.page_size), bare(sim, args.page_size)]
            timing = {s.name: asyncio.run(latencies(s, args.pages)) for s in subjects}
            memory_use = {s.name: asyncio.run(memory(s, args.pages)) for s in subjects}

    print(f"{args.pages} x 'next page', {args.page_size} brands a page, {args.brands:,} brands, {SIZE[0]}x{SIZE[1]}")
    for name, times in timing.items():
        print(f"  {name:<17} keypress -> rows drawn: p50 {statistics.median(times):5.1f} ms  p95 {p95(times):5.1f} ms  max {max(times):5.1f} ms")
    for name, figures in memory_use.items():
        print(f"  {name:<17} memory over the first page: peak {figures['peak'] / 1e6:5.2f} MB, "
              f"after 10 pages {figures['after 10'] / 1e6:5.2f} MB, after {args.pages} {figures['after all'] / 1e6:5.2f} MB")
    ours, yardstick = (timing[s.name] for s in subjects)
    ours_mem, yard_mem = (memory_use[s.name] for s in subjects)
    print("ratios giftdesk / bare:")
    print(f"  p50 {statistics.median(ours) / statistics.median(yardstick):.2f}  p95 {p95(ours) / p95(yardstick):.2f}  "
          f"peak memory {ours_mem['peak'] / yard_mem['peak']:.2f}  memory after {args.pages} pages "
          f"{ours_mem['after all'] / max(yard_mem['after all'], 1):.2f}")
    print(f"  giftdesk growth from page 10 to page {args.pages}: {(ours_mem['after all'] - ours_mem['after 10']) / 1e6:+.2f} MB")


if __name__ == "__main__":
    main()
