"""A standing notice while the terminal is smaller than the layouts are made for (issue 39).

A toast said it once and went: at 60x20 the cut text stayed, unexplained, for the rest of the shift. This line
stays on every screen while the terminal is too small, says its size and what giftdesk needs, and goes when the
window is large enough. The app sets its `-too-small` class (tui.app); each screen composes one of these.
"""

from __future__ import annotations

from textual.widgets import Static

SMALLEST = (80, 24)  # the layouts fit this


def is_too_small(width: int, height: int) -> bool:
    return width < SMALLEST[0] or height < SMALLEST[1]


class TooSmall(Static):
    SCOPED_CSS = False  # its rule names the app's class, above this widget
    DEFAULT_CSS = """
    TooSmall { height: auto; width: 100%; padding: 0 1; display: none;
               background: $warning 40%; color: $text; text-style: bold; }
    .-too-small TooSmall { display: block; }
    """

    def render(self) -> str:
        width, height = self.app.size
        return (
            f"⚠ Terminal too small: {width}x{height}; giftdesk needs {SMALLEST[0]}x{SMALLEST[1]} or more, "
            "so some text is cut. Make the window larger."
        )

    def on_resize(self) -> None:
        self.refresh()
