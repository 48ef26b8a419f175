"""Keys that said they did something and did nothing (issue 26), at 80x24 where they were seen.

Enter on a Watch list row is in test_tui_answers.py (it also froze once it did something).
"""

from __future__ import annotations

import pytest
from apps import app_on, settle, until
from textual.widgets import TabbedContent

from tui.api.client import ServiceClient
from tui.core.jump import JumpError, parse_jump
from tui.core.navigation import DESTINATIONS
from tui.local.fileio import mirror_path
from tui.local.mirror import Mirror
from tui.local.mirror_sync import sync
from tui.screens.base import BaseScreen
from tui.screens.catalog import CatalogScreen
from tui.screens.help import HelpScreen
from widgets.filter_bar import FilterBar

SIZE = (80, 24)


async def test_help_scrolls_on_its_keys_at_once_with_one_scrollbar(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        page = app.screen.query_one("#help-page")
        scrolling = [w for w in app.screen.walk_children() if w.show_vertical_scrollbar]
        assert scrolling == [page] and not app.screen.show_vertical_scrollbar
        await pilot.press("down")
        await until(pilot, lambda: page.scroll_y > 0, timeout=5)
        after_line = page.scroll_y
        await pilot.press("pagedown")  # help is short now (one line a key): a page may reach its end
        await until(pilot, lambda: page.scroll_y > after_line, timeout=5)


async def test_a_key_shows_the_notifications_listener_tab_and_back(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await settle(pilot)
        tabs = app.screen.query_one("#notifications-tabs", TabbedContent)
        assert tabs.active == "config-tab"
        app.screen.query_one("#sandbox-url").focus()  # from inside the form too, not only from the tab strip
        await pilot.press("ctrl+t")
        assert tabs.active == "listener-tab"
        await pilot.press("ctrl+t")
        assert tabs.active == "config-tab"


async def test_v_says_v1_once_a_mirror_exists(sim_factory, demo_credentials):
    own = sim_factory()
    credential = demo_credentials["acme-sandbox"]
    async with ServiceClient(own.base_url, credential.client_id, credential.client_secret) as client:
        with Mirror(mirror_path("demo-sandbox", "sandbox")) as mirror:
            await sync(mirror, client)
    app = app_on(own)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CatalogScreen) and screen.mirror_source.mirror is not None
        await pilot.press("v")
        await settle(pilot)
        assert screen.version == 1 and screen.pager.note.startswith("v1")
        await pilot.press("v")
        await settle(pilot)
        assert screen.version == 2 and "v1" not in screen.pager.note


async def test_jump_to_catalog_with_a_name_filters_by_it(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("colon", *"catalog tea", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CatalogScreen)
        assert screen.query_one(FilterBar).values().get("name") == "tea" and screen.filters.get("name") == "tea"


@pytest.mark.parametrize("destination", DESTINATIONS, ids=lambda d: d.name)
def test_the_jump_parser_takes_an_argument_exactly_where_the_screen_does(destination):
    from importlib import import_module

    module, _, name = destination.screen.partition(":")
    screen = getattr(import_module(f"tui.screens.{module}"), name)
    takes = screen.accept_jump is not BaseScreen.accept_jump
    if takes:
        assert parse_jump(f":{destination.name} something").argument == "something"
    else:
        with pytest.raises(JumpError, match="takes no argument"):
            parse_jump(f":{destination.name} something")
