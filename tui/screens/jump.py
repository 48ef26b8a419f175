"""The `:` prompt (k9s habit): type where to go, enter goes there."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from tui.core.jump import Jump, JumpError, parse_jump, usage
from widgets.safe_text import VisibleControls, safe


class JumpScreen(ModalScreen[Jump | None]):
    DEFAULT_CSS = """
    JumpScreen { align: center top; }
    JumpScreen > Vertical { width: 80%; max-width: 100; height: auto; margin-top: 2; background: $surface; border: tall $accent; padding: 0 1; }
    JumpScreen #jump-error { color: $error; width: 100%; }
    """
    BINDINGS = [Binding("escape", "close", "Close", id="jump.close")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(
                placeholder="order ID · payout TOKEN · profile NAME · a screen",
                id="jump-input",
                highlighter=VisibleControls(),
            )  # a paste may hold anything
            yield Label(usage(), id="jump-error")

    @on(Input.Submitted)
    def go(self, event: Input.Submitted) -> None:
        try:
            self.dismiss(parse_jump(event.value))
        except JumpError as error:
            self.query_one("#jump-error", Label).update(safe(error))  # quotes what was pasted

    def action_close(self) -> None:
        self.dismiss(None)
