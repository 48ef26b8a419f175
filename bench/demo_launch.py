"""Figure 1: launching `giftdesk --demo` to its first catalog rows on screen,
against a bare Textual app (Header, DataTable, Footer) showing its first row.

    .venv/bin/python -m bench.demo_launch [--quick] [--runs N]

Both are measured the same way: a fresh interpreter per launch, from spawning
it to the moment it reports the first frame drawn after a DataTable rendered
rows; the parent reads that report from a pipe and the child exits at once.
Both run Textual's headless driver (TEXTUAL_DRIVER), so no terminal is needed
and neither pays for drawing to one. giftdesk starts through its real entry
point (`tui.cli.main(["--demo"])`): simulator, client, first request and all.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

from bench.common import ROOT, Figure, interleaved, median, module_command, print_figures, private_dirs
from bench.first_rows import LINGER, SHOWN, SUBJECTS

HEADLESS = "textual.drivers.headless_driver:HeadlessDriver"
TARGET = 1.5  # issue 9
WARM_UP_LINGER_SECONDS = 2.0


def launch(subject: str, *, warm_up: bool = False) -> float:
    """Seconds from spawn to the child's report of its first rows on screen.

    `warm_up`: the first launch runs as a user's first run would. It writes
    the .pyc files even where the environment says not to
    (PYTHONDONTWRITEBYTECODE): without them every launch compiled giftdesk's
    ~50 modules again, while the baseline's (Textual, in site-packages) were
    compiled at install. And it lives on for a moment after its first rows
    instead of ending on them, so that what a start keeps for the next (the
    demo's first catalog page, since 2026-11-24) is kept.
    """
    env = {**os.environ, "TEXTUAL_DRIVER": HEADLESS}
    if warm_up:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env[LINGER] = str(WARM_UP_LINGER_SECONDS)
    start = time.perf_counter()
    child = subprocess.Popen(module_command("bench.first_rows", subject), cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    line = child.stdout.readline()
    shown = time.perf_counter()
    child.wait(timeout=30)
    if line != SHOWN:
        raise RuntimeError(f"{subject}: the launch did not report its first rows (exit {child.returncode})")
    return shown - start


def figures(quick: bool = False, runs: int | None = None) -> list[Figure]:
    runs = runs or (3 if quick else 9)
    with private_dirs():
        launch("giftdesk", warm_up=True)  # warm the file cache (and .pyc files) once for both
        launch("bare", warm_up=True)
        times = interleaved(runs, {subject: (lambda s=subject: launch(s)) for subject in SUBJECTS})
    ours, bare = (median(times[s]) * 1000 for s in SUBJECTS)
    return [Figure(1, f"launch `giftdesk --demo` to first catalog rows (median of {runs})", ours,
                   bare, "bare Textual app", "ms", TARGET)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer launches")
    parser.add_argument("--runs", type=int)
    args = parser.parse_args()
    print_figures(figures(args.quick, args.runs))


if __name__ == "__main__":
    main()
