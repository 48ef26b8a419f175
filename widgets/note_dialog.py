"""A one-line note on an order: typed, then enter keeps it, escape drops it.

Keeping it is the caller's `keep`: when that fails (a bad note, the team database away) the dialog stays,
the text as typed, and says why, so nothing typed is lost (issue 35): enter tries again, esc drops it.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from widgets.safe_text import VisibleControls, safe


class NoteDialog(ModalScreen[str | None]):
    DEFAULT_CSS = """
    NoteDialog { align: center middle; }
    NoteDialog > Vertical { width: 72; max-width: 100%; height: auto; border: thick $primary; background: $surface; padding: 1 2; }
    NoteDialog #note-keys { margin-bottom: 1; color: $text-muted; }
    NoteDialog #note-problem { display: none; color: $error; margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="note.cancel")]

    def __init__(self, request_id: str, keep: Callable[[str], object]) -> None:
        """`keep(text)` keeps the note; a ValueError or OSError from it is said here, and the dialog stays."""
        super().__init__()
        self.request_id = request_id
        self._keep = keep

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
            yield Static(id="note-problem")

    @on(Input.Submitted, "#note-text")
    def keep(self, event: Input.Submitted) -> None:
        try:
            self._keep(event.value)
        except (ValueError, OSError) as error:  # a bad note, or the team database away
            problem = self.query_one("#note-problem", Static)
            problem.update(safe(f"Not kept: {error}. The note stays here: enter tries again, esc drops it."))
            problem.display = True
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
