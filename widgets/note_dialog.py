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
    NoteDialog Label { margin-bottom: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="note.cancel")]

    def __init__(self, request_id: str) -> None:
        super().__init__()
        self.request_id = request_id

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(safe(f"Note on {self.request_id} (enter keeps it, esc drops it)"))
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
