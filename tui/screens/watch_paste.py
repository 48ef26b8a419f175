"""The watch list's paste dialog: many RequestIds and card codes at once, one a line.

Each line is classified as it is typed (a payout URL or weblink token is a
payout, anything else a RequestId) and shown back, payouts masked, so a
person sees what will be watched before adding it.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static, TextArea

from styles import STYLES
from tui.api.redact import mask_weblink
from tui.core.safe_text import visible
from tui.core.watching import Pasted, classify_lines

PREVIEW_LINES = 6


def preview(pasted: list[Pasted]) -> Text:
    """ "3 orders, 1 payout" and the first few, as they will be watched (payouts masked)."""
    orders = sum(p.kind == "order" for p in pasted)
    payouts = len(pasted) - orders
    text = Text(
        f"{orders} order{'s' if orders != 1 else ''}, {payouts} payout{'s' if payouts != 1 else ''}", style="bold"
    )
    for item in pasted[:PREVIEW_LINES]:
        shown = item.reference if item.kind == "order" else mask_weblink(item.reference)
        text.append(f"\n{item.kind:<7}", style="dim")
        text.append(visible(shown, limit=60))
    if len(pasted) > PREVIEW_LINES:
        text.append(f"\n… and {len(pasted) - PREVIEW_LINES} more", style="dim")
    return text


class PasteDialog(ModalScreen["list[Pasted] | None"]):
    CSS_PATH = STYLES / "watch.tcss"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="watch-paste.cancel"),
        Binding("ctrl+s", "add", "Add all", id="watch-paste.add"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="paste-box"):
            yield Label("Paste RequestIds and card codes (payout URLs or weblinks), one a line")
            yield TextArea(id="paste-text", soft_wrap=False, show_line_numbers=False)
            yield Static(preview([]), id="paste-preview")
            with Horizontal(id="paste-buttons"):
                yield Button("Cancel", id="paste-cancel")
                yield Button("Add all (ctrl+s)", id="paste-add", variant="primary")

    @on(TextArea.Changed, "#paste-text")
    def classify(self) -> None:
        self.query_one("#paste-preview", Static).update(preview(self._pasted()))

    def _pasted(self) -> list[Pasted]:
        return classify_lines(self.query_one("#paste-text", TextArea).text)

    def action_add(self) -> None:
        self.dismiss(self._pasted())

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#paste-add")
    def add_pressed(self) -> None:
        self.action_add()

    @on(Button.Pressed, "#paste-cancel")
    def cancel_pressed(self) -> None:
        self.action_cancel()
