"""Outside text for Textual widgets: literal, never markup (DESIGN rule 8).

DataTable parses a plain `str` cell as markup, and `notify()` and
`Static.update()` parse markup by default. Outside text goes through `safe()`,
which returns a Rich `Text` (drawn as it is, never parsed) built from
`tui.core.safe_text.visible` (control characters shown, never emitted).
Table rows go through `safe_row()`; notifications are made literal by the app
itself (`GiftdeskHost.notify`); an `Input` that may hold outside text (filled
from the service, or pasted) takes `highlighter=VisibleControls()`.
"""

from __future__ import annotations

from rich.highlighter import Highlighter
from rich.style import Style
from rich.text import Text

from tui.core.safe_text import visible, visible_in_place


def safe(text: object, *, style: str | Style = "", multiline: bool = False, limit: int | None = None) -> Text:
    """A Text that shows `text` literally, controls made visible."""
    return Text(visible(text, multiline=multiline, limit=limit), style=style, end="")


CELL_LIMIT = 200  # a table cell shows at most this many characters, then how many there were


def safe_row(*cells: object) -> tuple[Text, ...]:
    """DataTable cells: a `Text` stays as it was built (from `safe()` parts); anything else is shown literally.

    A cell longer than CELL_LIMIT is cut and says its length: a 10,000-character
    name must not make a column 10,000 cells wide.
    """
    return tuple(cell if isinstance(cell, Text) else safe(cell, limit=CELL_LIMIT) for cell in cells)


def safe_assemble(*parts: Text | str | tuple[str, str | Style], multiline: bool = False) -> Text:
    """Like `Text.assemble`: a `Text` part is kept as built; every other (plain or `(text, style)`) is shown literally."""
    text = Text(end="")
    for part in parts:
        if isinstance(part, Text):
            text.append_text(part)
            continue
        content, style = part if isinstance(part, tuple) else (part, "")
        text.append_text(safe(content, style=style, multiline=multiline))
    return text


class VisibleControls(Highlighter):
    """For an `Input` (it draws its value as given): each control character is drawn as one stand-in.

    One for one, so the cursor stays where the value's characters are; the value itself is untouched.
    """

    def highlight(self, text: Text) -> None:
        text.plain = visible_in_place(text.plain)
