"""What a new engineer met in a shift (issue 39): each read off the screen as plain text, without colour."""

from __future__ import annotations

import pytest
from apps import app_on, notifications, screen_lines, settle, until

NOTICE = "Terminal too small"


@pytest.mark.parametrize("size", [(60, 20), (120, 20), (70, 36)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_terminal_smaller_than_80x24_gets_a_standing_notice_that_goes_when_it_is_larger(sim, size):
    app = app_on(sim)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        width, height = size
        said = f"Terminal too small: {width}x{height}; giftdesk needs 80x24 or more"
        assert said in " ".join(" ".join(screen_lines(app)).split())  # in the screen's text, not a toast
        await pilot.press("8")  # another screen: still said
        await settle(pilot)
        assert NOTICE in " ".join(screen_lines(app))
        await pilot.resize_terminal(59, 19)
        await until(pilot, lambda: "59x19" in " ".join(" ".join(screen_lines(app)).split()), timeout=5)
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: NOTICE not in " ".join(screen_lines(app)), timeout=5)
        assert not any("laid out for" in n for n in notifications(app))  # no toast besides


async def test_80x24_gets_no_notice(sim):
    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not any("too small" in n or "laid out for" in n for n in notifications(app))
        assert NOTICE not in " ".join(screen_lines(app))


async def test_ctrl_c_says_how_to_quit_without_markup(sim):
    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.set_focus(None)  # ctrl+c copies in a focused field; elsewhere it explains how to quit
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert "Press ctrl+q to quit giftdesk." in notifications(app)
        assert not any("[b]" in line or "[/b]" in line for line in screen_lines(app))


async def test_add_profile_opens_on_its_name_and_ctrl_s_saves_it(sim, monkeypatch):
    from textual.widgets import Input

    from tui.screens.profile_form import ProfileForm

    monkeypatch.setenv("ACME_SECRET", "s3cret")
    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.navigate("profiles")
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ProfileForm)
        assert isinstance(app.focused, Input) and app.focused.id == "name"
        await pilot.press(*"acme")
        for field, value in (
            ("base_url", "https://api.example.com"),
            ("client_id", "acme"),
            ("secret_ref", "ACME_SECRET"),
        ):
            form.query_one(f"#{field}", Input).value = value
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "acme" in app.profiles, timeout=5)
        assert not isinstance(app.screen, ProfileForm)


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_note_dialog_title_is_whole(sim, size):
    from widgets.note_dialog import NoteDialog

    request_id = "5a0b0000-0000-4000-8000-000000000001"
    app = app_on(sim)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await app.push_screen(NoteDialog(request_id, lambda _text: None))
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert f"Note on {request_id}" in shown and "enter keeps it, esc drops it" in shown


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_chosen_wallet_and_kind_read_without_colour(sim, size):
    app = app_on(sim)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await app.navigate("payout")
        await pilot.pause()
        await pilot.click("#wallet-Venmo")
        await pilot.pause()
        shown = "\n".join(screen_lines(app))  # the screen's plain text: what a pasted screenshot keeps
        assert "( ) PayPal" in shown and "(•) Venmo" in shown
        assert "(•) Email" in shown and "( ) Phone" in shown and "( ) Handle" in shown


async def test_a_checkbox_reads_ticked_or_not_without_colour(sim):
    from textual.widgets import Checkbox

    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.navigate("profiles")
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        await until(pilot, lambda: app.screen.query("#readonly"), timeout=10)
        app.screen.query_one("#readonly", Checkbox).focus()  # scrolled into view (a loaded machine: a few frames)
        await until(pilot, lambda: "[ ] Read-only" in "\n".join(screen_lines(app)), timeout=10)
        app.screen.query_one("#readonly", Checkbox).value = True
        await until(pilot, lambda: "[x] Read-only" in "\n".join(screen_lines(app)), timeout=10)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_catalog_slash_says_it_filters_this_page_and_enter_asks_the_whole_catalog(sim, monkeypatch, size):
    from tui.api.client import ServiceClient
    from widgets.filter_bar import FilterBar

    sent = []
    original = ServiceClient.catalog

    async def recording(self, query=None):
        sent.append(query)
        return await original(self, query)

    monkeypatch.setattr(ServiceClient, "catalog", recording)
    app = app_on(sim)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert "filter this page's 50 rows only; enter: the whole" in shown  # said, not left to be found out
        await pilot.press(*"books", "enter")
        await settle(pilot)
        assert sent[-1].name == "books" and sent[-1].page_index in (None, 0)
        assert app.screen.query_one(FilterBar).values()["name"] == "books"
        assert "The whole catalog, by name: books (/ filters only the page shown)." in notifications(app)


async def test_help_at_80x24_is_one_line_a_key_and_at_most_two_pages(sim):
    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        page = app.screen.query_one("#help-page")
        assert page.virtual_size.height <= 2 * page.size.height  # it was four pages of boxed rows
        shown = screen_lines(app)
        assert not any("┃" in line or "━" in line or "╇" in line for line in shown)  # no table boxes
        assert any(line.startswith("  1        Catalog: ") for line in shown)


