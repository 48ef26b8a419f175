"""Background tasks whose failure is said, never left to the event loop's "exception was never retrieved"."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any


def said_task(
    work: Coroutine[Any, Any, None], name: str, on_failure: Callable[[BaseException], None]
) -> asyncio.Task[None]:
    """`work` as a task of the running loop; if it ends with an error (not by being cancelled),
    `on_failure` hears it, so whoever shows things can say what stopped."""
    task = asyncio.get_running_loop().create_task(work, name=name)

    def ended(done: asyncio.Task[None]) -> None:
        error = None if done.cancelled() else done.exception()
        if error is not None:
            on_failure(error)

    task.add_done_callback(ended)
    return task
