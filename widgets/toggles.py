"""Radio buttons and checkboxes whose state is in the text, not only in colour.

Textual draws both states the same shape (`▐●▌`, `▐X▌`) and tells them apart by colour: in plain text,
a screenshot pasted in a ticket, or to a colour-blind engineer the chosen wallet is invisible. These
draw `(•) PayPal  ( ) Venmo` and `[x] Read-only` / `[ ] Read-only`, colour kept on top. Every screen
uses them instead of Textual's own.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox, RadioButton


class _StatedInText:
    """The button part drawn as `left + mark + right`, the mark shown only when on."""

    MARKS: tuple[str, str, str] = ("(", "•", ")")
    value: bool

    @property
    def _button(self) -> Content:  # Textual's ToggleButton draws its button from this (pinned Textual, see pyproject)
        left, mark, right = self.MARKS
        button_style = self.get_visual_style("toggle--button")  # type: ignore[attr-defined]
        label_style = self.get_visual_style("toggle--label")  # type: ignore[attr-defined]
        return Content.assemble((left, label_style), (mark if self.value else " ", button_style), (right, label_style))


class StatedRadioButton(_StatedInText, RadioButton):
    """`(•) PayPal` when chosen, `( ) Venmo` when not."""


class StatedCheckbox(_StatedInText, Checkbox):
    """`[x] Read-only` when ticked, `[ ] Read-only` when not."""

    MARKS = ("[", "x", "]")
