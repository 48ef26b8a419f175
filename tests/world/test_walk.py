"""The walk: random sequences of the keys every screen binds, on the demo's simulator (issue 26).

A Hypothesis state machine drives the app through Pilot (from a thread of its own, apps.Driven,
so a freeze fails the walk instead of hanging it). Each step presses one key drawn from the
bindings of every screen, dialog and widget (their BINDINGS, the app's screen keys from
tui.core.navigation): the keys a person can press, kept true as screens change. After each step:
the app still answers (its message loop takes a callback and draws within STEP_SECONDS; and
a screen key, a step of its own, shows that screen within STEP_SECONDS), nothing raised (no crash, no
"Unexpected error"), and the screen stack is sane. The service goes away and comes back as a step of its
own (issue 35): a screen whose refresh failed says so on its status line, with the age of what it shows,
and the Orders board keeps what it showed. The app has only the sandbox demo profile,
so whatever the walk types into a form and confirms moves no production money.

Budget: three walks of 30 steps per size in `make test` (about half a minute), reported as they
went; GIFTDESK_WALK_EXAMPLES=N walks N of 60 steps per size, GIFTDESK_DEEP_TESTS=1 walks 40, and
a failing walk is shrunk to the fewest steps that still fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import os
import pkgutil

import pytest
from apps import Driven, Outage, demo_profiles, notifications, screen_lines
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Input, Tabs, TextArea
from textual.worker import WorkerCancelled, WorkerFailed

import tui.screens
import widgets
from tui.app import AppSettings, build_app, navigation_bindings
from tui.core.navigation import BY_NAME, DESTINATIONS, HOME
from tui.demo import demo_settings
from tui.screens.base import BaseScreen
from tui.screens.orders import OrdersScreen

SIZES = [(80, 24), (160, 48)]
LOOK_SECONDS = 2.0  # how long the walk looks at a screen it went to before the next key
STEP_SECONDS = 10.0  # a key, or the check after it, that takes longer than this: the app stopped answering
PROFILE = "demo-sandbox"
# Keys that end the walk rather than walk: quitting, and the palette (whose typed text runs any command, Quit too).
LEAVING_ACTIONS = {"quit", "command_palette", "suspend_process"}
# Screens whose rows open an order or a payout, and the keys from the screen's start to those rows.
ROWS_THAT_OPEN = {"orders": (), "watch": (), "accounts": ("tab",)}

DEEP = os.environ.get("GIFTDESK_DEEP_TESTS") == "1" or bool(os.environ.get("GIFTDESK_WALK_EXAMPLES"))
EXAMPLES = int(os.environ.get("GIFTDESK_WALK_EXAMPLES") or (40 if DEEP else 3))
STEPS = 60 if DEEP else 30
# A frozen walk costs STEP_SECONDS and a thread each time it is tried again: `make test` reports the walk as
# it went; the deep walk shrinks it to the fewest keys that still freeze (minutes).
PHASES = list(Phase) if DEEP else [Phase.explicit, Phase.reuse, Phase.generate]


def _classes_in(*packages) -> list[type]:
    found = []
    for package in packages:
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            found += [
                value
                for value in vars(module).values()
                if isinstance(value, type) and issubclass(value, Widget) and value.__module__ == module.__name__
            ]
    return found


def bound_keys() -> list[str]:
    """Every key a binding of giftdesk's app, screens, dialogs and widgets names (Textual's tables and tabs too)."""
    classes = [*_classes_in(tui.screens, widgets), DataTable, Tabs, Screen]
    keys = {binding.key for binding in navigation_bindings()}
    for cls in classes:
        for klass in cls.__mro__:
            for binding in Binding.make_bindings(klass.__dict__.get("BINDINGS", [])):
                if binding.action not in LEAVING_ACTIONS:
                    keys.add(binding.key)
    keys.add("colon")  # the app's jump key (its other binding, ctrl+q, quits)
    return sorted(keys)


KEYS = bound_keys()


def sandbox_app(sim):
    profiles = {PROFILE: demo_profiles(sim.base_url)[PROFILE]}
    return build_app(AppSettings(profiles=profiles, profile_name=PROFILE))


async def answers(pilot) -> None:
    """The app's own message loop runs a callback and the frame after it is drawn."""
    done = asyncio.Event()
    pilot.app.call_later(done.set)
    await done.wait()
    await pilot.pause()


async def looked_at(pilot) -> None:
    """The screen's requests answered (a poller that goes on is not waited for beyond LOOK_SECONDS). A worker
    cancelled by a newer one of its group is DESIGN rule 4 at work (a stale request cancelled), not a failure."""
    with contextlib.suppress(TimeoutError, WorkerFailed, WorkerCancelled):
        await asyncio.wait_for(pilot.app.workers.wait_for_complete(), LOOK_SECONDS)
    await pilot.pause()


async def plain_screen(pilot) -> list[str]:
    """The screen on top as a person reads it, without colour: one string a line."""
    return screen_lines(pilot.app)


def navigable(app) -> bool:
    """A screen key means "go there" now: a giftdesk screen on top, no text field in focus."""
    return isinstance(app.screen, BaseScreen) and not isinstance(app.focused, (Input, TextArea))


