"""The frame every screen lives in: navigation, palette, jump-to, profiles,
read-only, first run, corrupt config, errors as notifications (issue 4)."""

from __future__ import annotations

import contextlib
import dataclasses
import re
from pathlib import Path

import pytest
from apps import app_on, demo_profiles, notifications
from textual.binding import Binding
from textual.widgets import Static
from textual.worker import WorkerFailed

from tui.api.client import RetryPolicy
from tui.app import AppSettings, build_app
from tui.core.navigation import DESTINATIONS
from tui.core.safe_text import visible
from tui.local.config import Config, ConfigError
from tui.screens.base import BaseScreen
from tui.startup import load_settings
from widgets.context_bar import ContextBar

SIZE = (80, 24)


async def test_keys_open_screens_and_escape_goes_back(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen.destination == "catalog"
        await pilot.press("6")
        assert app.screen.destination == "profiles"
        await pilot.press("question_mark")
        assert app.screen.destination == "help"
        await pilot.press("escape")
        assert app.screen.destination == "profiles"
        await pilot.press("escape")
        assert app.screen.destination == "catalog"
        await pilot.press("escape")  # the home screen stays
        assert app.screen.destination == "catalog"


async def test_going_to_an_open_screen_returns_to_it_instead_of_stacking(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("6", "question_mark", "6")
        assert [getattr(s, "destination", None) for s in app.screen_stack[1:]] == ["catalog", "profiles"]


async def test_every_destination_has_a_palette_twin(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE):
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {d.title for d in DESTINATIONS} <= titles
        assert "Jump" in titles


async def test_palette_runs_the_same_action_as_the_key(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"Profiles")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.destination == "profiles"


async def test_jump_to_profile_switches_environment(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *"profile demo-production", "enter")
        await pilot.pause()
        assert app.session.profile.name == "demo-production"
        assert app.context.environment == "production"
        assert app.theme == "giftdesk-production"
        bar = app.screen.query_one(ContextBar)
        assert bar.has_class("-production")
        assert "PRODUCTION" in str(bar.render())


async def test_jump_to_unknown_says_what_works(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *"frobnicate", "enter")
        await pilot.pause()
        error = str(app.screen.query_one("#jump-error").render())
        assert "Unknown jump 'frobnicate'" in error and ":order REQUEST_ID" in error


async def test_switch_drops_cache_and_never_carries_an_account_across_environments(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        old_session = app.session
        app.session.cache["accounts"] = ["sandbox data"]
        app.choose_account(1001, "1001 USD")
        assert app.context.account == "1001 USD"
        await app.switch_profile("demo-production")
        await pilot.pause()
        assert app.session is not old_session
        assert "accounts" not in app.session.cache  # the new session may have read its own (catalog countries)
        assert app.session.account_id is None
        assert app.context.account is None
        # Back in sandbox, the sandbox choice is remembered (per profile and environment).
        await app.switch_profile("demo-sandbox")
        assert app.session.account_id == 1001


class _WriteScreen(BaseScreen):
    destination = "write-test"
    WRITE_ACTIONS = frozenset({"place"})
    BINDINGS = [
        Binding("p", "place", "Place order", id="write-test.place"),
        Binding("r", "reload", "Reload", id="write-test.reload"),
    ]
    placed = 0

    def compose_body(self):
        yield Static("write test")

    def action_place(self) -> None:
        self.placed += 1

    def action_reload(self) -> None:
        pass


@pytest.mark.parametrize("readonly", [True, False])
async def test_readonly_hides_and_refuses_write_actions(sim, readonly):
    app = app_on(sim, readonly=readonly)
    async with app.run_test(size=SIZE) as pilot:
        screen = _WriteScreen()
        await app.push_screen(screen)
        await pilot.press("p")
        palette = {command.title for command in app.get_system_commands(screen)}
        footer_actions = {b.binding.action for b in screen.active_bindings.values()}  # what the footer shows
        assert ("Place order" in palette) is (not readonly)
        assert ("place" in footer_actions) is (not readonly)
        assert screen.placed == (0 if readonly else 1)
        assert "Reload" in palette
        assert ("READ-ONLY" in str(screen.query_one(ContextBar).render())) is readonly


async def test_profile_readonly_can_only_make_it_stricter(sim):
    app = app_on(sim, profile_options={"readonly_profiles": frozenset({"demo-production"})})
    async with app.run_test(size=SIZE):
        assert not app.readonly
        await app.switch_profile("demo-production")
        assert app.readonly


async def test_first_run_explains_and_offers_the_demo():
    app = build_app(AppSettings())
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen.destination == "first-run"
        text = " ".join(
            str(w.render()) for w in app.screen.query("Markdown *, #config-problem")
        )  # the file's words: literal
        assert "giftdesk profiles add" in text
        await pilot.press("d")
        await pilot.pause()
        try:
            assert app.session is not None and app.session.profile.name == "demo-sandbox"
            assert app.screen.destination == "catalog"
        finally:
            app.settings.demo.stop()


def test_corrupt_config_is_reported_and_left_alone(tmp_path: Path, monkeypatch):
    config = tmp_path / "config.toml"
    garbage = b"[profiles\nthis is = not toml"
    config.write_bytes(garbage)
    monkeypatch.setenv("GIFTDESK_CONFIG", str(config))
    for variable in ("GIFTDESK_BASE_URL", "GIFTDESK_CLIENT_ID", "GIFTDESK_CLIENT_SECRET"):
        monkeypatch.delenv(variable, raising=False)
    settings = load_settings(None, demo=False, readonly=False, order=None)
    assert str(config) in settings.config_problem
    assert "not valid TOML" in settings.config_problem
    with pytest.raises(ConfigError, match="not saved"):
        settings.store.save(Config().with_profile(_env_profile()))
    assert config.read_bytes() == garbage


async def test_corrupt_config_message_is_on_the_first_screen(tmp_path: Path):
    settings = AppSettings(config_problem=f"{tmp_path}/config.toml: not valid TOML (line 1)")
    app = build_app(settings)
    async with app.run_test(size=SIZE):
        text = " ".join(
            str(w.render()) for w in app.screen.query("Markdown *, #config-problem")
        )  # the file's words: literal
        assert "could not be read" in text and "not valid TOML" in text


def test_unknown_profile_on_the_command_line_names_the_known_ones(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("GIFTDESK_CONFIG", str(tmp_path / "config.toml"))
    with pytest.raises(ConfigError, match="no profile named 'nope'"):
        load_settings("nope", demo=False, readonly=False, order=None)


def _env_profile():
    from tui.local.profiles import make_profile

    return make_profile(
        name="support",
        environment="sandbox",
        base_url="https://api.example.test",
        client_id="id",
        secret={"kind": "env", "ref": "SUPPORT_SECRET"},
    )


class _AccountsProbe(BaseScreen):
    """A screen that asks for accounts in a worker, as every real screen does."""

    destination = "probe"

    def compose_body(self):
        yield Static("probe")

    def on_mount(self) -> None:
        self.run_worker(self.load(), exclusive=True, exit_on_error=False)

    async def load(self) -> None:
        client = await self.app.session.client()
        await client.accounts()


def _app_with(sim, **changes):
    profiles = demo_profiles(sim.base_url)
    profiles["broken"] = dataclasses.replace(profiles["demo-sandbox"], name="broken", **changes)
    quick_retries = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.01)
    return build_app(AppSettings(profiles=profiles, profile_name="broken", client_options={"retry": quick_retries}))


async def test_401_says_which_profile_to_check(sim):
    from tui.local.config import SecretSource

    app = _app_with(sim, secret=SecretSource.inline_demo("wrong-secret"))
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(_AccountsProbe())
        with contextlib.suppress(WorkerFailed):  # the failure is what we are looking at
            await app.workers.wait_for_complete()
        await pilot.pause()
        assert any("Check profile broken's client id and secret" in m for m in notifications(app))
        assert app.is_running


async def test_unreachable_names_the_base_url_and_cause(sim):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    app = _app_with(sim, base_url=f"http://127.0.0.1:{closed_port}")
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(_AccountsProbe())
        with contextlib.suppress(WorkerFailed):  # the failure is what we are looking at
            await app.workers.wait_for_complete()
        await pilot.pause()
        messages = notifications(app)
        assert any(f"127.0.0.1:{closed_port}" in m for m in messages), messages
        assert app.is_running


class _FieldScreen(BaseScreen):
    destination = "field-test"

    def compose_body(self):
        from textual.widgets import Input

        yield Input(id="field")

    def on_mount(self) -> None:
        self.query_one("#field").focus()


async def test_escape_leaves_a_text_field_before_going_back(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(_FieldScreen())
        await pilot.pause()
        await pilot.press("4")  # typing: the digit is text here
        assert app.screen.query_one("#field").value == "4"
        await pilot.press("escape")
        assert app.screen.destination == "field-test" and app.screen.focused is None
        await pilot.press("6")  # not typing: the digit navigates
        assert app.screen.destination == "profiles"


async def test_help_lists_the_keys_of_the_screen_it_was_opened_from(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        keys = str(app.screen.query_one("#help-screen-keys").render())
        assert "On the Catalog screen" in keys and re.search(r"(^  | )n +Next page\b", keys, re.MULTILINE)
        assert "Focus Next" not in keys  # Textual's own bindings are not ours to explain


def test_unknown_profile_for_the_tui_is_a_plain_error_with_exit_2(tmp_path: Path):
    from click.testing import CliRunner

    from tui.cli import main

    result = CliRunner().invoke(main, ["--profile", "nope"])
    assert result.exit_code == 2
    assert "no profile named 'nope'" in result.output
    assert "Traceback" not in result.output


async def test_what_a_session_started_ends_with_it_on_a_switch(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE):
        stopped = []
        app.session.when_closed(lambda: stopped.append("listener"))
        await app.switch_profile("demo-production")
        assert stopped == ["listener"]


class _BrokenProbe(BaseScreen):
    """A screen whose request fails in a way nobody planned for."""

    destination = "broken"

    def compose_body(self):
        yield Static("broken")

    def on_mount(self) -> None:
        self.run_worker(self.load(), exclusive=True, exit_on_error=False)

    async def load(self) -> None:
        raise RuntimeError("card https://payouts.sim.giftdesk.test/redeem/SECRETtoken42%3D went wrong")


async def test_an_unexpected_error_is_shown_logged_redacted_and_the_app_carries_on(sim, tmp_path):
    import logging

    from tui.local.logs import setup_logging

    root = logging.getLogger()
    handlers = list(root.handlers)
    log_file = setup_logging()
    try:
        app = app_on(sim)
        async with app.run_test(size=SIZE) as pilot:
            await app.push_screen(_BrokenProbe())
            with contextlib.suppress(WorkerFailed):
                await app.workers.wait_for_complete()
            await pilot.pause()
            assert any("Unexpected error (RuntimeError)" in m and str(log_file) in m for m in notifications(app))
            assert app.is_running
        logged = log_file.read_text()
        assert "RuntimeError" in logged and "Traceback" in logged
        assert "SECRETtoken42" not in logged  # the weblink token is masked in the traceback too
    finally:
        for handler in root.handlers:
            if handler not in handlers:
                root.removeHandler(handler)
                handler.close()


async def test_digits_keep_navigating_through_screens_with_forms(sim):
    # The Order and Payout screens open on a table or nothing, not in their text fields.
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        for key, destination in (("3", "order"), ("4", "payout"), ("5", "notifications"), ("7", "audit")):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen.destination == destination


async def test_the_start_screen_offers_no_back(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:

        def offers_back() -> bool:  # what the footer shows: Textual leaves hidden bindings out
            return "escape" in app.screen.active_bindings

        assert not offers_back()
        await pilot.press("6")
        assert offers_back()


@pytest.mark.parametrize(
    "outside",
    ["Bad [/] brand", "[@click=app.quit]x[/]", "[link=https://x]y[/link]", "\x1b]52;c;ZXZpbA==\x07 and \x1b[2J"],
    ids=repr,
)
async def test_a_screens_notification_is_literal_whatever_it_holds(sim, outside):
    """Screens call `self.notify(f"... {outside text}")` plainly: the app's notify makes every toast literal."""
    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.notify(f"Copied account id {outside}")  # as the Accounts screen does
        app.screen.notify(f"Profile {outside} saved.", markup=True)  # asking for markup changes nothing
        await pilot.pause()
        assert notifications(app)[-2:] == [
            visible(f"Copied account id {outside}"),
            visible(f"Profile {outside} saved."),
        ]
        assert app.is_running
