"""`?`: every key, the jump-to commands, and what the colours mean."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Markdown

from tui.core.jump import usage
from tui.core.navigation import DESTINATIONS
from tui.screens.base import BaseScreen

_KEY_NAMES = {"question_mark": "?", "colon": ":", "escape": "esc", "slash": "/"}


def help_markdown() -> str:
    screens = "\n".join(f"| `{_KEY_NAMES.get(d.key, d.key)}` | {d.title} | {d.help} |" for d in DESTINATIONS)
    return f"""\
# giftdesk help

| Key | Screen | What it is for |
|---|---|---|
{screens}

| Key | Everywhere |
|---|---|
| `:` | Jump to: {usage()} |
| `esc` | Back to the previous screen |
| `ctrl+p` | Command palette: every key's action, searchable |
| `/` | Filter the rows on screen (tables) |
| `c` | Copy the selected id |
| `ctrl+q` | Quit |

**Colours.** A red top bar means **PRODUCTION**: real money, real customers.
Anything that moves money there asks you to type a confirmation.
**READ-ONLY** in the bar means actions that change anything are not offered.
"""


def screen_keys_markdown(screen: Screen) -> str:
    """The keys of one screen, from its own bindings (the same registry as its footer)."""
    rows = []
    for active in screen.active_bindings.values():
        binding = active.binding
        # Our bindings all carry an id; Textual's built-in ones (tab, copy) do not.
        if active.node is screen and binding.id and screen.check_action(binding.action, ()) is not False:
            rows.append(
                f"| `{binding.key_display or _KEY_NAMES.get(binding.key, binding.key)}` | {binding.description} |"
            )
    if not rows:
        return ""
    title = getattr(screen, "destination", "") or "this screen"
    return f"| Key | On the {title.title()} screen |\n|---|---|\n" + "\n".join(rows) + "\n"


class HelpScreen(BaseScreen):
    destination = "help"
    # The page itself takes the keys (↓, PageDown, Home...): it is all there is to do here.
    AUTO_FOCUS = "#help-page"

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="help-page"):
            yield Markdown(id="help-screen-keys")
            yield Markdown(help_markdown())

    def on_mount(self) -> None:
        # The screen help was opened from is the one below it.
        below = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        keys = screen_keys_markdown(below) if isinstance(below, BaseScreen) else ""
        self.query_one("#help-screen-keys", Markdown).update(keys)
