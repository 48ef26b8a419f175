"""Filters checked where they are typed, and a quick filter for the rows on screen.

`FilterBar` lays out labelled one-line inputs in a grid (mounted once the screen
has shown its first content, until then a preview of them); each field has its
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

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.validation import Function, Regex, Validator
from textual.widget import Widget
from textual.widgets import Input, Label

from widgets.safe_text import safe

FIELDS_LATEST_SECONDS = 1.0  # the fields come this long after the bar at the latest, whatever the screen shows


@dataclass(frozen=True)
class FilterField:
    name: str  # key in FilterBar.values()
    label: str
    placeholder: str = ""
    width: int = 8  # of the input, in cells
    validators: tuple[Validator, ...] = ()


UNSET = "any"  # what an empty filter field shows: never an example that reads as a value in force


def shown_placeholder(field: FilterField) -> str:
    """An empty field's text: a number is the default in force (Per page 50); anything else is an example
    (`US`, `part of name`), which grey text would pass off as an active filter, so the field says `any`."""
    return field.placeholder if field.placeholder.isdigit() else UNSET


def example_tip(field: FilterField) -> str | None:
    """The example an empty field no longer shows, as its tooltip."""
    return None if field.placeholder.isdigit() or not field.placeholder else f"{field.label}: e.g. {field.placeholder}"


# --- validators shared by every filter bar -------------------------------------


def letters(count: int, example: str) -> Validator:
    return Regex(rf"^\s*[A-Za-z]{{{count}}}\s*$", failure_description=f"{count} letters, e.g. {example}")


def _is_positive_int(text: str) -> bool:
    text = text.strip()
    return text.isdigit() and int(text) > 0


def positive_int(description: str = "a number above 0") -> Validator:
    return Function(_is_positive_int, failure_description=description)


def int_between(low: int, high: int) -> Validator:
    return Function(
        lambda text: _is_positive_int(text) and low <= int(text) <= high, failure_description=f"{low} to {high}"
    )


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text.strip())
    except ValueError:
        return False
    return True


def real_date() -> Validator:
    return Function(_is_date, failure_description="a date: YYYY-MM-DD")


# --- the bar -----------------------------------------------------------------


def fields_preview(
    fields: Sequence[FilterField], values: dict[str, str], columns: int, gutter: int, width: int
) -> Text:
    """Each field's label and value (or placeholder), dim, laid out in `columns` of 1fr as the bar's grid."""
    room = width - gutter * (columns - 1)
    cells = [room * (column + 1) // columns - room * column // columns for column in range(columns)]
    lines = []
    for start in range(0, len(fields), columns):
        shown = []
        for cell, field in zip(cells, fields[start : start + columns], strict=False):
            text = Text.assemble(
                (field.label, "dim"), " ", safe(values.get(field.name) or shown_placeholder(field), style="dim")
            )
            text.truncate(max(cell, 0), pad=True)
            shown.append(text)
        lines.append(Text(" " * gutter, end="").join(shown))
    return Text("\n", end="").join(lines)


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
        self._pending: dict[str, str] = {}  # values set before the fields were mounted
        self._focus_pending: str | None = None  # a field asked for before it was mounted
        self._inputs: dict[
            str, Input
        ] = {}  # by field name, once the fields are made (then they answer, mounted or not)

    # The fields (a label, an input and their boxes each: some 30 widgets, a sixth of the screen's
    # start) are mounted when the screen says its first content is on screen (`mount_fields`), when
    # one is asked for focus, or FIELDS_LATEST_SECONDS after mounting; until then the bar draws what
    # they will look like, in the same lines, so nothing moves when they come.

    def on_mount(self) -> None:
        self.set_timer(FIELDS_LATEST_SECONDS, self.mount_fields)

    @property
    def fields_mounted(self) -> bool:
        return bool(self._inputs)

    async def mount_fields(self) -> None:
        if self.fields_mounted:
            return
        self._inputs = {field.name: self._input(field) for field in self.fields}
        await self.mount_all(
            Vertical(
                Horizontal(Label(field.label, classes="filter-label"), self._inputs[field.name]),
                id=f"filter-{field.name}-field",
                classes="filter-field",
            )
            for field in self.fields
        )
        if self._focus_pending is not None:
            self._inputs[self._focus_pending].focus()

    def _input(self, field: FilterField) -> Input:
        return Input(
            self._pending.get(field.name, ""),
            id=f"filter-{field.name}",
            placeholder=shown_placeholder(field),
            tooltip=example_tip(field),
            validators=list(field.validators),
            validate_on=["submitted", "blur"],
            valid_empty=True,
            compact=True,
        ).set_styles(f"width: {field.width};")

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self.fields_mounted:
            return super().get_content_height(container, viewport, width)
        return -(-len(self.fields) // max(self.styles.grid_size_columns, 1))  # the grid's rows, to come

    def render(self) -> Text:
        """Until the fields are mounted: what they will show (fields_preview)."""
        if self.fields_mounted:
            return Text()
        return fields_preview(
            self.fields,
            self._pending,
            max(self.styles.grid_size_columns, 1),
            self.styles.grid_gutter_horizontal,
            self.content_size.width,
        )

    def input_for(self, name: str) -> Input:
        return self._inputs[name]

    def focus_field(self, name: str) -> None:
        """Focus a field, now or as soon as it is mounted."""
        if self.fields_mounted:
            self.input_for(name).focus()
        else:
            self._focus_pending = name
            self.call_later(self.mount_fields)

    def _error_line(self, name: str) -> Label | None:
        """The line under a field that says what is wrong; None until it first had something to say."""
        found = self.query(f"#filter-{name}-error").results(Label)
        return next(found, None)

    def error_for(self, name: str) -> str:
        line = self._error_line(name)
        return "" if line is None else str(line.content)

    def values(self) -> dict[str, str]:
        if not self.fields_mounted:
            return {name: value.strip() for name, value in self._pending.items() if value.strip()}
        return {f.name: value for f in self.fields if (value := self.input_for(f.name).value.strip())}

    def set_values(self, values: dict[str, str]) -> None:
        if not self.fields_mounted:
            self._pending = {field.name: values.get(field.name, "") for field in self.fields}
            self.refresh()
            return
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
        # At once, not at the app's next turn (`focus()`): keys typed in the same breath as `/` are this box's.
        self.screen.set_focus(self)

    def action_close(self) -> None:
        self.clear()
        self.remove_class("-open")
        self.post_message(self.Closed())
