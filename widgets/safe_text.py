"""Outside text for Textual widgets: literal, never markup (DESIGN rule 8).

DataTable parses a plain `str` cell as markup, and `notify()` and
`Static.update()` parse markup by default. Outside text goes through `safe()`,
which returns a Rich `Text` (drawn as it is, never parsed) built from
`tui.core.safe_text.visible` (control characters shown, never emitted).
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from tui.core.safe_text import visible


def safe(text: object, *, style: str | Style = "", multiline: bool = False, limit: int | None = None) -> Text:
    """A Text that shows `text` literally, controls made visible."""
    return Text(visible(text, multiline=multiline, limit=limit), style=style, end="")
