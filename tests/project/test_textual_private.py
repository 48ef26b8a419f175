"""What giftdesk relies on in Textual's private API (widgets/textual_private.py) still holds.

Textual is pinned; an upgrade that changes any of these fails here, naming it, before a screen misbehaves.
"""

from __future__ import annotations

import asyncio
import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

from textual.app import App, ComposeResult
from textual.css.stylesheet import Stylesheet
from textual.events import ScreenResume
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Input, Label, TextArea

from widgets.textual_private import (
    answer_style_parses,
    bindings_ready,
    breakpoint_classes,
    exit_with_words,
    in_batch,
    in_own_turn,
    is_text_area,
    mark_bindings_ready,
    on_app_thread,
    shown_suggestion,
    stylesheet_variables,
    table_awaits_measuring,
    take_out_of_stack,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_installed_textual_is_the_pinned_one():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pinned = next(d for d in dependencies if d.startswith("textual"))
    assert pinned == f"textual=={version('textual')}", "upgrade Textual by changing the pin and running these tests"


class Named(Screen):
    def __init__(self, name: str) -> None:
        super().__init__(name=name)

    def compose(self) -> ComposeResult:
        yield Label(self.name or "")
        yield Footer()


class Probe(App):
    def __init__(self) -> None:
        super().__init__()
        self.turns: list[bool] = []

    def on_mount(self) -> None:
        self.turns.append(in_own_turn(self))


async def test_a_screen_taken_out_of_the_middle_of_the_stack_leaves_the_rest():
    app = Probe()
    async with app.run_test() as pilot:
        lower, middle, top = Named("lower"), Named("middle"), Named("top")
        results: list[object] = []
        for screen in (lower, middle, top):
            await app.push_screen(screen, callback=results.append)
        take_out_of_stack(app, middle)
        assert [s.name for s in app.screen_stack[1:]] == ["lower", "top"]
        await app.push_screen(middle)  # pushed again, it is the top; its old callback is gone
        app.pop_screen()
        await pilot.pause()
        assert app.screen is top and results == []


async def test_the_app_knows_its_own_turn_from_a_screens():
    app = Probe()
    async with app.run_test() as pilot:
        screen = Named("one")
        await app.push_screen(screen)
        seen: list[bool] = []
        screen.call_later(lambda: seen.append(in_own_turn(app)))
        await pilot.pause()
        assert app.turns == [True] and seen == [False]


async def test_a_text_area_is_told_apart_from_an_input():
    app = App()
    async with app.run_test():
        await app.mount(Input(), TextArea())
        assert is_text_area(app.query_one(TextArea))
        assert not is_text_area(app.query_one(Input)) and not is_text_area(None)


async def test_the_footer_says_when_its_bindings_are_ready():
    app = App()
    async with app.run_test() as pilot:
        await app.push_screen(Named("keys"))
        await pilot.pause()
        footer = app.screen.query_one(Footer)
        assert bindings_ready(footer)
        fresh = Footer()
        assert not bindings_ready(fresh)
        mark_bindings_ready(fresh)
        assert bindings_ready(fresh)


async def test_exit_with_words_ends_the_app_and_prints_the_words(capfd):
    app = App()
    async with app.run_test():
        exit_with_words(app, "stopped: see the log")
    assert "stopped: see the log" in capfd.readouterr().err


class Counted(Screen):
    """Counts the frames its compositor makes (what BaseScreen holds back during a batch)."""

    frames = 0

    def compose(self) -> ComposeResult:
        yield Label("one")

    def _compositor_refresh(self) -> None:
        self.frames += 1
        super()._compositor_refresh()


async def test_the_app_says_when_it_batches_and_a_screen_makes_its_frames_in_compositor_refresh():
    app = App()
    async with app.run_test() as pilot:
        assert not in_batch(app)
        with app.batch_update():
            assert in_batch(app)
        assert not in_batch(app)
        screen = Counted()
        await app.push_screen(screen)
        await pilot.pause()
        frames = screen.frames
        screen.query_one(Label).update("two")
        await pilot.pause()
        assert screen.frames > frames


async def test_the_app_knows_its_own_thread_from_a_workers():
    app = App()
    async with app.run_test():
        assert on_app_thread(app)
        assert not await asyncio.to_thread(on_app_thread, app)


async def test_breakpoint_classes_are_textuals_for_a_size():
    app = App()
    async with app.run_test():
        breakpoints = [(0, "-narrow"), (120, "-wide")]
        assert breakpoint_classes(app.screen, 80, breakpoints) == {"-narrow"}
        assert breakpoint_classes(app.screen, 120, breakpoints) == {"-wide"}
        assert breakpoint_classes(app.screen, 200, breakpoints) == {"-wide"}


async def test_an_input_says_the_suggestion_it_shows():
    from textual.suggester import SuggestFromList

    field = Input(suggester=SuggestFromList(["audit", "accounts"]))
    app = OneWidget(field)
    async with app.run_test() as pilot:
        assert shown_suggestion(field) == ""
        field.focus()
        await pilot.press("a", "u")
        await pilot.pause(0.1)
        assert shown_suggestion(field) == "audit"


class OneWidget(App):
    """An app of one widget."""

    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


async def refilled_after_a_line_was_drawn(table: DataTable) -> str:
    """A table's second row, drawn after a refill with a longer name was measured, one line having been drawn
    between the refill and the measuring (as a frame may be: the order's items under load)."""
    app = OneWidget(table)
    async with app.run_test(size=(60, 6)) as pilot:
        table.add_columns("#", "Product", "Face value")
        table.add_row("1", "102", "10.00")
        await pilot.pause()
        table.clear(columns=True)
        table.add_columns("#", "Product", "Face value")
        table.add_row("1", "102 Acme Books eGift", "10.00")
        assert table_awaits_measuring(table)
        table.render_line(1)  # a frame before the table's idle
        await pilot.pause()
        assert not table_awaits_measuring(table)
        return table.render_line(1).text


async def test_a_data_table_keeps_a_line_drawn_before_it_measured_a_refill():
    """Why widgets/fitted_table.py exists: when this fails, Textual has mended it, and FittedTable can go."""
    assert "102 Acme Books eGift" not in await refilled_after_a_line_was_drawn(DataTable())


async def test_a_fitted_table_draws_a_refill_with_the_widths_it_measured():
    from widgets.fitted_table import FittedTable

    assert "102 Acme Books eGift  10.00" in await refilled_after_a_line_was_drawn(FittedTable())


def test_the_private_hooks_giftdesk_overrides_are_still_called_so():
    """BaseScreen overrides `_compositor_refresh` (no frame during a batch) and `_on_screen_resume` (no second
    styling on the first resume, through ScreenResume's `refresh_styles`); GiftdeskApp overrides `_fatal_error`
    (a redacted traceback): a rename in Textual would leave the override silently unused."""
    assert inspect.signature(Screen._compositor_refresh).parameters.keys() == {"self"}
    assert inspect.signature(Screen._on_screen_resume).parameters.keys() == {"self", "event"}
    assert "refresh_styles" in inspect.signature(ScreenResume).parameters
    assert inspect.signature(App._fatal_error).parameters.keys() == {"self"}


def test_each_source_a_stylesheet_parses_goes_through_the_answer_with_its_variables():
    stylesheet = Stylesheet(variables={"accent": "red"})
    seen = []

    def answer(parse, *source):
        seen.append((source, dict(stylesheet_variables(stylesheet))))
        return parse(*source)

    answer_style_parses(stylesheet, answer)
    stylesheet.add_source("Label { color: $accent; }", read_from=("here", "Label"), is_default_css=True, scope="Label")
    stylesheet.set_variables({"accent": "blue"})  # a new theme: a new mapping, parsed with it
    stylesheet.parse()
    assert seen == [(("Label { color: $accent; }", ("here", "Label"), True, 0, "Label"), {"accent": "blue"})]
    assert str(stylesheet.rules[0].styles.color) == "Color(0, 0, 255)"
