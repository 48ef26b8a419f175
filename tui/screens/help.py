"""`?`: every key, the jump-to commands, and what the colours mean."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from tui.jump import usage
from tui.navigation import DESTINATIONS
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


class HelpScreen(BaseScreen):
    destination = "help"

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(help_markdown())
