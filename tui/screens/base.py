"""What every giftdesk screen shares: the context bar, the footer, read-only
hiding of actions that change anything, and errors from workers shown as
notifications instead of crashing the app."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Input, TextArea
from textual.worker import Worker, WorkerState

from widgets.context_bar import ContextBar

if TYPE_CHECKING:
    from tui.screens.host import GiftdeskHost


class BaseScreen(Screen):
    # The name of this screen in tui.core.navigation.DESTINATIONS.
    destination: ClassVar[str] = ""
    # Actions that change something at the service: never offered read-only.
    WRITE_ACTIONS: ClassVar[frozenset[str]] = frozenset()

    # A screen opens on its table, never in a text field: the digit keys that
    # move between screens must not be typed into a form (its own key focuses it).
    AUTO_FOCUS = "DataTable"
    # esc first leaves a text field (so digits navigate again), then goes back.
    BINDINGS = [Binding("escape", "leave_field_or_back", "Back", id="screen.back")]

    app: GiftdeskHost

    def compose(self) -> ComposeResult:
        yield ContextBar()
        yield from self.compose_body()
        yield Footer()

    def compose_body(self) -> ComposeResult:
        raise NotImplementedError

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Textual: False hides a binding (footer, palette) and refuses it; None only dims it.
        if action in self.WRITE_ACTIONS and self.app.readonly:
            return False  # read-only: not offered at all
        stack = self.app.screen_stack
        at_start = action == "leave_field_or_back" and not self._in_text_field() and self in stack[:2]
        return not at_start  # the start screen: nothing to go back to

    def _in_text_field(self) -> bool:
        return isinstance(self.focused, (Input, TextArea))

    async def action_leave_field_or_back(self) -> None:
        if self._in_text_field():
            self.set_focus(None)
        else:
            await self.app.action_back()

    def accept_jump(self, argument: str) -> None:
        """Handle `:<destination> ARGUMENT`; screens that take one override this."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.app.report_error(event.worker.error)
