"""Every reach into Textual's private API, in one place.

Textual is pinned (pyproject.toml) because of these; tests/project/test_textual_private.py fails when an
upgrade changes what they rely on. Each function says what public API is missing.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual._context import active_message_pump
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from textual.app import App
    from textual.css.model import RuleSet
    from textual.css.stylesheet import Stylesheet
    from textual.screen import Screen
    from textual.widget import Widget
    from textual.widgets import DataTable, Footer, Input

__all__ = [
    "FooterKey",
    "answer_style_parses",
    "bindings_ready",
    "breakpoint_classes",
    "exit_with_words",
    "in_batch",
    "in_own_turn",
    "is_text_area",
    "mark_bindings_ready",
    "on_app_thread",
    "shown_suggestion",
    "stylesheet_variables",
    "table_awaits_measuring",
    "take_out_of_stack",
]


def in_own_turn(app: App) -> bool:
    """Whether the code running now is the app's own message handling, not a screen's or a widget's."""
    return active_message_pump.get(app) is app


def take_out_of_stack(app: App, screen: Screen) -> None:
    """Take a screen out of the middle of the stack, its push's result callback with it, as a pop would.
    Textual has no call for it (only the top can be popped)."""
    app._screen_stack.remove(screen)
    screen._pop_result_callback()


def exit_with_words(app: App, words: str) -> None:
    """End the app at once, printing `words` after the terminal is restored. `App.exit` waits for the message
    queue, which a fatal error may have left stuck; Textual's own crash path does this."""
    app._exit_renderables.append(words)
    app._close_messages_no_wait()


def is_text_area(widget: Widget | None) -> bool:
    """Whether a widget is a TextArea, without importing its module (it costs the start ~12 ms): before a
    screen that has one imported it, no TextArea can exist."""
    text_area = sys.modules.get("textual.widgets._text_area")
    return text_area is not None and isinstance(widget, text_area.TextArea)


def bindings_ready(footer: Footer) -> bool:
    """Whether the footer has been given its screen's bindings (it composes empty until then)."""
    return bool(footer._bindings_ready)


def mark_bindings_ready(footer: Footer) -> None:
    """What Footer's own `bindings_changed` sets before it recomposes (an override that recomposes later sets it)."""
    footer._bindings_ready = True


def in_batch(app: App) -> bool:
    """Whether the app is batching its updates (`App.batch_update`, its start-up, a recompose): a frame made now is
    dropped (`App._display`), though the compositor takes it as drawn. Textual has no public way to ask."""
    return app._batch_count > 0


def on_app_thread(app: App) -> bool:
    """Whether the code running now is on the app's thread (else `call_from_thread` must carry it there); Textual
    keeps the thread it runs on but says it only through `call_from_thread`'s error."""
    return threading.get_ident() == app._thread_id


def breakpoint_classes(screen: Screen, size: int, breakpoints: Sequence[tuple[int, str]]) -> set[str]:
    """The classes of `breakpoints` (HORIZONTAL_BREAKPOINTS' shape) that `size` cells choose, as Textual sets them on
    a Resize: asked before the first Resize, so a screen's children mount with them."""
    return set(screen._get_breakpoint_classes(size, list(breakpoints)))


def answer_style_parses(stylesheet: Stylesheet, parse_rules: Callable[..., list[RuleSet]]) -> None:
    """Have `stylesheet` parse each style source through `parse_rules(parse, css, read_from, is_default_rules,
    tie_breaker, scope)`, `parse` being its own parse of one source. Textual has no hook for it: its parse of one
    source (`Stylesheet._parse_rules`, which `Stylesheet.parse` calls with these keywords) is replaced on this
    stylesheet alone (a theme changed later reparses into a fresh one, which parses as Textual does)."""
    parse = stylesheet._parse_rules

    def through(
        css: str, read_from: object, is_default_rules: bool = False, tie_breaker: int = 0, scope: str = ""
    ) -> list[RuleSet]:
        return parse_rules(parse, css, read_from, is_default_rules, tie_breaker, scope)

    stylesheet._parse_rules = through  # type: ignore[method-assign]


def stylesheet_variables(stylesheet: Stylesheet) -> Mapping[str, str]:
    """The variables `stylesheet` parses with (a theme's colours): a new mapping each time they are set."""
    return stylesheet._variables


def table_awaits_measuring(table: DataTable) -> bool:
    """Whether a DataTable holds rows or changed cells it has not measured yet (it measures them when next idle).
    Textual has no public way to ask."""
    return table._require_update_dimensions or bool(table._updated_cells)


def shown_suggestion(field: Input) -> str:
    """The completion an Input shows dim after what was typed ("" when none): Textual takes it on → at the end of
    the line, and says it to no one else."""
    return field._suggestion
