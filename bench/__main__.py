"""Every figure of issue 9 in one run: `make bench` or `python -m bench [--quick]`.

Prints each figure next to its same-run baseline as it comes, then the table,
and writes the table to bench/results.md with the machine and the date.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time

from bench import catalog_paging, cli_order_show, cpu_idle, demo_launch, sim_catalog, watch_list
from bench.common import ROOT, Figure, load_average

RESULTS = ROOT / "bench" / "results.md"
MODULES = (demo_launch, cli_order_show, catalog_paging, sim_catalog, cpu_idle, watch_list)  # figures 1, 2, 3-4, 5, 6, 13


def machine() -> str:
    return f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.platform()}"


def table(figures: list[Figure]) -> str:
    rows = ["| figure | value | baseline | ratio | target | met? |", "|---|---|---|---|---|---|"]
    for f in sorted(figures, key=lambda f: f.number):
        met = {True: "yes", False: "**no**", None: "-"}[f.met]
        rows.append(f"| ({f.number}) {f.name} | {f.value:.4g} {f.unit} | {f.baseline_name}: {f.baseline:.4g} {f.unit} "
                    f"| {f.ratio:.2f}x | {f.target} | {met} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and shorter windows (about a minute)")
    quick = parser.parse_args().quick
    started = time.perf_counter()
    loads = [load_average()]
    print(f"{machine()}\n{loads[0]}", flush=True)
    figures: list[Figure] = []
    for module in MODULES:
        print(f"\n{module.__name__}", flush=True)
        for figure in module.figures(quick):
            print(figure.line(), flush=True)
            figures.append(figure)
        loads.append(load_average())
        print(loads[-1], flush=True)
    summary = table(figures)
    print(f"\n{summary}\n\n{time.perf_counter() - started:.0f} s in all")
    RESULTS.write_text(
        "# Benchmark results\n\n"
        f"Written by `{'python -m bench --quick' if quick else 'make bench'}` on "
        f"{datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}.\n\n"
        f"Machine: {machine()}.\n\n"
        f"Load while running (1, 5, 15 min): {'; '.join(loads)}.\n\n"
        "Each value is next to a baseline measured in the same run; the ratio is value / baseline. "
        "How each figure is measured is in the docstring of its script in bench/.\n\n"
        f"{summary}\n"
    )
    print(f"written to {RESULTS.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
