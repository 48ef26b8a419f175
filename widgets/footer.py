"""Textual's Footer, built once per batch of binding changes (issue 16).

Textual's Footer recomposes (unmounts and mounts every key, each restyled)
once per change of the screen's bindings, and a screen's start changes them
several times in one go (mounting, focusing its table): three recomposes
before the catalog's first rows. This one recomposes once for every change
that came before it ran, from the bindings as they are then, so it shows the
same keys. A compact footer's keys are also made compact as they are built,
where Textual's would restyle each key again on mounting it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen


class KeysFooter(Footer):
    _recompose_due = False

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey):  # what its `compact` binding would set once mounted
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or self._recompose_due:
            return
        if self.is_attached and screen is self.screen:
            self._recompose_due = True
            self.call_after_refresh(self._recompose_once)

    async def _recompose_once(self) -> None:
        self._recompose_due = False
        await self.recompose()
