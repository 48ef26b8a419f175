"""Filters checked where they are typed, and a quick filter for the rows on screen.

`FilterBar` lays out labelled one-line inputs in a grid; each field has its
own validators and shows the first failure right under itself (the line for
it is mounted with the first failure: a screen's start mounts no hidden lines). `enter` in
any field applies the whole bar, but only when every field is valid: a bad
value never reaches the service. `RowFilter` is the `/` box: it narrows what
is already on screen and asks nothing of the service.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.validation import Function, Regex, Validator
from textual.widget import Widget
from textual.widgets import Input, Label

from widgets.safe_text import safe


@dataclass(frozen=True)
class FilterField:
    name: str  # key in FilterBar.values()
    label: str
    placeholder: str = ""
    width: int = 8  # of the input, in cells
    validators: tuple[Validator, ...] = ()


# --- validators shared by every filter bar -------------------------------------


def letters(count: int, example: str) -> Validator:
    return Regex(rf"^\s*[A-Za-z]{{{count}}}\s*$", failure_description=f"{count} letters, e.g. {example}")


def _is_positive_int(text: str) -> bool:
    text = text.strip()
    return text.isdigit() and int(text) > 0


def positive_int(description: str = "a number above 0") -> Validator:
    return Function(_is_positive_int, failure_description=description)


def int_between(low: int, high: int) -> Validator:
    return Function(lambda text: _is_positive_int(text) and low <= int(text) <= high, failure_description=f"{low} to {high}")


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text.strip())
    except ValueError:
        return False
    return True


def real_date() -> Validator:
    return Function(_is_date, failure_description="a date: YYYY-MM-DD")


# --- the bar -----------------------------------------------------------------


class FilterBar(Widget):
    DEFAULT_CSS = """
    FilterBar { layout: grid; grid-size: 4; grid-columns: 1fr; grid-rows: auto; grid-gutter: 0 1; height: auto; padding: 0 1; }
    FilterBar .filter-field { height: auto; }
    FilterBar .filter-field Horizontal { height: 1; }
    FilterBar .filter-field Label.filter-label { color: $text-muted; padding-right: 1; }
    FilterBar .filter-field Input.-invalid { background: $error 30%; }
    FilterBar .filter-error { color: $error; display: none; width: 100%; }
    FilterBar .filter-error.-shown { display: block; }
    """

    class Applied(Message):
        """Every field is valid; `values` holds the non-empty ones, stripped."""

        def __init__(self, values: dict[str, str]) -> None:
            super().__init__()
            self.values = values

    def __init__(self, fields: Sequence[FilterField], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.fields = tuple(fields)

    def compose(self) -> ComposeResult:
        for field in self.fields:
            with Vertical(id=f"filter-{field.name}-field", classes="filter-field"), Horizontal():
                yield Label(field.label, classes="filter-label")
                yield Input(
                    id=f"filter-{field.name}",
                    placeholder=field.placeholder,
                    validators=list(field.validators),
                    validate_on=["submitted", "blur"],
                    valid_empty=True,
                    compact=True,
                ).set_styles(f"width: {field.width};")

    def input_for(self, name: str) -> Input:
        return self.query_one(f"#filter-{name}", Input)

    def _error_line(self, name: str) -> Label | None:
        """The line under a field that says what is wrong; None until it first had something to say."""
        found = self.query(f"#filter-{name}-error").results(Label)
        return next(found, None)

    def error_for(self, name: str) -> str:
        line = self._error_line(name)
        return "" if line is None else str(line.content)

    def values(self) -> dict[str, str]:
        return {f.name: value for f in self.fields if (value := self.input_for(f.name).value.strip())}

    def set_values(self, values: dict[str, str]) -> None:
        for field in self.fields:
            self.input_for(field.name).value = values.get(field.name, "")

    def _check(self, field: FilterField) -> bool:
        """Validate one field and show (or clear) its message."""
        field_input = self.input_for(field.name)
        result = field_input.validate(field_input.value)
        problem = "" if result is None or result.is_valid else result.failure_descriptions[0]
        message = self._error_line(field.name)
        if message is None:
            if not problem:
                return True
            message = Label("", id=f"filter-{field.name}-error", classes="filter-error")
            self.query_one(f"#filter-{field.name}-field", Vertical).mount(message)  # under its label and input
        message.update(safe(problem))  # may quote what was typed
        message.set_class(bool(problem), "-shown")
        return not problem

    def _field_of(self, field_input: Input) -> FilterField:
        return next(f for f in self.fields if f"filter-{f.name}" == field_input.id)

    def on_input_blurred(self, event: Input.Blurred) -> None:
        self._check(self._field_of(event.input))

    def on_input_changed(self, event: Input.Changed) -> None:
        # Clear a shown message as soon as the value is fixed; don't nag mid-typing.
        field = self._field_of(event.input)
        message = self._error_line(field.name)
        if message is not None and message.has_class("-shown"):
            self._check(field)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        results = [self._check(field) for field in self.fields]
        if all(results):
            self.post_message(self.Applied(self.values()))
        else:
            self.input_for(self.fields[results.index(False)].name).focus()


class RowFilter(Input):
    """The `/` box: narrows the rows on screen; `escape` empties and hides it."""

    DEFAULT_CSS = """
    RowFilter { display: none; width: 100%; }
    RowFilter.-open { display: block; }
    """
    BINDINGS = [Binding("escape", "close", "Close filter", id="row-filter.close")]
    # Input sets its virtual size on every key typed, and Widget's says "lay out the screen again"
    # when it changes: a whole-screen layout pass per key. This box is one line of a fixed size
    # that scrolls its own text, so a repaint is all a key needs.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    class Closed(Message):
        """Emptied and hidden: the screen decides where focus goes next."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="filter the rows on screen (esc closes)", id=id, compact=True)

    def open(self) -> None:
        self.add_class("-open")
        self.focus()

    def action_close(self) -> None:
        self.clear()
        self.remove_class("-open")
        self.post_message(self.Closed())
