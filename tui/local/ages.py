"""How long ago, in words: every freshness line's ("as of 12:04 (3 min ago)", the mirror's, the kept first page's).

A module of its own, light: the start's kept page says its age before anything opens the report copies
(tui.local.report_copies: SQLite and the limiter).
"""

from __future__ import annotations

import time


def as_of(fetched: float, now: float | None = None) -> str:
    """ "as of 12:04 (3 min ago)": when a screen's data came from the service."""
    seconds = max(0.0, (time.time() if now is None else now) - fetched)
    return f"as of {time.strftime('%H:%M', time.localtime(fetched))} ({ago(seconds)})"


def ago(seconds: float) -> str:
    """Seconds as a person says them: "just now", "5 min ago", "3 h ago", "2 days ago"."""
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min ago"
    if seconds < 2 * 86400:
        return f"{seconds // 3600:.0f} h ago"
    return f"{seconds // 86400:.0f} days ago"
