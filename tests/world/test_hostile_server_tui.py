"""The TUI's main screens against the hostile server's attacks (issue 24): each screen says what went
wrong within the (short, in tests) deadlines; nothing crashes, nothing waits forever."""

from __future__ import annotations

import asyncio

import pytest
from apps import app_on, notifications, settle
from hostile_walk import drawn

SIZE = (120, 36)
# What a screen may say when the service fails it, in words a person reads (not a traceback).
SAID = (
    "deadline",
    "timed out",
    "larger than",
    "nested deeper",
    "out of any sane range",
    "not JSON",
    "connection lost",
    "unexpected shape",
    "could not",
    "failed",
)


@pytest.mark.parametrize("attack", ["drip", "gzip_bomb", "deep_unclosed", "absurd_number", "drop"])
@pytest.mark.parametrize("destination", ["accounts", "catalog"])
async def test_a_main_screen_says_what_went_wrong(hostile_env, attack, destination):
    hostile_env.attack = attack
    app = app_on(hostile_env)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate(destination)
        shown = ""
        for _ in range(100):  # 10 s at most: the request's deadline is 2 s, its retries within it
            await asyncio.sleep(0.1)
            shown = drawn(app) + " ".join(notifications(app))
            if any(words in shown for words in SAID):
                break
        await settle(pilot)
        assert any(words in shown for words in SAID), f"{attack} on {destination}: {shown[-800:]}"
        assert "Traceback" not in shown and "unexpected error" not in shown
        assert app.is_running
