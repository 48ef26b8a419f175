"""What the hostile walk tests share: the hostile strings as they must be shown, and checks.

The simulator's hostile mode (tui/simulator/hostile.py) puts one of
`HOSTILE_STRINGS` in front of every free-text field. Shown literally, each
appears in its visible form (`tui.core.safe_text.visible`); parsed as markup
or obeyed as a control, it would not.
"""

from __future__ import annotations

import io
import unicodedata

from rich.console import Console

from tui.core.safe_text import visible
from tui.simulator.hostile import HOSTILE_STRINGS, LONG_RUN

# The start of each hostile string as it must be shown: long enough to tell a
# parsed tag (gone) or an obeyed control (gone) from a literal one.
SHOWN_MARKERS: tuple[str, ...] = tuple(visible(text)[:9] for text in HOSTILE_STRINGS if text != LONG_RUN)


def raw_controls(text: str) -> list[str]:
    """Characters in `text` that would act on a terminal (or hide) rather than be drawn."""
    return sorted({repr(char) for char in text if char != "\n" and unicodedata.category(char) in ("Cc", "Cf")})


def markers_in(text: str) -> set[str]:
    return {marker for marker in SHOWN_MARKERS if marker in text}


def drawn(app) -> str:
    """Every character the app's current screen draws (toasts included), without Textual's own controls."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False)
