"""Every figure of issue 9 in one run: `make bench` or `python -m bench [--quick] [--figures 1,2]`.

Prints each figure next to its same-run baseline as it comes, then the table,
and writes the table to bench/results.md with the machine and the date.
`--figures` (or `make bench FIGURES=1,2`) runs only the scripts of those
figures and prints their table without touching bench/results.md, which
always holds one whole run.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time

from bench import (
    busy_hour,
    catalog_mirror,
    catalog_paging,
    cli_order_show,
    cpu_idle,
    demo_launch,
    order_case,
    orders_board,
    receiver,
    receiver_flood,
    sim_catalog,
    team,
    watch_list,
)
from bench.common import ROOT, Figure, load_average

RESULTS = ROOT / "bench" / "results.md"
# Each script with the figure numbers it measures.
MODULES = (
    (demo_launch, {1}),
    (cli_order_show, {2}),
    (catalog_paging, {3, 4}),
    (sim_catalog, {5}),
    (cpu_idle, {6}),
    (orders_board, {13}),
    (watch_list, {14}),
    (catalog_mirror, {15, 16, 17, 18}),
    (team, {19, 20, 21}),
    (receiver, {28, 29, 30}),
    (busy_hour, {31, 32, 33, 34}),
    (receiver_flood, {37, 38}),
    (order_case, {39, 40}),
)


def machine() -> str:
    return f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.platform()}"


def table(figures: list[Figure]) -> str:
    rows = ["| figure | value | baseline | ratio | target | met? |", "|---|---|---|---|---|---|"]
    for f in sorted(figures, key=lambda f: f.number):
        met = {True: "yes", False: "**no**", None: "-"}[f.met]
        rows.append(
            f"| ({f.number}) {f.name} | {f.value:.4g} {f.unit} | {f.baseline_name}: {f.baseline:.4g} {f.unit} "
            f"| {f.ratio:.2f}x | {f.target} | {met} |"
        )
    return "\n".join(rows)


def figure_numbers(text: str) -> set[int]:
    try:
        numbers = {int(part) for part in text.split(",") if part.strip()}
    except ValueError:
        raise argparse.ArgumentTypeError(f"figure numbers separated by commas, e.g. 1,2 (not {text!r})") from None
    known = set().union(*(numbers for _, numbers in MODULES))
    if not numbers or not numbers <= known:
        raise argparse.ArgumentTypeError(f"known figures: {', '.join(map(str, sorted(known)))}")
    return numbers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and shorter windows (about a minute)")
    parser.add_argument(
        "--figures",
        metavar="N,N",
        type=figure_numbers,
        help="only the scripts measuring these figures (e.g. 1,2); bench/results.md is left as is",
    )
    args = parser.parse_args()
    quick, wanted = args.quick, args.figures
    started = time.perf_counter()
    loads = [load_average()]
    print(f"{machine()}\n{loads[0]}", flush=True)
    figures: list[Figure] = []
    for module, numbers in MODULES:
        if wanted is not None and not numbers & wanted:
            continue
        print(f"\n{module.__name__}", flush=True)
        for figure in module.figures(quick):
            print(figure.line(), flush=True)
            figures.append(figure)
        loads.append(load_average())
        print(loads[-1], flush=True)
    summary = table(figures)
    print(f"\n{summary}\n\n{time.perf_counter() - started:.0f} s in all")
    if wanted is not None:
        return
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
