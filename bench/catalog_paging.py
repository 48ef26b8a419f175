"""Figures 3 and 4: catalog "next page", keypress to rows drawn (p50, p95), and peak memory while paging.

    .venv/bin/python -m bench.catalog_paging [--quick] [--brands 22000] [--pages 100] [--page-size 50]

The simulator (22,000 brands, about 100,000 products) runs in this process on
loopback; each app runs headless under Pilot at 160x48. Targets (issue 9):
p95 at most 40 ms; peak memory at most 1.5x the bare app's.

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
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

from textual import events
from textual.app import App

from bench.bare_app import BareApp
from bench.common import ROOT, SCALE_BRANDS, Figure, median, p95, print_figures, private_dirs

sys.path.insert(0, str(ROOT / "tests"))  # tests/apps.py

from apps import app_on

from tui.simulator import SimulatorServer, SimulatorSettings
from widgets.filter_bar import FilterBar

SIZE = (160, 48)
P95_TARGET_MS = 40.0
MEMORY_TARGET = 1.5


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


def figures(
    quick: bool = False, brands: int = SCALE_BRANDS, pages: int | None = None, page_size: int = 50
) -> list[Figure]:
    pages = pages or (30 if quick else 100)
    with private_dirs(limits=False), SimulatorServer(SimulatorSettings(brands=brands, limits=None)) as sim:
        products = len(sim.state.catalog.product_by_id)
        subjects = [giftdesk(sim, page_size), bare(sim, page_size)]
        timing = {s.name: asyncio.run(latencies(s, pages)) for s in subjects}
        memory_use = {s.name: asyncio.run(memory(s, pages)) for s in subjects}
    (ours, yardstick), (ours_mem, bare_mem) = timing.values(), memory_use.values()
    for name, figures_ in memory_use.items():
        print(
            f"  {name:<17} memory over the first page: peak {figures_['peak'] / 1e6:5.2f} MB, after 10 pages "
            f"{figures_['after 10'] / 1e6:5.2f} MB, after {pages} {figures_['after all'] / 1e6:5.2f} MB"
        )
    where = f"{pages} pages of {page_size} brands, {products:,} products"
    return [
        Figure(
            3,
            f"catalog next page, keypress to rows drawn, p50 ({where})",
            median(ours),
            median(yardstick),
            "bare app",
            "ms",
        ),
        Figure(
            3,
            f"catalog next page, keypress to rows drawn, p95 ({where})",
            p95(ours),
            p95(yardstick),
            "bare app",
            "ms",
            P95_TARGET_MS,
            "value",
        ),
        Figure(
            4,
            f"peak memory (tracemalloc, over the first page) paging {where}",
            ours_mem["peak"] / 1e6,
            bare_mem["peak"] / 1e6,
            "bare app",
            "MB",
            MEMORY_TARGET,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="30 pages instead of 100")
    parser.add_argument("--brands", type=int, default=SCALE_BRANDS)
    parser.add_argument("--pages", type=int)
    parser.add_argument("--page-size", type=int, default=50)
    args = parser.parse_args()
    print_figures(figures(args.quick, args.brands, args.pages, args.page_size))


if __name__ == "__main__":
    main()
