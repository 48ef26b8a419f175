"""Statuses as coloured words: the same colour means the same thing everywhere.

Green: done and good. Red: failed, returned or reversed. Yellow: needs a
person's eye (paused, unclaimed, partial). Blue: still moving. An unknown
status is shown exactly as it came, dim and italic, and counts as not final.
The "colour-blind" palette (config `palette`) swaps the four colours for
ones told apart without red and green; the status word is shown either way.
"""

from __future__ import annotations

from rich.text import Text

from tui.core.safe_text import visible

STATUS_LIMIT = 60  # characters of an unknown status shown
_GOOD = {"sold", "succeeded", "completed"}
_BAD = {"failed", "returned", "reversed"}
_ATTENTION = {"paused", "unclaimed", "partialfailed"}
_MOVING = {"created", "processing", "pending"}
_UNKNOWN = "italic dim"

# good, bad, attention, moving. "colour-blind": from the Okabe-Ito palette, told apart with
# any of the common colour vision deficiencies (no red against green); the word is always there too.
PALETTES: dict[str, tuple[str, str, str, str]] = {
    "standard": ("bold green", "bold red", "bold yellow", "bold dodger_blue2"),
    "colour-blind": ("bold #56b4e9", "bold #d55e00", "bold #f0e442", "bold #cc79a7"),
}
_palette = PALETTES["standard"]


def use_palette(name: str) -> None:
    """Status colours from now on (the config's `palette`); an unknown name is a KeyError."""
    global _palette
    _palette = PALETTES[name]


def status_style(status: str | None) -> str:
    key = (status or "").strip().lower()
    good, bad, attention, moving = _palette
    if key in _GOOD:
        return good
    if key in _BAD:
        return bad
    if key in _ATTENTION:
        return attention
    if key in _MOVING:
        return moving
    return _UNKNOWN


def status_text(status: str | None) -> Text:
    # An unknown one as it came (made visible, and cut if it is absurdly long).
    return Text(visible(status, limit=STATUS_LIMIT) if status else "(no status)", style=status_style(status))
