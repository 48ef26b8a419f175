"""Ask which format an export is written in: CSV or JSON (esc cancels)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from tui.core.words import counted
from tui.local.exports import FORMATS, ExportFormat


class ExportDialog(ModalScreen["ExportFormat | None"]):
    DEFAULT_CSS = """
    ExportDialog { align: center middle; }
    ExportDialog > Vertical {
        width: 60; max-width: 100%; height: auto;
        border: thick $accent; background: $surface; padding: 1 2;
    }
    ExportDialog #export-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    ExportDialog Button { margin-left: 2; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="export.cancel"),
        Binding("c", "choose('csv')", "CSV", id="export.csv"),
        Binding("j", "choose('json')", "JSON", id="export.json"),
    ]

    def __init__(self, what: str, row_count: int) -> None:
        super().__init__()
        self.what = what
        self.row_count = row_count

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Export {counted(self.row_count, 'row')} of {self.what}, as shown (masked)")
            with Horizontal(id="export-buttons"):
                yield Button("Cancel", id="cancel")
                for fmt in FORMATS:
                    yield Button(fmt.upper(), id=fmt, variant="primary")

    def action_choose(self, fmt: ExportFormat) -> None:
        self.dismiss(fmt)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        button_id = event.button.id or ""
        self.dismiss(next((fmt for fmt in FORMATS if fmt == button_id), None))
