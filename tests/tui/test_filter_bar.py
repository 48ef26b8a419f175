"""The filter bar's fields come when the screen has shown its first content (issues 16 and 26: a
faster start), when one is asked for focus, or a second after the bar at the latest.

Until then the bar draws what they will show, on the lines they will take, and
whatever is asked of it (values, focus) waits for them.
"""

from __future__ import annotations

from textual.app import App
from textual.widgets import Input

from tui.core.safe_text import visible
from tui.screens.catalog_filters import CATALOG_FILTERS
from widgets.filter_bar import FIELDS_LATEST_SECONDS, FilterBar, fields_preview

GRID_COLUMNS, GUTTER = 4, 1  # FilterBar's own grid (the catalog makes it 8 wide on wide screens)


async def test_values_and_focus_asked_before_the_fields_exist_reach_them():
    app = App()
    async with app.run_test(size=(80, 12)) as pilot:
        bar = FilterBar(CATALOG_FILTERS)
        await app.mount(bar)
        await pilot.pause()
        await pilot.pause()
        assert not bar.fields_mounted and not bar.query(Input)  # not before the screen asks, or a field is focused
        bar.set_values({"country": "gb", "name": " tea "})
        bar.focus_field("currency")
        assert bar.values() == {"country": "gb", "name": "tea"}
        await pilot.pause()
        await pilot.pause()
        assert bar.fields_mounted
        assert bar.input_for("country").value == "gb" and bar.values() == {"country": "gb", "name": "tea"}
        assert app.focused is bar.input_for("currency")


async def test_the_fields_come_a_second_after_the_bar_at_the_latest():
    app = App()
    async with app.run_test(size=(80, 12)) as pilot:
        bar = FilterBar(CATALOG_FILTERS)
        await app.mount(bar)
        await pilot.pause(FIELDS_LATEST_SECONDS / 2)
        assert not bar.fields_mounted
        await pilot.pause(FIELDS_LATEST_SECONDS)
        assert bar.fields_mounted and bar.query(Input)


async def test_the_preview_takes_the_lines_the_fields_will_take_and_shows_their_words():
    app = App()
    async with app.run_test(size=(80, 12)) as pilot:
        bar = FilterBar(CATALOG_FILTERS)
        await app.mount(bar)
        await pilot.pause()
        await pilot.pause()
        width, height = bar.content_size.width, bar.size.height
    preview = fields_preview(CATALOG_FILTERS, {"country": "GB"}, GRID_COLUMNS, GUTTER, width)
    lines = preview.plain.split("\n")
    assert len(lines) == height == 2 and all(len(line) <= width for line in lines)
    # An empty field says `any`, never an example that reads as a filter in force; Per page's 50 is in force.
    assert lines[0].split() == ["Country", "GB", "Currency", "any", "Name", "any", "Brand", "id", "any"]
    assert lines[1].split() == ["Product", "id", "any", "Since", "any", "Prices", "in", "any", "Per", "page", "50"]
    assert lines[0].index("Currency") == lines[1].index("Since")  # one grid: the columns line up


def test_a_value_in_the_preview_is_shown_literally():
    typed = "[b]tea[/b] \x1b]52;c;aGk=\x07"
    preview = fields_preview(CATALOG_FILTERS, {"name": typed}, GRID_COLUMNS, GUTTER, 200)
    assert visible(typed) in preview.plain and "\x1b" not in preview.plain
