"""Textual's Footer, built once per batch of binding changes (issue 16).

Textual's Footer recomposes (unmounts and mounts every key, each restyled)
once per change of the screen's bindings, and a screen's start changes them
several times in one go (mounting, focusing its table): three recomposes
before the catalog's first rows. This one recomposes once for every change
that came before it ran, from the bindings as they are then, so it shows the
same keys, and not at all when the keys it would show are the ones it shows
(on the catalog's way to its first rows, a second batch changed nothing on
show). A compact footer's keys are also made compact as they are built,
where Textual's would restyle each key again on mounting it.

Keys that do not fit the width are left out whole (issue 26: Textual cuts the
last one mid-word, `n Ne▏`), from the end: the app's own keys (quit, jump)
come last, and a screen lists its everyday keys first. Keys show once that is
known (the footer's width comes with its first layout): until then, the first
frame of a start, there are none to cut. Every key stays in
Help and the command palette.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer

from widgets.textual_private import FooterKey, bindings_ready, mark_bindings_ready

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.geometry import Region
    from textual.screen import Screen
    from textual.strip import Strip


class KeysFooter(Footer):
    _recompose_due = False
    _shown: tuple[object, ...] | None = None  # what the keys were built from (`_keys_shown`)

    def compose(self) -> ComposeResult:
        self._shown = self._keys_shown() if bindings_ready(self) else None
        for widget in super().compose():
            if isinstance(widget, FooterKey):  # what its `compact` binding would set once mounted
                widget.set_class(self.compact, "-compact", update=False)
                # Shown by `fit_keys` once the footer has its width: a first frame draws no key cut mid-word.
                widget.display = widget.has_class("-command-palette")
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        mark_bindings_ready(self)
        if not screen.app.app_focus or self._recompose_due:
            return
        if self.is_attached and screen is self.screen:
            self._recompose_due = True
            if self._painted:  # else after its first frame (`render_lines`), which shows no key anyway
                self.call_after_refresh(self._recompose_once)

    _painted = False

    def render_lines(self, crop: Region) -> list[Strip]:
        # A start's screen is laid out in Textual's start-up batch, where "after refresh" comes before any frame:
        # the keys were composed and styled on the way to the first rows, for a frame that shows none.
        if not self._painted:
            self._painted = True
            if self._recompose_due:  # once this frame is made, in the footer's own turn (it composes there)
                self.call_later(self._recompose_once)
        return super().render_lines(crop)

    async def _recompose_once(self) -> None:
        self._recompose_due = False
        if self.is_attached and self._keys_shown() != self._shown:  # its screen may have gone meanwhile
            await self.recompose()
            self.call_after_refresh(self.fit_keys)

    def on_mount(self) -> None:
        self.call_after_refresh(self.fit_keys)

    def on_resize(self) -> None:
        self.fit_keys()

    def fit_keys(self) -> None:
        """Show the keys that fit whole, in order; hide the rest (and the palette's key stays at the right).
        Widths as drawn, not as laid out: keys just composed have no size yet."""
        keys = list(self.query_children(FooterKey))
        room = self.size.width - sum(drawn_width(key) for key in keys if key.has_class("-command-palette"))
        for key in keys:
            if not key.has_class("-command-palette"):
                room -= drawn_width(key)
                key.display = room >= 0

    def _keys_shown(self) -> tuple[object, ...]:
        """Everything of the screen's bindings that Footer.compose draws from, and the look's settings."""
        return (
            self.compact,
            self.show_command_palette,
            *(
                (
                    binding.key,
                    binding.action,
                    binding.description,
                    binding.show,
                    binding.group,
                    self.app.get_key_display(binding),
                    enabled,
                    tooltip,
                )
                for _node, binding, enabled, tooltip in self.screen.active_bindings.values()
            ),
        )


def drawn_width(key: FooterKey) -> int:
    """The cells `key` takes: its text, padding and border (the palette's `▏`) and margins."""
    return key.render().cell_len + key.styles.gutter.width + key.styles.margin.width
