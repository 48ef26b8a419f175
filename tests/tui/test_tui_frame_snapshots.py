"""What the frame looks like: sandbox, production and read-only, small and wide.

The Help screen is the subject: its content is fixed, so the snapshot shows
the frame (context bar, footer, production colours) and nothing that moves.
"""

from __future__ import annotations

import pytest
from apps import app_on

CASES = {
    "sandbox": {"profile": "demo-sandbox"},
    "production": {"profile": "demo-production"},
    "readonly": {"profile": "demo-sandbox", "readonly": True},
}


async def _open_help(pilot) -> None:
    await pilot.press("question_mark")
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
@pytest.mark.parametrize("case", list(CASES))
def test_frame(snap_compare, sim, case, size):
    assert snap_compare(app_on(sim, **CASES[case]), terminal_size=size, run_before=_open_help)
