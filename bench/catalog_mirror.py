"""Figures 15-18 (issue 15): the local catalog mirror at about 100,000 products.

    .venv/bin/python -m bench.catalog_mirror [--quick] [--brands 22000]

The simulator (22,000 brands) runs in this process on loopback, as in the
other catalog figures; the apps run headless under Pilot at 160x48.

(15) Search as you type inside the TUI: from a key typed in the Catalog
     screen's `/` box (the mirror is searched on every key) to the first frame
     composed after the matching rows are in the table (a key that changes no
     result redraws no rows), p95. Baseline: the same
     TUI's idle frame, a key that only moves the search box's cursor (left or
     right) to the frame that shows it; interleaved key by key. Target p95
     under 20 ms (absolute). Typed keys come TYPING_GAP_SECONDS apart
     (bench/common.py), after the app is idle, as the idle keys always did;
     until 2026-11-23 each followed the last frame at once and so waited for
     Textual's next 60 fps frame tick (p95 27 ms for a search that costs
     nothing, measured that way).
(16) Next page from the mirror (`n`, no search), keypress to rows drawn, p95.
     Baseline: a bare Textual DataTable (same columns) swapping in rows it
     already holds. Target 1.1x.
(17) A first sync into an empty mirror (tui.local.mirror_sync.sync: the client,
     the writer process's start, parsing, SQLite and FTS5 writes) vs a plain
     httpx loop fetching the same pages (PageSize 100) with the same
     concurrency (4) and decoding the JSON.
     Interleaved runs; medians. Target 1.5x.
(18) An incremental sync with nothing changed vs the first sync (medians of
     the same runs). Target 0.1x.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from bench.catalog_paging import SIZE, Subject, frame_clock, latencies
from bench.common import ROOT, SCALE_BRANDS, TYPING_GAP_SECONDS, Figure, median, p95, print_figures, private_dirs

sys.path.insert(0, str(ROOT / "tests"))  # tests/apps.py

from apps import app_on

from tui.simulator import DEMO_CREDENTIALS, SimulatorServer, SimulatorSettings

CREDENTIAL = next(c for c in DEMO_CREDENTIALS if c.name == "acme-sandbox")
CONCURRENCY = 4
PAGE_SIZE = 100
WORDS = ("belka", "torven", "quizu", "ramino", "nordü", "fakel", "market", "books")  # typed a key at a time


# --- (17) and (18): syncing --------------------------------------------------------------


async def plain_walk(base_url: str) -> float:
    """The yardstick: every page with httpx alone, 4 at a time, JSON decoded."""
    import httpx

    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=base_url, auth=(CREDENTIAL.client_id, CREDENTIAL.client_secret)) as client:
        limit = asyncio.Semaphore(CONCURRENCY)

        async def page(index: int) -> dict:
            async with limit:
                response = await client.get(
                    "/api/integration/v2.0/catalog", params={"PageSize": str(PAGE_SIZE), "PageIndex": str(index)}
                )
            response.raise_for_status()
            return response.json()

        first = await page(0)
        await asyncio.gather(*(page(i) for i in range(1, -(-first["count"] // PAGE_SIZE))))
    return time.perf_counter() - started


async def timed_sync(base_url: str, path: Path) -> float:
    from tui.api.client import ServiceClient
    from tui.local.mirror import Mirror
    from tui.local.mirror_sync import sync

    started = time.perf_counter()
    async with ServiceClient(base_url, CREDENTIAL.client_id, CREDENTIAL.client_secret) as client:
        with Mirror(path) as mirror:
            await sync(mirror, client, concurrency=CONCURRENCY)
    return time.perf_counter() - started


def sync_figures(sim: SimulatorServer, runs: int, mirror_path: Path) -> tuple[list[float], list[float], list[float]]:
    asyncio.run(plain_walk(sim.base_url))  # warm: the simulator builds each page's JSON once
    plain, first, incremental = [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(runs):
            plain.append(asyncio.run(plain_walk(sim.base_url)))
            path = Path(scratch) / f"mirror-{run}.sqlite3"
            first.append(asyncio.run(timed_sync(sim.base_url, path)))
            incremental.append(asyncio.run(timed_sync(sim.base_url, path)))
    asyncio.run(timed_sync(sim.base_url, mirror_path))  # the TUI figures' mirror
    return plain, first, incremental


# --- (15): search as you type -------------------------------------------------------------


def count_searches(app: App) -> list[int]:
    """How many times the Catalog screen has searched the mirror (and filled its table if the rows changed)."""
    searches = [0]
    screen = app.screen
    reload = screen.reload

    def counted() -> None:
        reload()
        searches[0] += 1

    screen.reload = counted
    return searches


def send_key(app: App, key: str, character: str | None) -> None:
    """The key as the terminal driver would deliver it (Pilot.press adds idle waits)."""
    event = events.Key(key, character)
    event.set_sender(app)
    app._driver.send_message(event)


async def frame_after(frames: list[float], moment: float) -> float:
    while frames[0] <= moment:
        await asyncio.sleep(0)
    return frames[0]


async def search_latencies(sim: SimulatorServer, quick: bool) -> tuple[list[float], list[float]]:
    typed: list[float] = []
    idle: list[float] = []
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.from_mirror, "no mirror: the search figure needs one"
        frames = frame_clock(app)
        fills = count_searches(app)
        await pilot.press("slash")
        await pilot.pause()
        for word in WORDS[: 3 if quick else len(WORDS)]:
            for character in word:
                await pilot.pause()  # as before the idle keys: the app has drawn the last key
                await asyncio.sleep(TYPING_GAP_SECONDS)
                before = fills[0]
                pressed = time.perf_counter()
                send_key(app, character, character)
                while fills[0] == before:
                    await asyncio.sleep(0)
                typed.append((await frame_after(frames, time.perf_counter()) - pressed) * 1000)
                for key in ("left", "right"):  # the idle frame, between every two typed keys
                    await pilot.pause()
                    pressed = time.perf_counter()
                    send_key(app, key, None)
                    idle.append((await frame_after(frames, pressed) - pressed) * 1000)
            send_key(app, "ctrl+u", None)  # empty the box: the whole mirror again
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
    return typed, idle


# --- (16): next page ----------------------------------------------------------------------


class SwapApp(App[None]):
    """The yardstick: a DataTable with the Catalog's columns, `n` swaps in the next page it already holds."""

    BINDINGS = [("n", "next_page", "Next page")]

    def __init__(self, pages: list[list[tuple[str, ...]]]) -> None:
        super().__init__()
        self.pages = pages
        self.shown = -1

    def compose(self) -> ComposeResult:
        yield DataTable(cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        from tui.screens.catalog_rows import BRAND_COLUMNS

        table = self.query_one(DataTable)
        for label, width in BRAND_COLUMNS:
            table.add_column(label, width=width)
        self.show(0)

    def action_next_page(self) -> None:
        self.show(self.shown + 1)

    def show(self, index: int) -> None:
        table = self.query_one(DataTable)
        table.clear()
        table.add_rows(self.pages[index % len(self.pages)])
        self.shown = index


def swap_pages(mirror_path: Path, pages: int, size: int) -> list[list[tuple[str, ...]]]:
    from tui.api.models import Brand
    from tui.local.mirror import Mirror
    from tui.screens.catalog_rows import brand_row

    with Mirror(mirror_path) as mirror:
        return [
            [
                tuple(str(cell) for cell in brand_row(Brand.model_validate(b)))
                for b in mirror.search("", offset=i * size, limit=size).brands
            ]
            for i in range(pages + 1)
        ]


def paging_subjects(sim: SimulatorServer, mirror_path: Path, pages: int) -> list[Subject]:
    rows = swap_pages(mirror_path, pages, 50)
    return [
        Subject(
            "giftdesk catalog (mirror)",
            lambda: app_on(sim),
            lambda app: app.screen.pager.state.index if getattr(app.screen, "brands", None) else -1,
        ),
        Subject("bare DataTable swapping rows", lambda: SwapApp(rows), lambda app: app.shown),
    ]


def figures(quick: bool = False, brands: int = SCALE_BRANDS) -> list[Figure]:
    from tui.local.mirror import mirror_path

    runs, pages = (1, 30) if quick else (3, 100)
    with private_dirs(limits=False), SimulatorServer(SimulatorSettings(brands=brands, limits=None)) as sim:
        products = len(sim.state.catalog.product_by_id)
        path = mirror_path("demo-sandbox", "sandbox")  # the demo profile tests/apps.py opens
        plain, first, incremental = sync_figures(sim, runs, path)
        typed, idle = asyncio.run(search_latencies(sim, quick))
        ours, bare = (asyncio.run(latencies(subject, pages)) for subject in paging_subjects(sim, path, pages))
    where = f"{products:,} products"
    return [
        Figure(
            15,
            f"mirror search per keystroke in the TUI, p95 ({len(typed)} keys, {where})",
            p95(typed),
            p95(idle),
            "same TUI's idle frame p95",
            "ms",
            20.0,
            "value",
        ),
        Figure(
            16,
            f"next page from the mirror, p95 ({pages} pages of 50, {where})",
            p95(ours),
            p95(bare),
            "bare DataTable swapping rows",
            "ms",
            1.1,
        ),
        Figure(
            17,
            f"first sync into an empty mirror ({where}, median of {runs})",
            median(first),
            median(plain),
            "plain httpx loop, same pages and concurrency",
            "s",
            1.5,
        ),
        Figure(
            18,
            f"incremental sync, nothing changed ({where}, median of {runs})",
            median(incremental),
            median(first),
            "first sync",
            "s",
            0.1,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one sync run, 30 pages, 3 words")
    parser.add_argument("--brands", type=int, default=SCALE_BRANDS)
    args = parser.parse_args()
    print_figures(figures(args.quick, args.brands))


if __name__ == "__main__":
    main()
