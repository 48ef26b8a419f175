"""Simulator catalog benchmark: generation time and v2 page latency over HTTP.

    .venv/bin/python bench/sim_catalog.py [--brands 20000] [--requests 50]

Prints figures only (no pass/fail): the goal is one v2 page in under 20 ms
with 20,000 brands (~100,000 products).
"""

from __future__ import annotations

import argparse
import statistics
import time

import httpx

from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential
from tui.simulator.catalog import build_catalog

QUERIES = {
    "first page": {},
    "page 150": {"PageIndex": "150"},
    "country+currency": {"CountryCode": "FR", "CurrencyCode": "EUR", "PageIndex": "3"},
    "name substring": {"Name": "ka"},
    "modified after": {"ModifiedDate": "2024-06-01"},
    "target currency": {"TargetCurrency": "EUR", "PageIndex": "10"},
    "product id": {"ProductId": "50000"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--brands", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()

    started = time.perf_counter()
    catalog = build_catalog(1, args.brands)
    generated = time.perf_counter() - started
    print(f"catalog: {len(catalog.brands):,} brands, {len(catalog.product_by_id):,} products, "
          f"generated and indexed in {generated * 1000:.0f} ms")

    with SimulatorServer(SimulatorSettings(brands=args.brands)) as sim, httpx.Client(
        base_url=sim.base_url, auth=demo_credential("acme-sandbox").auth
    ) as client:
        for label, params in QUERIES.items():
            timings = []
            for _ in range(args.requests):
                started = time.perf_counter()
                response = client.get("/api/integration/v2.0/catalog", params=params)
                timings.append((time.perf_counter() - started) * 1000)
                response.raise_for_status()
            timings.sort()
            p95 = timings[int(len(timings) * 0.95) - 1]
            print(f"v2 {label:<18} count={response.json()['count']:>6}  "
                  f"median {statistics.median(timings):5.1f} ms  p95 {p95:5.1f} ms")


if __name__ == "__main__":
    main()
