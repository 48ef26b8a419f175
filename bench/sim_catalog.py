"""Figure 5: the simulator's answer time for one catalog page at 100,000 products,
and for a full catalog walk with bounded concurrency.

    .venv/bin/python -m bench.sim_catalog [--quick] [--brands 22000] [--requests 50]

Baseline: the same server answering the accounts list (a tiny fixed answer:
HTTP and auth alone), as many times and with the same concurrency. The walk
fetches every v2 page of 100 brands, 4 at a time (as `giftdesk catalog --all`
does). Figures only: issue 9 sets no target for these. Also prints the time to
generate and index the catalog, and the median of a few filtered queries.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from bench.common import SCALE_BRANDS, Figure, interleaved, load_average, median, p95

CATALOG = "/api/integration/v2.0/catalog"
ACCOUNTS = "/api/integration/v1.0/accounts"
WALK_PAGE_SIZE = 100
WALK_CONCURRENCY = 4  # tui/commands/catalog.py PAGE_FETCH_CONCURRENCY
QUERIES = {
    "page 150": {"PageIndex": "150"},
    "country+currency": {"CountryCode": "FR", "CurrencyCode": "EUR", "PageIndex": "3"},
    "name substring": {"Name": "ka"},
    "target currency": {"TargetCurrency": "EUR", "PageIndex": "10"},
}


def timed_get(client, path: str, params: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    client.get(path, params=params).raise_for_status()
    return time.perf_counter() - started


def walk(client, pages: int, request: Callable[[int], float]) -> float:
    """Seconds to make `pages` requests, WALK_CONCURRENCY at a time."""
    started = time.perf_counter()
    with ThreadPoolExecutor(WALK_CONCURRENCY) as pool:
        list(pool.map(request, range(pages)))
    return time.perf_counter() - started


def figures(quick: bool = False, brands: int = SCALE_BRANDS, requests: int | None = None) -> list[Figure]:
    import httpx

    from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential

    requests = requests or (15 if quick else 50)
    with (
        SimulatorServer(SimulatorSettings(brands=brands, limits=None)) as sim,
        httpx.Client(
            base_url=sim.base_url, auth=demo_credential("acme-sandbox").auth, limits=httpx.Limits(max_connections=8)
        ) as client,
    ):
        products = len(sim.state.catalog.product_by_id)
        timed_get(client, CATALOG)  # first request: connection and caches
        one = interleaved(
            requests, {"page": lambda: timed_get(client, CATALOG), "accounts": lambda: timed_get(client, ACCOUNTS)}
        )
        for label, params in QUERIES.items():
            times = [timed_get(client, CATALOG, params) * 1000 for _ in range(max(5, requests // 5))]
            print(f"  v2 {label:<17} median {median(times):5.1f} ms  p95 {p95(times):5.1f} ms")
        pages = -(-brands // WALK_PAGE_SIZE)
        walks = interleaved(
            1 if quick else 3,
            {
                "catalog": lambda: walk(
                    client,
                    pages,
                    lambda i: timed_get(client, CATALOG, {"PageIndex": str(i), "PageSize": str(WALK_PAGE_SIZE)}),
                ),
                "accounts": lambda: walk(client, pages, lambda i: timed_get(client, ACCOUNTS)),
            },
        )
    return [
        Figure(
            5,
            f"simulator: one catalog page at {products:,} products (median of {requests})",
            median(one["page"]) * 1000,
            median(one["accounts"]) * 1000,
            "accounts answer",
            "ms",
        ),
        Figure(
            5,
            f"simulator: full walk, {pages} pages of {WALK_PAGE_SIZE}, {WALK_CONCURRENCY} at a time",
            median(walks["catalog"]) * 1000,
            median(walks["accounts"]) * 1000,
            f"{pages} accounts answers",
            "ms",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests")
    parser.add_argument("--brands", type=int, default=SCALE_BRANDS)
    parser.add_argument("--requests", type=int)
    args = parser.parse_args()
    print(load_average())
    started = time.perf_counter()
    from tui.simulator.catalog import build_catalog

    catalog = build_catalog(1, args.brands)
    print(
        f"catalog: {len(catalog.brands):,} brands, {len(catalog.product_by_id):,} products, generated and "
        f"indexed in {(time.perf_counter() - started) * 1000:.0f} ms"
    )
    for figure in figures(args.quick, args.brands, args.requests):
        print(figure.line())


if __name__ == "__main__":
    main()