async def test_the_colon_bar_completes_clears_its_error_and_knows_q(sim):
    from textual.widgets import Input, Label

    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *"nowhere", "enter")
        await pilot.pause()
        error = app.screen.query_one("#jump-error", Label)
        assert str(error.render()).startswith("Unknown jump 'nowhere'")
        field = app.screen.query_one("#jump-input", Input)
        field.value = ""
        await pilot.press(*"aud")
        await pilot.pause()
        assert not str(error.render()).startswith("Unknown jump")  # the old error goes as soon as one types
        await pilot.press("tab")
        await pilot.pause()
        assert field.value == "audit"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.destination == "audit"
        await pilot.press("colon", "q", "enter")
        await pilot.pause()
        assert app.return_code == 0  # :q quit the app


@pytest.mark.parametrize("fmt", ["json", "csv"])
async def test_the_orders_board_exports_data_not_screen_text(sim_factory, tmp_path, fmt):
    import csv
    import json
    import re

    from apps import export_shown

    from tui.screens.orders import OrdersScreen
    from tui.simulator import SimulatorSettings

    sim = sim_factory(SimulatorSettings(seed=11, history=120, limits=None))
    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("8")
        await until(pilot, lambda: isinstance(app.screen, OrdersScreen) and not app.screen.table.loading)
        await pilot.press("d")  # yesterday and today: the seeded past's latest orders
        await until(pilot, lambda: not app.screen.table.loading and app.screen.shown, timeout=10)
        await settle(pilot)
        path = await export_shown(pilot, fmt, tmp_path / "data")
    text = path.read_text()
    records = json.loads(text) if fmt == "json" else list(csv.DictReader(text.splitlines()))
    assert records and not any(glyph in text for glyph in ("⚑", "✎", "--:--"))
    for record in records:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?", record["Time (UTC)"])  # with the year
        assert re.fullmatch(r"O-\d{8}", record["Order number"])
        if fmt == "json":
            assert isinstance(record["Total"], float) and isinstance(record["Qty"], int)
            assert isinstance(record["Stuck"], bool)
        else:
            assert re.fullmatch(r"-?\d+(\.\d+)?", record["Total"]) and record["Stuck"] in ("yes", "no")


async def test_the_sync_says_its_pages_and_time_left_in_words(sim_factory):
    from textual.widgets import ProgressBar, Static

    sim = sim_factory(brands=600, faults="latency=400ms")  # six pages, each slow enough to be seen
    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("S")
        await until(pilot, lambda: screen.query("#sync-pages"), timeout=10)
        pages = screen.query_one("#sync-pages", Static)
        await until(pilot, lambda: "of 6" in str(pages.render()), timeout=20)
        assert str(pages.render()).startswith("Catalog sync: page ")
        assert screen.query_one("#sync-progress", ProgressBar).show_eta
        screen.query_one("#brands").focus()
        await pilot.press("down")  # another brand while the sync runs: its products are shown
        await until(
            pilot,
            lambda: screen.detail.name == "Giftdesk Payout" and screen.query_one("#products").row_count == 1,
            timeout=5,
        )
        assert pages.display  # still syncing
        await until(pilot, lambda: screen.mirror_source.mirror is not None, timeout=30)
        await settle(pilot)
        assert not pages.display  # gone with the bar once synced


@pytest.mark.parametrize(
    ("typed", "then"),
    [(":q\r", "quit"), (":audit\r", "audit")],
    ids=["quit", "a screen"],
)
async def test_the_colon_bar_takes_keys_typed_in_one_burst_as_a_terminal_delivers_them(sim, typed, then):
    """A quick `:q⏎` arrives from the terminal in one read: its keys came before the bar's field had the focus,
    and went nowhere (the bar stayed open, empty)."""
    from textual import events

    keys = {":": "colon", "\r": "enter"}
    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for character in typed:  # posted at once, nothing awaited between: one read's keys
            app.post_message(events.Key(keys.get(character, character), character))
        if then == "quit":
            await until(pilot, lambda: app.return_code == 0, timeout=5)
            return
        await until(pilot, lambda: getattr(app.screen, "destination", None) == then, timeout=5)


async def test_a_key_typed_in_the_same_breath_as_a_screens_number_goes_to_that_screen(sim):
    """`8r` quick: the `r` went to the catalog (its reload, of a list the provider allows twice an hour), not to
    the board the `8` opened."""
    from textual import events

    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        catalog_asked = len(sim.requests("catalog_v2"))
        for key in "8r":  # posted at once, nothing awaited between: one read's keys
            app.post_message(events.Key(key, key))
        await until(pilot, lambda: len(sim.requests("order_history")) >= 2, timeout=10)  # the board's load, its `r`
        await settle(pilot)
        assert len(sim.requests("catalog_v2")) == catalog_asked


@pytest.mark.parametrize("screen_key", ["8", "1"], ids=["board", "catalog"])
async def test_a_filter_typed_in_one_breath_after_slash_is_the_filters(sim, screen_key):
    """`/attention⏎` quick on the board: the letters went to the table before the field had the focus, and its
    keys ran (`t`: today's range instead of the one shown)."""
    from textual import events
    from textual.widgets import Input

    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(screen_key)
        await settle(pilot)
        screen = app.screen
        for character in "/attention":  # posted at once, nothing awaited between: one read's keys
            app.post_message(events.Key("slash" if character == "/" else character, character))
        await settle(pilot)
        assert isinstance(app.focused, Input) and app.focused.value == "attention"
        assert app.screen is screen and not any("export" in n.lower() for n in notifications(app))
