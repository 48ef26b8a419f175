"""A screen's styles stay on that screen (issue 26).

Textual applies every stylesheet it has loaded to every screen: a screen's `CSS_PATH` is not
scoped to it. So each rule of a screen's `.tcss` names its screen first; `app.tcss` is the frame's.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from apps import app_on, settle
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.widgets import Label

import tui.screens
import widgets
from styles import STYLES
from tui.screens.payout import PayoutScreen

SIZE = (80, 24)
FRAME = "app.tcss"


def screens_by_style_file() -> dict[str, set[str]]:
    """Each .tcss under styles/ and the screens (and dialogs) that load it."""
    users: dict[str, set[str]] = {}
    for package in (tui.screens, widgets):
        for module_info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{module_info.name}")
            for value in vars(module).values():
                if isinstance(value, type) and issubclass(value, Screen) and value.__module__ == module.__name__:
                    paths = value.__dict__.get("CSS_PATH") or []
                    for path in paths if isinstance(paths, list) else [paths]:
                        users.setdefault(Path(path).name, set()).add(value.__name__)
    return users


def test_every_rule_of_a_screens_stylesheet_names_its_screen_first():
    users = screens_by_style_file()
    files = sorted(path.name for path in STYLES.glob("*.tcss") if path.name != FRAME)
    assert set(files) == set(users), "a stylesheet no screen loads, or a screen's stylesheet outside styles/"
    unscoped = []
    for name in files:
        sheet = Stylesheet(variables=App().get_css_variables())
        sheet.read(STYLES / name)
        sheet.parse()
        for rule in sheet.rules:
            unscoped += [
                f"{name}: {selector.css}"
                for selector in rule.selector_set
                if selector.selectors[0].name not in users[name]
            ]
    assert unscoped == []


def label_looks(screen) -> list[tuple[str, object, object]]:
    return [(str(label.render()), label.styles.width, label.styles.padding) for label in screen.query(Label)]


async def test_the_payout_form_keeps_its_labels_after_the_notifications_screen(sim):
    fresh = app_on(sim)
    async with fresh.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(pilot)
        assert isinstance(fresh.screen, PayoutScreen)
        expected = label_looks(fresh.screen)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await settle(pilot)
        await pilot.press("escape", "4")
        await settle(pilot)
        assert isinstance(app.screen, PayoutScreen)
        labels = label_looks(app.screen)
        assert labels == expected
        assert all(label.region.height == 1 and label.region.width > 0 for label in app.screen.query(".field-label"))
