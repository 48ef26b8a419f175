"""widgets.footer.KeysFooter: the keys of the bindings that apply, as Textual's Footer shows them,
after each change of focus; compact keys on a compact screen (issue 16)."""

from __future__ import annotations

from apps import app_on, settle
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from widgets.footer import KeysFooter


def shown_keys(screen) -> list[tuple[str, str]]:
    return [(key.key, key.description) for key in screen.query_one(Footer).query(FooterKey)]


def wanted_keys(screen) -> list[tuple[str, str]]:
    """What Textual's Footer composes from the screen's bindings now: one key per shown action, then the palette's."""
    first_per_action: dict[str, tuple[str, str]] = {}
    for _, binding, _, _ in screen.active_bindings.values():
        if binding.show:
            first_per_action.setdefault(binding.action, (binding.key, binding.description))
    return [*first_per_action.values(), (screen.app.COMMAND_PALETTE_BINDING, "palette")]


async def test_the_footer_follows_the_focus_and_is_compact_on_the_catalog(sim):
    async with app_on(sim).run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        footer = screen.query_one(Footer)
        assert isinstance(footer, KeysFooter) and footer.compact
        on_table = shown_keys(screen)
        assert on_table == wanted_keys(screen) and ("f", "Filters") in on_table
        keys = list(footer.query(FooterKey))
        assert all(key.has_class("-compact") and key.compact for key in keys)

        await pilot.press("f")  # the filter bar's first field: the table's keys give way to the field's
        await settle(pilot)
        in_field = shown_keys(screen)
        assert in_field == wanted_keys(screen) and in_field != on_table

        await pilot.press("escape")
        await settle(pilot)
        assert shown_keys(screen) == on_table


async def test_a_screen_that_is_not_compact_has_a_footer_that_is_not(sim):
    async with app_on(sim).run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        screen = pilot.app.screen
        footer = screen.query_one(Footer)
        assert not footer.compact and shown_keys(screen) == wanted_keys(screen)
        # (Textual's palette key is compact everywhere: it is not bound to the footer's `compact`)
        assert not any(key.has_class("-compact") for key in footer.query(FooterKey).exclude(".-command-palette"))


async def test_a_change_that_shows_the_same_keys_rebuilds_none(sim):
    async with app_on(sim).run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        keys = list(screen.query_one(Footer).query(FooterKey))
        screen.refresh_bindings()  # a batch of binding changes that changes nothing shown
        await settle(pilot)
        assert list(screen.query_one(Footer).query(FooterKey)) == keys  # the very same widgets
        await pilot.press("f")  # one that does: rebuilt
        await settle(pilot)
        assert shown_keys(screen) == wanted_keys(screen) and list(screen.query_one(Footer).query(FooterKey)) != keys
