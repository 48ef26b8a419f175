"""What every benchmark shares: the Figure record, interleaved timing, private directories."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCALE_BRANDS = 22_000  # the simulator's catalog at about 100,000 products (issues 5 and 9)
# Keys typed in the per-keystroke figures (13, 15) come this far apart: ten a second, a fast typist.
# Closer than a frame (16.7 ms), a key waits for Textual's next 60 fps frame tick whatever the app does.
TYPING_GAP_SECONDS = 0.1


@dataclass(frozen=True)
class Figure:
    """One measured figure and its same-run baseline.

    `limit` is the target: a ratio (value / baseline) by default, or with
    `limit_on="value"` an absolute bound on the value, or with
    `limit_on="difference"` a bound on value - baseline (in `unit`).
    """

    number: int
    name: str
    value: float
    baseline: float
    baseline_name: str
    unit: str
    limit: float | None = None
    limit_on: str = "ratio"

    @property
    def ratio(self) -> float:
        return self.value / self.baseline if self.baseline else float("inf")

    @property
    def target(self) -> str:
        if self.limit is None:
            return "-"
        if self.limit_on == "value":
            return f"<= {self.limit:g} {self.unit}"
        if self.limit_on == "difference":
            return f"<= baseline + {self.limit:g} {self.unit}"
        return f"<= {self.limit:g}x"

    @property
    def met(self) -> bool | None:
        if self.limit is None:
            return None
        measured = {"value": self.value, "difference": self.value - self.baseline}.get(self.limit_on, self.ratio)
        return measured <= self.limit

    def line(self) -> str:
        verdict = {True: "met", False: "MISSED", None: ""}[self.met]
        return (
            f"({self.number}) {self.name}: {self.value:.4g} {self.unit} vs {self.baseline_name} "
            f"{self.baseline:.4g} {self.unit} -> {self.ratio:.2f}x  {self.target} {verdict}"
        )


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def print_figures(figures: Iterable[Figure]) -> None:
    """A script's figures, one line each, after the load they were measured under."""
    print(load_average())
    for figure in figures:
        print(figure.line())


def run_counted(description: str, figures: Callable[[bool, int | None], Iterable[Figure]], quick_help: str) -> None:
    """A script's own command line for figures measured over a number of runs: `--quick`, `--runs N`."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--runs", type=int)
    args = parser.parse_args()
    print_figures(figures(args.quick, args.runs))


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * 0.95) - 1)]


def interleaved(runs: int, subjects: dict[str, Callable[[], float]]) -> dict[str, list[float]]:
    """Each subject `runs` times, taking turns, so that a burst of load hits all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in subjects}
    for _ in range(runs):
        for name, measure in subjects.items():
            times[name].append(measure())
    return times


def timed_process(command: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds from spawning `command` to its exit (stdout discarded)."""
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def module_command(module: str, *args: str) -> list[str]:
    """Run a bench module in a fresh interpreter (`python -m bench.x`), from the repository root."""
    return [sys.executable, "-m", module, *args]


@contextmanager
def private_dirs(*, limits: bool = True) -> Iterator[None]:
    """Config, data, log and cache dirs in a temporary directory: a benchmark never touches the user's.
    `limits=False`: a speed figure, whose simulator enforces no limits (`limits=None`): the client's are
    relaxed too (GIFTDESK_LIMITS), so that what is measured is giftdesk, not the provider's pace."""
    names = ("GIFTDESK_DATA_DIR", "GIFTDESK_LOG_DIR", "GIFTDESK_CACHE_DIR", "GIFTDESK_CONFIG", "GIFTDESK_LIMITS")
    saved = {name: os.environ.get(name) for name in names}
    with tempfile.TemporaryDirectory() as private:
        os.environ["GIFTDESK_DATA_DIR"] = os.environ["GIFTDESK_LOG_DIR"] = os.environ["GIFTDESK_CACHE_DIR"] = private
        os.environ["GIFTDESK_CONFIG"] = str(Path(private) / "config.toml")
        if not limits:
            from tui.api.limits import DEFAULT_LIMITS

            os.environ["GIFTDESK_LIMITS"] = ",".join(f"{name}=1000000/s" for name in DEFAULT_LIMITS)
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
