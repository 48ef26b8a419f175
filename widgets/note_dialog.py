"""A one-line note on an order: typed, then enter keeps it, escape drops it."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from widgets.safe_text import VisibleControls, safe


class NoteDialog(ModalScreen[str | None]):
    DEFAULT_CSS = """
    NoteDialog { align: center middle; }
    NoteDialog > Vertical { width: 72; max-width: 100%; height: auto; border: thick $primary; background: $surface; padding: 1 2; }
    NoteDialog #note-keys { margin-bottom: 1; color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="note.cancel")]

    def __init__(self, request_id: str) -> None:
        super().__init__()
        self.request_id = request_id

    def compose(self) -> ComposeResult:
        with Vertical():
            # Two lines: the RequestId alone is 44 cells with its words, the keys would cut it in 64.
            yield Label(safe(f"Note on {self.request_id}"), id="note-title")
            yield Label("enter keeps it, esc drops it", id="note-keys")
            yield Input(
                placeholder="customer called 10:42, code re-sent",
                id="note-text",
                max_length=2000,
                highlighter=VisibleControls(),
            )

    @on(Input.Submitted, "#note-text")
    def keep(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
