"""Confirmation before anything that changes state.

In production the person types a phrase (DESIGN rule 7: never one key away);
the Confirm button stays disabled until the phrase matches.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from widgets.safe_text import safe


class ConfirmScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 72; max-width: 100%; height: auto; max-height: 100%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    ConfirmScreen.-production > Vertical { border: thick $error; }
    ConfirmScreen #title { text-style: bold; margin-bottom: 1; }
    ConfirmScreen #summary { margin-bottom: 1; }
    ConfirmScreen #buttons { height: auto; align-horizontal: right; }
    ConfirmScreen Button { margin-left: 2; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="confirm.cancel")]

    def __init__(self, title: str, summary: list[str], *, typed_phrase: str | None = None, confirm_label: str = "Confirm") -> None:
        super().__init__()
        self.title_text = title
        self.summary = summary
        self.typed_phrase = typed_phrase
        self.confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        self.set_class(self.typed_phrase is not None, "-production")
        with Vertical():
            yield Label(safe(self.title_text), id="title")
            yield Static(safe("\n".join(self.summary), multiline=True), id="summary")  # names and URLs from outside
            if self.typed_phrase is not None:
                yield Label(f"Type [b]{self.typed_phrase}[/b] to confirm:")
                yield Input(id="phrase", placeholder="type the phrase above")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(self.confirm_label, id="confirm", variant="error" if self.typed_phrase else "primary", disabled=self.typed_phrase is not None)

    def on_mount(self) -> None:
        self.query_one("#phrase" if self.typed_phrase is not None else "#cancel").focus()

    @on(Input.Changed, "#phrase")
    def check_phrase(self, event: Input.Changed) -> None:
        self.query_one("#confirm", Button).disabled = event.value.strip() != self.typed_phrase

    @on(Input.Submitted, "#phrase")
    def submit_phrase(self) -> None:
        if not self.query_one("#confirm", Button).disabled:
            self.dismiss(True)

    @on(Button.Pressed, "#confirm")
    def confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)
