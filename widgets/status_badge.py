"""Statuses as coloured words: the same colour means the same thing everywhere.

Green: done and good. Red: failed, returned or reversed. Yellow: needs a
person's eye (paused, unclaimed, partial). Blue: still moving. An unknown
status is shown exactly as it came, dim and italic, and counts as not final.
"""

from __future__ import annotations

from rich.text import Text

from tui.core.safe_text import visible

STATUS_LIMIT = 60  # characters of an unknown status shown
_GOOD = {"sold", "succeeded", "completed"}
_BAD = {"failed", "returned", "reversed"}
_ATTENTION = {"paused", "unclaimed", "partialfailed"}
_MOVING = {"created", "processing", "pending"}


def status_style(status: str | None) -> str:
    key = (status or "").strip().lower()
    if key in _GOOD:
        return "bold green"
    if key in _BAD:
        return "bold red"
    if key in _ATTENTION:
        return "bold yellow"
    if key in _MOVING:
        return "bold dodger_blue2"
    return "italic dim"


def status_text(status: str | None) -> Text:
    # An unknown one as it came (made visible, and cut if it is absurdly long).
    return Text(visible(status, limit=STATUS_LIMIT) if status else "(no status)", style=status_style(status))