class Walk(RuleBasedStateMachine):
    def __init__(self, service: Outage, size: tuple[int, int]) -> None:
        super().__init__()
        if not service.up_now:  # an earlier walk ended in an outage
            service.up()
        self.service = service
        self.driven = Driven(sandbox_app(service.server), size).__enter__()
        self.app = self.driven.app
        self.board_rows = 0  # the Orders board's rows when its data was last fresh

    @rule(choice=st.integers(min_value=0, max_value=999))
    def press(self, choice: int) -> None:
        """Mostly a key the screen on top (or its focused widget) binds now, what a person there would
        try; one time in ten any key some screen, dialog or widget binds.

        Drawn as a number, not from the keys themselves: what is bound depends on the app's state,
        and Hypothesis replays a walk by its draws."""
        here = sorted(
            {
                key
                for key, active in self.app.screen.active_bindings.items()
                if active.binding.action not in LEAVING_ACTIONS
            }
            or {"escape"}
        )
        keys = KEYS if choice % 10 == 0 else here
        self.press_key(keys[choice // 10 % len(keys)])

    def press_key(self, key: str) -> None:
        self.driven.press(key, seconds=STEP_SECONDS)

    @rule()
    def select(self) -> None:
        """enter: what every table, button and form of every screen takes as "do it"."""
        self.press_key("enter")

    @rule(name=st.sampled_from([d.name for d in DESTINATIONS]))
    def go(self, name: str) -> None:
        """A screen key shows its screen within STEP_SECONDS (when a screen key means that now);
        then the walk looks at it as a person would, until what it asked for came (LOOK_SECONDS at most)."""
        if not navigable(self.app):
            return
        self.driven.press(BY_NAME[name].key, seconds=STEP_SECONDS)
        self.driven.run(answers, what=f"showing {name}", seconds=STEP_SECONDS)
        assert self.app.screen.destination == name, f"key {BY_NAME[name].key} left {self.app.screen} on top"
        self.driven.run(looked_at, what=f"looking at {name}", seconds=STEP_SECONDS)

    @rule(name=st.sampled_from(sorted(ROWS_THAT_OPEN)), down=st.integers(min_value=0, max_value=3))
    def open_a_row(self, name: str, down: int) -> None:
        """The incident path: to a list whose rows open something (the board, the ledger, the watch
        list), a few rows down, enter. Its own rule, so a walk takes it often: a freeze on it hid
        behind a three-key sequence that uniform draws meet about half the time."""
        self.go(name)
        if getattr(self.app.screen, "destination", None) != name:  # a dialog or a text field kept the key
            return
        for key in (*ROWS_THAT_OPEN[name], *["down"] * down, "enter"):
            self.press_key(key)

    @rule()
    def outage(self) -> None:
        """The service goes away (its port refuses connections), or comes back on the same port."""
        if self.service.up_now:
            self.service.down()
        else:
            self.service.up()

    @invariant()
    def a_failed_refresh_is_said_and_blanks_nothing(self) -> None:
        screen = self.app.screen
        if not isinstance(screen, BaseScreen) or not screen.is_mounted or not screen.REFRESH_GROUPS:
            return
        line = screen.status_line
        if not line.stale:
            if isinstance(screen, OrdersScreen) and not screen.table.loading:
                self.board_rows = screen.table.row_count
            return
        words = str(line.render())
        assert line.display and words.startswith(("⚠ Stale: last good data as of", "⚠ Nothing loaded", "⟳")), words
        if isinstance(screen, OrdersScreen) and words.startswith("⚠ Stale") and self.board_rows:
            assert screen.table.row_count, f"the board was blanked by a failed refresh: {words}"

    @invariant()
    def still_answers(self) -> None:
        self.driven.run(answers, what="the check after the last key", seconds=STEP_SECONDS)

    @invariant()
    def nothing_raised(self) -> None:
        assert self.app.is_running and self.app._exception is None
        assert not [n for n in notifications(self.app) if n.startswith("Unexpected error")]

    @invariant()
    def state_reads_without_colour(self) -> None:
        """The screen as plain text (a screenshot pasted in a ticket, a colour-blind engineer): the top line says
        the environment in words, and a radio set shows its one choice as `(•)`, never only in colour."""
        if not isinstance(self.app.screen, BaseScreen):
            return
        lines = self.driven.run(plain_screen, what="reading the screen as text", seconds=STEP_SECONDS)
        assert "SANDBOX" in lines[0], f"the top line does not say the environment: {lines[0]!r}"
        assert not any("[b]" in line or "[/b]" in line for line in lines), "raw markup on screen"
        for line in lines:
            if "PayPal" in line and "Venmo" in line:
                assert line.count("(•)") <= 1 and "▐●▌" not in line, f"a wallet choice in colour only: {line!r}"

    @invariant()
    def stack_is_sane(self) -> None:
        stack = self.app.screen_stack
        assert stack[0].id == "_default" and isinstance(stack[1], BaseScreen) and stack[1].destination == HOME
        opened = [s.destination for s in stack if isinstance(s, BaseScreen)]
        assert len(opened) == len(set(opened)), f"a screen opened twice: {opened}"
        assert all(screen.is_attached for screen in stack)

    def teardown(self) -> None:
        try:
            if not self.driven.frozen:
                for _ in range(3):  # out of a dialog or a text field
                    if navigable(self.app):
                        break
                    self.driven.press("escape", seconds=STEP_SECONDS)
                self.go(HOME)
        finally:
            self.driven.__exit__(None, None, None)


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_a_random_walk_of_every_screens_keys_keeps_the_app_answering(size):
    service = Outage(dataclasses.replace(demo_settings(), limits=None))  # its own: the walk stops and starts it
    try:
        walk(service, size)
    finally:
        service.stop()


def walk(service: Outage, size: tuple[int, int]) -> None:
    run_state_machine_as_test(
        lambda: Walk(service, size),
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            deadline=None,
            database=None,
            phases=PHASES,
            suppress_health_check=list(HealthCheck),
        ),
    )
