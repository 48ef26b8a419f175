"""Confirmation before anything that changes state.

In production the person types a phrase (DESIGN rule 7: never one key away);
the Confirm button stays disabled until the phrase matches, and a wrong
phrase says so. A phrase given with a `phrase_prompt` is asked for by what it
is ("the last four characters of the recipient's name"), not shown: typing it
proves the person read the line it comes from.

A summary line may be a `PrivateLine`: shown in clear (the person must check
it), masked in screenshots (rule 6) like every revealed `MaskedValue`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from widgets.masked import MaskedValue
from widgets.safe_text import safe


@dataclass(frozen=True)
class PrivateLine:
    label: str  # padded as the plain lines around it are, e.g. "Recipient    "
    value: str
    mask: Callable[[str], str]


SummaryLine = str | PrivateLine


class ConfirmScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 72; max-width: 100%; height: auto; max-height: 100%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    ConfirmScreen.-production > Vertical { border: thick $error; }
    ConfirmScreen #title { text-style: bold; margin-bottom: 1; }
    ConfirmScreen #summary { height: auto; margin-bottom: 1; }
    ConfirmScreen .private-line { height: auto; }
    ConfirmScreen .private-line > Static { width: auto; }
    ConfirmScreen #asking { width: 100%; height: auto; }
    ConfirmScreen #phrase-problem { color: $error; height: auto; }
    ConfirmScreen #buttons { height: auto; align-horizontal: right; }
    ConfirmScreen Button { margin-left: 2; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="confirm.cancel")]

    def __init__(
        self,
        title: str,
        summary: Sequence[SummaryLine],
        *,
        typed_phrase: str | None = None,
        phrase_prompt: str | None = None,
        confirm_label: str = "Confirm",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.summary = list(summary)
        self.typed_phrase = typed_phrase
        self.phrase_prompt = phrase_prompt  # what the phrase is, asked for instead of showing it
        self.confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        self.set_class(self.typed_phrase is not None, "-production")
        with Vertical():
            yield Label(safe(self.title_text), id="title")
            with Vertical(id="summary"):
                yield from _summary_widgets(self.summary)
            if self.typed_phrase is not None:
                yield Label(self._asking(), id="asking")
                yield Input(id="phrase", placeholder="type it here")
                yield Static("", id="phrase-problem")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(
                    self.confirm_label,
                    id="confirm",
                    variant="error" if self.typed_phrase else "primary",
                    disabled=self.typed_phrase is not None,
                )

    def summary_text(self) -> str:
        """The summary as it reads on screen (private values as shown), for tests and the log of a session."""
        return "\n".join(
            str(widget.render())
            if not isinstance(widget, Horizontal)
            else "".join(str(part.render()) for part in widget.query(Static))
            for widget in self.query_one("#summary").children
        )

    def _asking(self) -> Text:
        if self.phrase_prompt is None:
            return Text.assemble("Type ", (self.typed_phrase or "", "bold"), " to confirm:")
        return Text.assemble("To confirm, type ", (self.phrase_prompt, "bold"), ":")

    def on_mount(self) -> None:
        for value in self.query(MaskedValue):
            value.reveal()  # the person checks it; a screenshot masks it again
        self.query_one("#phrase" if self.typed_phrase is not None else "#cancel").focus()

    def _matches(self, typed: str) -> bool:
        return self.typed_phrase is not None and typed.strip().casefold() == self.typed_phrase.casefold()

    def _say_wrong(self, wrong: bool) -> None:
        what = self.phrase_prompt or f"“{self.typed_phrase}”"
        self.query_one("#phrase-problem", Static).update(
            Text(f"That is not {what}: look at the lines above and type it again.") if wrong else ""
        )

    @on(Input.Changed, "#phrase")
    def check_phrase(self, event: Input.Changed) -> None:
        matches = self._matches(event.value)
        self.query_one("#confirm", Button).disabled = not matches
        # Said once the typing is as long as the phrase: not while it is still being typed.
        self._say_wrong(not matches and len(event.value.strip()) >= len(self.typed_phrase or ""))

    @on(Input.Submitted, "#phrase")
    def submit_phrase(self, event: Input.Submitted) -> None:
        if self._matches(event.value):
            self.dismiss(True)
        else:
            self._say_wrong(True)

    @on(Button.Pressed, "#confirm")
    def confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


def _summary_widgets(lines: Sequence[SummaryLine]) -> ComposeResult:
    """Runs of plain lines as one text each (names and URLs from outside: shown, never obeyed); private lines apart."""
    plain: list[str] = []
    for line in [*lines, None]:
        if isinstance(line, str):
            plain.append(line)
            continue
        if plain:
            yield Static(safe("\n".join(plain), multiline=True))
            plain = []
        if isinstance(line, PrivateLine):
            value = MaskedValue(mask=line.mask)
            value.set_value(line.value)
            with Horizontal(classes="private-line"):
                yield Static(safe(line.label))
                yield value
