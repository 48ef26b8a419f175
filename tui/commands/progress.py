"""Progress for long commands: a rich bar on stderr when it is a terminal, nothing otherwise.

Data stays on stdout and a pipe or a log sees no bar. rich loads only when
a bar is really drawn.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from tui.api.limits import Limit

Advance = Callable[..., None]  # advance(steps=1, total=None): total may be learned late


@contextmanager
def progress(description: str, total: int | None = None, *, stream: TextIO | None = None) -> Iterator[Advance]:
    """`with progress("fetching pages", total) as advance: ... advance()`."""
    stream = stream or sys.stderr
    if not stream.isatty():
        yield _silent
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(file=stream), transient=True) as bar:
        task = bar.add_task(description, total=total)

        def advance(steps: int = 1, total: int | None = None) -> None:
            if total is not None:
                bar.update(task, total=total)
            bar.advance(task, steps)

        yield advance


def say_pace(requests: int, limit: Limit | None) -> None:
    """Before a walk that the provider's limit paces: how long it will take at that rate (on stderr)."""
    if limit is None or requests <= limit.requests:
        return
    from tui.commands.output import say

    seconds = (requests - limit.requests) * limit.interval
    say(f"{requests} requests at the provider's limit of {limit}: about {_minutes(seconds)}")


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def _silent(steps: int = 1, total: int | None = None) -> None:
    """No terminal: no progress."""
