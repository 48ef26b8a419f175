"""The TUI's start with the cyclic collector off (tui/cli.py) and its resumption (tui/app.py). Issue 16."""

from __future__ import annotations

import gc
import weakref

from tui.app_settings import resume_collector


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: garbage only the collector can free


def test_the_collector_resumes_with_what_the_start_made_frozen():
    gc.disable()
    try:
        node = Node()
        gone = weakref.ref(node)
        del node
        assert gone() is not None  # the start's garbage waits
        resume_collector()
        assert gone() is None  # collected first
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0  # what lived through the start is out of later full collections
    finally:
        gc.unfreeze()
        gc.enable()


async def test_the_collector_resumes_after_the_first_rows_not_before(sim):
    from apps import app_on, until

    from tui.app_settings import START_COLLECTOR_PAUSE_SECONDS

    app = app_on(sim)
    gc.disable()  # as the command line starts the TUI
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert not gc.isenabled()  # mounted: the first rows are not there yet
            await until(pilot, lambda: screen.brands and gc.isenabled(), timeout=START_COLLECTOR_PAUSE_SECONDS / 2)
    finally:
        gc.unfreeze()
        gc.enable()
