"""`?`: every key, the jump-to commands, and what the colours mean."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from tui.core.jump import usage
from tui.core.navigation import DESTINATIONS
from tui.screens.base import BaseScreen

_KEY_NAMES = {"question_mark": "?", "colon": ":", "escape": "esc", "slash": "/"}


KEY_WIDTH = 8  # the key column: `ctrl+p` and a little air
# A screen's own keys have short names: three to a line (3 x 26 cells fit 80 columns).
SCREEN_KEY_COLUMNS, SCREEN_KEY_CELL, SCREEN_KEY_WIDTH = 3, 26, 6


def _row(key: str, what: str) -> str:
    return f"  {key:<{KEY_WIDTH}} {what}"


def help_text() -> str:
    """Every screen's key and the keys that work everywhere: one line each, no boxes (80x24 shows most of it)."""
    screens = [_row(_KEY_NAMES.get(d.key, d.key), f"{d.title}: {d.help}") for d in DESTINATIONS]
    everywhere = [
        _row(":", f"Jump to; tab completes. {usage()}"),
        _row("esc", "Back to the previous screen"),
        _row("ctrl+p", "Command palette: every key's action, searchable"),
        _row("/", "Filter the rows on screen (tables)"),
        _row("c", "Copy the selected id"),
        _row("ctrl+q", "Quit"),
    ]
    colours = (
        "Colours. A red top bar that says PRODUCTION means real money, real customers: anything that moves "
        "money there asks you to type a confirmation. READ-ONLY in the bar: actions that change anything "
        "are not offered. Choices say their state in text too: (•) chosen, ( ) not, [x] ticked."
    )
    return "\n".join(["Screens", *screens, "", "Everywhere", *everywhere, "", colours])


def screen_keys_text(screen: Screen) -> str:
    """The keys of one screen, from its own bindings (the same registry as its footer)."""
    cells = []
    for active in screen.active_bindings.values():
        binding = active.binding
        # Our bindings all carry an id; Textual's built-in ones (tab, copy) do not.
        if active.node is screen and binding.id and screen.check_action(binding.action, ()) is not False:
            key = binding.key_display or _KEY_NAMES.get(binding.key, binding.key)
            cells.append(f"{key:<{SCREEN_KEY_WIDTH}} {binding.description}"[:SCREEN_KEY_CELL].ljust(SCREEN_KEY_CELL))
    if not cells:
        return ""
    title = getattr(screen, "destination", "") or "this screen"
    rows = [
        "  " + "".join(cells[i : i + SCREEN_KEY_COLUMNS]).rstrip() for i in range(0, len(cells), SCREEN_KEY_COLUMNS)
    ]
    return "\n".join([f"On the {title.title()} screen", *rows, ""])


class HelpScreen(BaseScreen):
    destination = "help"
    # The page itself takes the keys (↓, PageDown, Home...): it is all there is to do here.
    AUTO_FOCUS = "#help-page"

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="help-page"):
            yield Static(id="help-screen-keys", markup=False)
            yield Static(help_text(), id="help-all", markup=False)

    def on_mount(self) -> None:
        # The screen help was opened from is the one below it.
        below = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        keys = screen_keys_text(below) if isinstance(below, BaseScreen) else ""
        self.query_one("#help-screen-keys", Static).update(keys)
