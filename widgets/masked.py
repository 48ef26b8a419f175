"""A secret on screen: masked by default, shown in clear only on an explicit call.

DESIGN rule 6: card codes, PINs and payout links stay masked in screenshots
unless a person asked to see them. The clear value is never part of the
widget's repr, and a new value always arrives masked.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from tui.api.redact import MASK
from tui.core.safe_text import visible


def _fully_masked(value: str) -> str:
    return MASK


class MaskedValue(Static):
    DEFAULT_CSS = """
    MaskedValue { width: auto; height: auto; }
    MaskedValue.-revealed { text-style: bold; color: $warning; }
    """

    revealed: reactive[bool] = reactive(False, layout=True)  # clear and masked differ in width

    def __init__(self, *, mask: Callable[[str], str] = _fully_masked, empty: str = "—", **kwargs) -> None:
        super().__init__(**kwargs)
        self._value: str | None = None
        self._mask = mask
        self._empty = empty

    def __repr__(self) -> str:
        return f"MaskedValue(id={self.id!r}, revealed={self.revealed})"

    @property
    def has_value(self) -> bool:
        return bool(self._value)

    def set_value(self, value: str | None, *, empty: str | None = None) -> None:
        """A new value, masked; `empty` is what shows when there is none (e.g. "withheld")."""
        self._value = value
        if empty is not None:
            self._empty = empty
        self.revealed = False
        self.refresh(layout=True)

    def reveal(self) -> None:
        self.revealed = self.has_value

    def hide(self) -> None:
        self.revealed = False

    def watch_revealed(self, revealed: bool) -> None:
        self.set_class(revealed, "-revealed")

    def render(self) -> Text:
        if not self._value:
            return Text(visible(self._empty), style="dim")
        return Text(visible(self._value if self.revealed else self._mask(self._value)))
