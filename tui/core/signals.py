"""What ends a wait from outside: Ctrl-C, SIGTERM, a cancellation; and the words for each.

A write cut off so is traced as "outcome unknown" (tui.money). Light on purpose: every
command imports it as it starts (no asyncio, no pydantic).
"""

from __future__ import annotations

import sys


class Terminated(BaseException):
    """SIGTERM, raised where the process was waiting (the command line installs the handler)."""


def interruption(error: BaseException) -> str | None:
    """Words for what ended a wait from outside (a signal, a cancellation), or None."""
    if isinstance(error, KeyboardInterrupt):
        return "interrupted (Ctrl-C / SIGINT)"
    if isinstance(error, Terminated):
        return "terminated (SIGTERM)"
    asyncio = sys.modules.get("asyncio")  # not imported for it: without asyncio loaded nothing was cancelled
    if asyncio is not None and isinstance(error, asyncio.CancelledError):
        return "cancelled (the screen closed or giftdesk quit)"
    return None
