"""The `:` prompt (k9s habit): type where to go, enter goes there."""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label

from tui.core.jump import QUIT, Jump, JumpError, completions, parse_jump, usage
from widgets.safe_text import VisibleControls, safe
from widgets.textual_private import shown_suggestion


class JumpScreen(ModalScreen[Jump | None]):
    DEFAULT_CSS = """
    JumpScreen { align: center top; }
    JumpScreen > Vertical { width: 80%; max-width: 100; height: auto; margin-top: 2; background: $surface; border: tall $accent; padding: 0 1; }
    JumpScreen #jump-error { color: $error; width: 100%; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", id="jump.close"),
        Binding("tab", "complete", "Complete", id="jump.complete", priority=True),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(
                placeholder="order ID · payout TOKEN · profile NAME · a screen",
                id="jump-input",
                highlighter=VisibleControls(),
                suggester=SuggestFromList(completions(), case_sensitive=False),  # shown dim; tab or → takes it
            )  # a paste may hold anything
            yield Label(usage(), id="jump-error")

    async def on_key(self, event: events.Key) -> None:
        """Keys typed in the same breath as `:` (one read of the terminal) reach the bar before its field has the
        focus: they go into it, and enter submits."""
        field = self.query_one("#jump-input", Input)
        if field.has_focus:
            return
        if event.key == "enter":
            event.stop()
            await field.action_submit()
        elif event.is_printable and event.character:
            event.stop()
            field.insert_text_at_cursor(event.character)

    @on(Input.Submitted)
    def go(self, event: Input.Submitted) -> None:
        try:
            jump = parse_jump(event.value)
        except JumpError as error:
            self.query_one("#jump-error", Label).update(safe(error))  # quotes what was pasted
            return
        if jump.destination == QUIT:
            self.app.exit()
            return
        self.dismiss(jump)

    @on(Input.Changed)
    def typing(self) -> None:
        """The last error was about what was typed before: while typing, the line says what may be typed."""
        self.query_one("#jump-error", Label).update(usage())

    def action_complete(self) -> None:
        """Tab takes the suggestion shown (as → does at the end of the line)."""
        field = self.query_one("#jump-input", Input)
        suggestion = shown_suggestion(field)
        if suggestion:
            field.value = suggestion
            field.cursor_position = len(field.value)

    def action_close(self) -> None:
        self.dismiss(None)
