"""The user's keys and look from the config file (issue 17): `[keymap]` (binding id -> keys,
Textual's App.set_keymap), `theme` for sandbox (production keeps its look), and the
colour-blind-safe status palette. Real config files, the real app on the simulator."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from apps import app_on, notifications, settle

from tui.app import PRODUCTION_THEME, SANDBOX_THEME
from tui.local.config import ConfigError
from tui.local.config_file import ProfileStore
from tui.startup import load_settings
from widgets.status_badge import PALETTES, status_style, status_text

SIZE = (80, 24)


def settings_from(tmp_path: Path, monkeypatch, text: str):
    path = tmp_path / "look.toml"
    path.write_text(text)
    monkeypatch.setenv("GIFTDESK_CONFIG", str(path))
    return load_settings(None, demo=False, readonly=False, order=None)


def look(settings) -> dict:
    return {"theme": settings.theme, "palette": settings.palette, "keymap": settings.keymap}


def test_the_config_file_carries_keymap_theme_and_palette(tmp_path, monkeypatch):
    settings = settings_from(
        tmp_path,
        monkeypatch,
        """\
version = 1
theme = "nord"            # sandbox only
palette = "colour-blind"

[keymap]
"go.profiles" = "f6"
jump = "ctrl+g,colon"
""",
    )
    assert settings.config_problem is None
    assert look(settings) == {
        "theme": "nord",
        "palette": "colour-blind",
        "keymap": {"go.profiles": "f6", "jump": "ctrl+g,colon"},
    }


@pytest.mark.parametrize(
    "text, problem",
    [
        ('version = 1\npalette = "rainbow"\n', "palette"),
        ('version = 1\n[keymap]\n"go.profiles" = 6\n', "keymap.go.profiles"),
        ('version = 1\nthemes = "nord"\n', "unknown setting(s): themes"),
    ],
)
def test_a_wrong_look_setting_is_a_config_problem(tmp_path, monkeypatch, text, problem):
    assert problem in settings_from(tmp_path, monkeypatch, text).config_problem


def test_profile_edits_leave_the_look_settings_alone(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('version = 1\ntheme = "nord"\n\n[keymap]\n"go.profiles" = "f6"\n')
    store = ProfileStore(path)
    store.add(_profile())
    store.remove("support")
    config = store.load()
    assert config.theme == "nord" and config.keymap == {"go.profiles": "f6"} and not config.profiles
    with pytest.raises(ConfigError):
        store.use("nope")


async def test_the_keymap_replaces_a_binding_s_key(sim):
    app = app_on(sim, keymap={"go.profiles": "f6", "jump": "ctrl+g"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("6")
        assert app.screen.destination == "catalog"  # 6 is no longer Profiles
        await pilot.press("f6")
        assert app.screen.destination == "profiles"
        await pilot.press("2")  # bindings not in the keymap keep their keys
        assert app.screen.destination == "accounts"
        await pilot.press("ctrl+g")
        assert type(app.screen).__name__ == "JumpScreen"


async def test_footer_and_help_show_the_keys_the_keymap_gave(sim):
    app = app_on(sim, keymap={"catalog.reload": "ctrl+r"})
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        footer = {key.description: key.key for key in app.screen.query("FooterKey")}
        assert footer.get("Reload") == "ctrl+r"
        await pilot.press("question_mark")
        await settle(pilot)
        keys = str(app.screen.query_one("#help-screen-keys").render())
        assert re.search(r"(^  | )ctrl\+r +Reload\b", keys, re.MULTILINE)


async def test_the_theme_is_for_sandbox_and_production_keeps_its_look(sim):
    app = app_on(sim, theme="nord")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "nord"
        await app.switch_profile("demo-production")
        await settle(pilot)
        assert app.theme == PRODUCTION_THEME.name
        await app.switch_profile("demo-sandbox")
        assert app.theme == "nord"


async def test_an_unknown_theme_is_said_and_giftdesk_s_is_used(sim):
    app = app_on(sim, theme="no-such-theme")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == SANDBOX_THEME.name
        assert any("Unknown theme 'no-such-theme'" in message and "nord" in message for message in notifications(app))


async def test_the_colour_blind_palette_colours_statuses_without_red_or_green(sim):
    app = app_on(sim, palette="colour-blind")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        styles = {status: status_style(status) for status in ("Succeeded", "Failed", "Paused", "Pending")}
        assert set(styles.values()) == set(PALETTES["colour-blind"])
        assert not any(colour in style for style in styles.values() for colour in ("red", "green"))
        text = status_text("Failed")
        assert text.plain == "Failed" and str(text.style) == PALETTES["colour-blind"][1]  # the word stays
    standard = app_on(sim)  # the next app starts from its own setting
    async with standard.run_test(size=SIZE):
        assert status_style("Failed") == "bold red"


def _profile():
    from tui.local.profiles import make_profile

    return make_profile(
        name="support",
        environment="sandbox",
        base_url="https://api.example.test",
        client_id="id",
        secret={"kind": "env", "ref": "SUPPORT_SECRET"},
    )
