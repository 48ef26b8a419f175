"""Several orders match what was typed (`:order 1234abcd`, `--order`): one of them, chosen (issue 38).

Each candidate is a line: its order number, status and date where a local copy said them, its RequestId, and where
giftdesk saw it. enter opens the highlighted one; esc opens none. Every part is outside text, shown as its characters.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList

from tui.core.order_ids import KnownOrder
from tui.core.words import counted
from widgets.safe_text import safe


def candidate_line(order: KnownOrder) -> Text:
    """`O-00500199 · Failed · 2026-11-28 · 1234abcd-… (orders report)`: what tells one candidate from another."""
    parts = [part for part in (order.order_number, order.status, (order.day or "")[:10]) if part]
    line = safe(" · ".join([*parts, order.request_id]))
    if order.where:
        line.append_text(safe(f" ({order.where})", style="dim"))
    return line


class OrderPicker(ModalScreen[str | None]):
    """Dismissed with the chosen order's RequestId, or None."""

    DEFAULT_CSS = """
    OrderPicker { align: center middle; }
    OrderPicker > Vertical { width: 96; max-width: 100%; height: auto; max-height: 100%;
                             border: thick $primary; background: $surface; padding: 0 1; }
    OrderPicker #picker-keys { color: $text-muted; }
    OrderPicker OptionList { height: auto; max-height: 14; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker.cancel")]

    def __init__(self, typed: str, candidates: Sequence[KnownOrder]) -> None:
        super().__init__()
        self.typed = typed
        self.candidates = list(candidates)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(safe(f"{self.typed!r} matches {counted(len(self.candidates), 'order')}: which one?"))
            yield Label("enter opens it, esc none", id="picker-keys")
            yield OptionList(*(candidate_line(order) for order in self.candidates), id="picker-orders")

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = 0

    @on(OptionList.OptionSelected, "#picker-orders")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.candidates[event.option_index].request_id)

    def action_cancel(self) -> None:
        self.dismiss(None)
