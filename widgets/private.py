"""What rule 6 masks, masked for a screenshot (DESIGN rule 6).

A text field holding a private value (a recipient, a weblink, a secret) carries
the `PRIVATE` class; card codes and PINs are `MaskedValue`s. `masked_for_screenshot`
hides them all on every screen of the stack (a modal's background is in the
picture too) and returns what puts them back as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from textual.screen import Screen
from textual.widgets import Input

from widgets.masked import MaskedValue

PRIVATE = "private"  # CSS class of an Input whose value is masked in screenshots


def masked_for_screenshot(screens: Iterable[Screen]) -> Callable[[], None]:
    fields = [field for screen in screens for field in screen.query(f"Input.{PRIVATE}").results(Input)]
    shown = [(field, field.password) for field in fields]
    revealed = [
        value for screen in screens for value in screen.query(MaskedValue).results(MaskedValue) if value.revealed
    ]
    for field in fields:
        field.password = True
    for value in revealed:
        value.hide()

    def restore() -> None:
        for field, password in shown:
            field.password = password
        for value in revealed:
            value.reveal()

    return restore
