"""Where we are in a paged list: "page i of n · count brands", and go-to-page.

`PageState` is the arithmetic (zero-based index inside, one-based for people);
`Pager` shows it and asks for a jump with `Pager.JumpRequested`. The keys for
previous / next / first / last belong to the screen, which owns the request.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Label, Static

from tui.core.words import counted
from widgets.safe_text import safe


@dataclass(frozen=True)
class PageState:
    index: int = 0  # zero-based, as the service counts
    size: int = 50
    count: int = 0  # matching items over all pages

    @property
    def pages(self) -> int:
        return max(1, -(-self.count // self.size))

    def at(self, index: int) -> PageState:
        """This state moved to `index`, kept inside the known pages."""
        return replace(self, index=min(max(index, 0), self.pages - 1))

    def describe(self, noun: str) -> str:
        return f"page {self.index + 1:,} of {self.pages:,} · {counted(self.count, noun)}"


def parse_page_number(text: str, pages: int) -> int | str:
    """A one-based page number typed by a person -> zero-based index, or what is wrong."""
    text = text.strip()
    if not text.isdigit() or not 1 <= int(text) <= pages:
        return f"1 to {pages:,}"
    return int(text) - 1


class Pager(Horizontal):
    """One line: the page status and a note (e.g. "prices in EUR"), then a go-to box."""

    DEFAULT_CSS = """
    Pager { height: 1; width: 100%; }
    Pager #pager-status { width: 1fr; padding: 0 1; }
    Pager #pager-go { width: auto; color: $text-muted; }
    Pager #pager-jump { width: 9; }
    Pager #pager-error { width: auto; color: $error; padding: 0 1; }
    """

    class JumpRequested(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    state: reactive[PageState] = reactive(PageState, init=False, always_update=True)  # an answer is news, even the same
    note: reactive[str] = reactive("", init=False)
    busy: reactive[bool] = reactive(False, init=False)  # not `loading`: that is Widget's overlay
    activity: reactive[str] = reactive("loading…", init=False)  # what busy means now, e.g. "loading page 2…"

    def __init__(self, noun: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.noun = noun
        self.answered = False  # no page count is shown before the first answer: it would be made up

    def compose(self) -> ComposeResult:
        yield Static(self._status(), id="pager-status")
        # Go-to is offered once there are pages to go to.
        yield Label("g: page ", id="pager-go").set_styles(display="block" if self.answered else "none")
        yield Input(placeholder=self._range(), id="pager-jump", compact=True, max_length=7).set_styles(
            display="block" if self.answered else "none"
        )
        yield Label("", id="pager-error")

    def _status(self) -> Text:
        status = Text(self.state.describe(self.noun) if self.answered else "", style="bold")
        if self.busy:
            status.append(f" · {self.activity}" if self.answered else self.activity)
        if self.note:
            status.append(f"   {self.note}", style="italic")
        return status

    def _show_status(self) -> None:
        # A fixed-width box: no layout pass (a whole-screen reflow) per page.
        self.query_one("#pager-status", Static).update(self._status(), layout=False)

    def _range(self) -> str:
        return f"1–{self.state.pages}" if self.answered else ""

    def watch_state(self) -> None:
        if not self.answered:
            self.answered = True
            for widget in self.query("#pager-go, #pager-jump"):
                widget.display = True
        self._show_status()
        self.query_one("#pager-jump", Input).placeholder = self._range()

    watch_busy = watch_note = watch_activity = _show_status

    def focus_jump(self) -> None:
        self.query_one("#pager-jump", Input).focus()

    @on(Input.Submitted, "#pager-jump")
    def jump(self, event: Input.Submitted) -> None:
        event.stop()
        target = parse_page_number(event.value, self.state.pages)
        error = self.query_one("#pager-error", Label)
        if isinstance(target, str):
            error.update(safe(target))  # quotes what was typed
            return
        error.update("")
        event.input.clear()
        self.post_message(self.JumpRequested(target))
