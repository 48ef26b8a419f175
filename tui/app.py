"""The Textual app: the frame, navigation, profile switching, error display.

Built by `build_app(settings)` so tests construct it with injected settings
(a temporary config, a simulator); the start apart from the frame (settings, `run_tui`) is tui.startup.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import select
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from importlib import import_module
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.theme import Theme
from textual.worker import Worker, WorkerState

from styles import STYLES
from tui.app_settings import START_COLLECTOR_PAUSE_SECONDS, AppSettings, resume_collector
from tui.app_team import TEAM_WORKERS, TeamFollower
from tui.app_watch import WatchFollower
from tui.core.navigation import BY_NAME, DESTINATIONS, HOME
from tui.screens.base import BaseScreen, is_text_field
from tui.screens.host import ERROR_SECONDS, GiftdeskHost, WatchListUnavailable
from widgets.context_bar import Context
from widgets.kept_styles import KeptStyles
from widgets.status_badge import use_palette
from widgets.textual_private import exit_with_words, in_own_turn, on_app_thread, take_out_of_stack
from widgets.too_small import is_too_small

if TYPE_CHECKING:
    from pathlib import Path

    from tui.api.limits import Limit
    from tui.core.jump import Jump
    from tui.local.config import Profile
    from tui.local.config_file import ProfileStore
    from tui.local.notes import NoteStore
    from tui.session import Session
    from tui.team.mode import TeamMode
    from tui.watch_service import WatchService


SANDBOX_THEME = Theme(
    name="giftdesk-sandbox",
    primary="#2f7fbf",
    secondary="#3aa39a",
    accent="#e0a030",
    error="#d04040",
    warning="#e0a030",
    success="#4caf50",
    dark=True,
)
# Production: a red cast over everything, not just the bar (DESIGN rule 7).
PRODUCTION_THEME = Theme(
    name="giftdesk-production",
    primary="#c0392b",
    secondary="#8e2a20",
    accent="#f0b040",
    error="#ff4b3e",
    warning="#f0b040",
    success="#4caf50",
    background="#1e0f0f",
    surface="#2a1414",
    panel="#3a1a1a",
    dark=True,
)


WATCH_AFTER_CONTENT_SECONDS = 0.3  # how long after the start screen's first content the watch list starts
WATCH_START_LATEST_SECONDS = 2.0  # ... or this long after mounting, whichever comes first
log = logging.getLogger(__name__)
TERMINAL_CHECK_SECONDS = 2.0  # how often the app looks whether its terminal is still there


def terminal_hung_up(fd: int) -> bool:
    """Whether the terminal on `fd` hung up (its other end closed); never blocks."""
    poller = select.poll()
    poller.register(fd, 0)  # no event asked: only a hangup, an error or a closed fd are said
    return bool(poller.poll(0))


def navigation_bindings() -> list[Binding]:
    return [Binding(d.key, f"go('{d.name}')", d.title, show=False, id=f"go.{d.name}") for d in DESTINATIONS]


class GiftdeskApp(GiftdeskHost):
    TITLE = "giftdesk"
    # The start screen's styles with the app's, read and parsed once: a screen's own file, read when it is pushed,
    # makes Textual parse every style again (Stylesheet.reparse).
    CSS_PATH = [STYLES / "app.tcss", STYLES / "catalog.tcss"]
    BINDINGS = [
        *navigation_bindings(),
        # Taken at the app's turn, as it comes (priority): keys typed in the same breath (`:q⏎`) then find the bar.
        # Not as a binding of the focused widget's, which is answered when the key has bubbled up to the app: the
        # keys after it had gone to that widget by then.
        Binding("colon", "jump", "Jump", id="jump", priority=True),
        Binding("ctrl+q", "quit", "Quit", id="quit"),
    ]

    # Told on every change (the Watch screen follows the list through it); its watchers redraw what they show,
    # so no repaint of the whole screen (it was one per settled order: bench/team.py).
    context: reactive[Context] = reactive(Context, always_update=True, repaint=False)

    def __init__(self, settings: AppSettings) -> None:
        super().__init__()
        self.settings = settings
        self._kept_styles = self._styles_from_the_last_start(settings.kept_styles)
        self.profiles = dict(settings.profiles)
        self.current_session: Session | None = None
        self.watching = WatchFollower(self, redraw=self._apply_context)
        self._watch_put_off = False  # the start's watch list waits for the start screen's first content
        self._start_drawn = asyncio.Event()  # the start screen's first frame is on the terminal (`start_drawn`)
        self._errors_on_screen: dict[str, float] = {}  # message -> when its toast goes (time.monotonic)
        self._local_notes: NoteStore | None = None
        self.team_follower = (
            TeamFollower(self, settings.team, self.watching, redraw=self._apply_context) if settings.team else None
        )
        self.register_theme(SANDBOX_THEME)
        self.register_theme(PRODUCTION_THEME)
        use_palette(settings.palette)
        self.set_keymap(settings.keymap)
        if settings.profile_name in self.profiles:
            self.current_session = self._new_session(self.profiles[settings.profile_name])
        textual_theme = self.theme
        self._apply_context()
        # The start's theme's variables before any style is parsed. Textual's theme watcher also queued a
        # refresh_css for it, which would parse every style again and restyle every widget on the way to the
        # first frame, for the variables the stylesheet has now: that one is passed over (`refresh_css`).
        self.stylesheet.set_variables(self.get_css_variables())
        self._start_theme_refresh_queued = self.theme != textual_theme

    _start_theme_refresh_queued = False

    def refresh_css(self, animate: bool = True) -> None:
        if self._start_theme_refresh_queued:
            self._start_theme_refresh_queued = False
            return
        super().refresh_css(animate)

    # --- state shown in the frame -------------------------------------------

    @property
    def readonly(self) -> bool:
        return self.current_session.readonly if self.current_session else self.settings.readonly

    @property
    def is_production(self) -> bool:
        return bool(self.current_session and self.current_session.is_production)

    @property
    def profile_store(self) -> ProfileStore | None:
        return self.settings.store

    @property
    def config_problem(self) -> str | None:
        return self.settings.config_problem

    def _apply_context(self) -> None:
        session = self.current_session
        if session is None:
            self.context = Context(demo=self.settings.demo is not None)
            self.theme = self.sandbox_theme
            return
        account = session.cache.get("account_label") or (str(session.account_id) if session.account_id else None)
        watching, attention = self.watching.counts()
        self.context = Context(
            profile=session.profile.name,
            environment=session.environment,
            account=account,
            readonly=session.readonly,
            demo=self.settings.demo is not None,
            watching=watching,
            attention=attention,
            team=self.team_follower.words() if self.team_follower is not None else None,
            unknown_outcomes=self._unknown_outcomes,
        )
        self.theme = PRODUCTION_THEME.name if session.is_production else self.sandbox_theme

    @property
    def sandbox_theme(self) -> str:
        """The config's `theme` when Textual knows it, else giftdesk's; production never uses it."""
        chosen = self.settings.theme
        return chosen if chosen in self.available_themes else SANDBOX_THEME.name

    def choose_account(self, account_id: int, label: str) -> None:
        self.session.choose_account(account_id)
        self.session.cache["account_label"] = label
        self._apply_context()

    # --- sessions and profiles -----------------------------------------------

    def _new_session(self, profile: Profile) -> Session:
        from tui.local.state_files import ChosenAccounts
        from tui.session import Session

        return Session(
            profile,
            readonly_flag=self.settings.readonly,
            chosen_accounts=ChosenAccounts(),
            # Only while the demo's simulator has not said it serves: a later session has nothing to wait for.
            wait_ready=self.settings.demo.wait_ready if self.settings.demo and not self.settings.demo.ready else None,
            start_service=self.settings.demo.begin if self.settings.demo else None,
            on_retry=self._notify_retry,
            on_wait=self._notify_wait,
            client_options=self.settings.client_options,
        )

    async def switch_profile(self, name: str) -> None:
        """Rebuild the client and every screen: nothing cached survives a switch."""
        await self._in_app_turn(self._switch_profile, name)

    async def _switch_profile(self, name: str) -> None:
        profile = self.profiles.get(name)
        if profile is None:
            self.notify(f"No profile named '{name}'. Known: {', '.join(self.profiles) or 'none'}.", severity="error")
            return
        if self.current_session is not None:
            await self.current_session.close()
        self.current_session = self._new_session(profile)
        self._start_watching()
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        await self.push_screen(self._make_screen(HOME))
        self.notify(
            f"Switched to profile {name} ({profile.environment}).",
            severity="warning" if profile.environment == "production" else "information",
        )

    async def start_demo(self) -> None:
        from tui.demo import DemoBackend
        from tui.local.logs import setup_logging

        demo = DemoBackend.start()
        setup_logging()  # from now on into the demo's folder, like the rest of what the demo writes
        self.settings.demo = demo
        self.settings.store = None
        self.profiles = demo.profiles()
        await self.switch_profile(demo.default_profile_name)

    # --- the watch list ---------------------------------------------------------------

    @property
    def watch_list(self) -> WatchService:
        self._start_put_off_watching()  # asked for before the start screen's first content: now
        return self.watching.watch_list

    def start_screen_shown(self) -> None:
        # A moment later: Textual draws on a timer of its own, and a callback "after refresh" may
        # still run before the frame that shows what was just set (seen on a loaded machine).
        self.set_timer(WATCH_AFTER_CONTENT_SECONDS, self._after_first_content)

    def _after_first_content(self) -> None:
        self._start_put_off_watching()
        resume_collector()

    _unknown_outcomes = 0  # money actions whose outcome is unknown (DESIGN rule 12): said in the top bar

    @work(thread=True, exclusive=True, group="unknown-outcomes")
    def count_unknown_outcomes(self) -> None:
        """Read the audit log for writes whose outcome is unknown (a kill -9 in flight): the top bar says how
        many until someone checks them. A log that cannot be read is said by the Audit screen, not here."""
        from tui.local.storage import audit_log, unknown_outcomes

        try:
            count = len(unknown_outcomes(audit_log().entries()))
        except Exception as error:  # any store's failure: the top bar stays as it was
            log.warning("the audit log could not be read for unknown outcomes: %s", error)
            return
        self.call_from_thread(self._set_unknown_outcomes, count)

    def _set_unknown_outcomes(self, count: int) -> None:
        self._unknown_outcomes = count
        self._apply_context()

    def _start_put_off_watching(self) -> None:
        if self._watch_put_off:
            self._start_watching()

    def _start_watching(self) -> None:
        """The session's watch list, followed until the session ends (items of other profiles wait)."""
        self.count_unknown_outcomes()  # the top bar's other count, read as the session starts
        self._watch_put_off = False
        self.watching.start(self.current_session, self.settings.team)

    # --- notes and team mode ------------------------------------------------------

    @property
    def notes(self) -> NoteStore:
        if (
            self.settings.team is not None
        ):  # the session's environment's: the team keys its lists by profile and environment
            return self.settings.team.notes(self.session.environment)
        if self._local_notes is None:
            from tui.local.config import Config, team_user
            from tui.local.notes import SqliteNotes

            self._local_notes = SqliteNotes(author=team_user(Config(user=self.settings.user)))
        return self._local_notes

    @property
    def team(self) -> TeamMode | None:
        return self.settings.team

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # The app's own workers (the screens' have BaseScreen's handler): a failure is said, not swallowed.
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            if event.worker.group == TEAM_WORKERS and self.team_follower is not None:
                self.team_follower.listener_failed(event.worker.error)
            else:
                self.report_error(event.worker.error)

    # --- navigation ------------------------------------------------------------

    def on_mount(self) -> None:
        if not self.is_headless:
            self.set_interval(TERMINAL_CHECK_SECONDS, self._exit_if_terminal_gone)
        # The default screen stays a blank base under everything, so that a
        # profile switch can drop every screen above it and start afresh.
        if not gc.isenabled():  # the command line's start (tui/cli.py): the first screen is drawn by now
            self.set_timer(START_COLLECTOR_PAUSE_SECONDS, resume_collector)
        # The watch list (its scheduler, the models, SQLite) starts once the start screen shows its
        # first content (`start_screen_shown`), or when something asks for it, or after a while.
        self._watch_put_off = self.current_session is not None
        if self._watch_put_off:
            self.set_timer(WATCH_START_LATEST_SECONDS, self._start_put_off_watching)
        self.push_screen(self._start_screen())
        self.call_later(self._draw_start_whole)  # the first thing after Textual's start-up batch
        if self._kept_styles is not None and self.settings.kept_styles is not None:
            self.run_worker(self._keep_styles(self._kept_styles, self.settings.kept_styles), exit_on_error=False)
        self._say_if_too_small(self.size.width, self.size.height)
        if self.settings.team is not None and self.team_follower is not None:
            self.team_follower.start()
            if self.settings.demo is not None:
                shown = self.settings.team.database.shown
                self.notify(
                    f"Team demo on {shown}: GIFTDESK_DATABASE_URL={shown} giftdesk --demo --team joins it.",
                    title="Team mode",
                    timeout=15,
                )
        theme = self.settings.theme
        if theme is not None and theme not in self.available_themes:
            known = ", ".join(sorted(name for name in self.available_themes if not name.startswith("giftdesk")))
            self.notify(
                f"Unknown theme {theme!r} in the config; using giftdesk's. Known: {known}.",
                severity="warning",
                timeout=10,
            )
        if self.settings.order and self.current_session is not None:
            self.call_later(self.navigate, "order", self.settings.order)

    def on_resize(self, event: events.Resize) -> None:
        self._say_if_too_small(event.size.width, event.size.height)

    def _say_if_too_small(self, width: int, height: int) -> None:
        """A standing notice on every screen while the terminal is smaller than the layouts (widgets.too_small)."""
        self.set_class(is_too_small(width, height), "-too-small")

    def _draw_start_whole(self) -> None:
        """The start screen drawn whole. Its layout was made inside Textual's start-up batch, where a frame is dropped
        (App._display) though the compositor takes it as drawn, so BaseScreen makes none then: this is its first."""
        self.screen.refresh()
        self.call_after_refresh(self._start_drawn.set)

    def _styles_from_the_last_start(self, path: Path | None) -> KeptStyles | None:
        """The styles parsed at the last start answer this one's parses (widgets.kept_styles)."""
        if path is None:
            return None
        from tui.local.kept_styles_file import read_kept_styles

        kept = KeptStyles(read_kept_styles(path))
        kept.answer(self.stylesheet)
        return kept

    async def _keep_styles(self, kept: KeptStyles, path: Path) -> None:
        """Once the start is drawn, what it parsed anew (a first start, a new theme, a new Textual) is kept."""
        await self._start_drawn.wait()
        data = kept.dumps() if kept.changed else None
        if data is not None:
            from tui.local.kept_styles_file import write_kept_styles

            await asyncio.to_thread(write_kept_styles, path, data)

    async def start_drawn(self) -> None:
        await self._start_drawn.wait()

    def _exit_if_terminal_gone(self) -> None:
        """A terminal gone with no hangup signal (its process group not the terminal's, or SIGHUP ignored):
        Textual's input thread would read its end of file in a loop, a core for good, and nobody would see."""
        terminal = sys.__stdin__  # what Textual's driver reads the keys from
        if terminal is not None and terminal_hung_up(terminal.fileno()):
            log.warning("the terminal is gone: giftdesk ends")
            self.exit()

    def on_unmount(self) -> None:
        if self.current_session is not None:
            self.current_session.release()  # e.g. a callback listener's port

    def _start_screen(self) -> Screen:
        if self.current_session is None:
            from tui.screens.first_run import FirstRunScreen

            return FirstRunScreen()
        return self._make_screen(HOME)

    def _make_screen(self, name: str) -> BaseScreen:
        module, _, cls = BY_NAME[name].screen.partition(":")
        return getattr(import_module(f"tui.screens.{module}"), cls)()

    async def _in_app_turn(self, change: Callable[..., Awaitable[None]], *arguments: str) -> None:
        """Run a change of the screen stack in the app's own turn, never in a screen's.

        A screen asks for one from its handlers and workers (enter on a row opens the order), and
        the change may close that very screen: a handler that waited for it would wait for its own
        screen's end, and the app, which waits for that end too, would answer no key any more
        (issue 26). So a screen's request is queued and returns at once; the app's own (its keys,
        a test's Pilot) is waited for.
        """
        if in_own_turn(self):
            await change(*arguments)
        else:
            self.call_later(change, *arguments)

    async def navigate(self, name: str, argument: str | None = None) -> None:
        """Go to a screen: back down the stack if it is open, else open it (see `_in_app_turn`)."""
        await self._in_app_turn(self._navigate, name, *([argument] if argument else []))

    async def open_over(self, name: str, argument: str) -> None:
        """Open one thing (an order, a payout) over the screen the person is on, so that esc comes
        back to it (the board, the ledger, the watch list); see `_in_app_turn`."""
        await self._in_app_turn(self._navigate, name, argument, "over")

    async def _navigate(self, name: str, argument: str | None = None, how: str = "down") -> None:
        if self.current_session is None and name not in ("help", "profiles"):
            self.notify("No profile yet: add one on the Profiles screen (6) or start the demo.", severity="warning")
            return
        if name == "profiles" and argument:
            await self._switch_profile(argument)
            return
        target = next(
            (s for s in reversed(self.screen_stack) if isinstance(s, BaseScreen) and s.destination == name), None
        )
        if target is None:
            target = self._make_screen(name)
            await self.push_screen(target)
        elif how == "over" and self.screen is not target:
            await self._bring_forward(target)
        else:
            while self.screen is not target:
                await self.pop_screen()
        if argument:
            target.accept_jump(argument)

    async def _bring_forward(self, screen: BaseScreen) -> None:
        """Move a screen open lower in the stack to its top, keeping what it shows and every screen
        between. Textual has no call for taking a screen out of the stack's middle, so it is taken
        out of the stack's own list (its push's result callback with it, as a pop would) and pushed."""
        take_out_of_stack(self, screen)
        await self.push_screen(screen)

    async def action_go(self, name: str) -> None:
        await self.navigate(name)

    def open_new_order(self, product=None, currency: str | None = None) -> None:
        """The guarded new-test-order form (catalog `enter`, Order `t`); it opens the order it places.

        `currency`: the product's brand's, its face values' currency.
        """
        from tui.screens.new_order import NewOrderScreen

        self.push_screen(NewOrderScreen(product, currency=currency))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "jump":  # `:` is text in a field, and a dialog is answered first (as before it was priority)
            return not (self.screen.is_modal or is_text_field(self.focused))
        return True

    def action_jump(self) -> None:
        from tui.screens.jump import JumpScreen

        def go(jump: Jump | None) -> None:
            if jump is not None:
                self.call_later(self.navigate, jump.destination, jump.argument)

        self.push_screen(JumpScreen(), go)

    async def action_back(self) -> None:
        """esc on a screen goes here (BaseScreen binds it, so the footer knows when it applies)."""
        await self._in_app_turn(self._back)

    async def _back(self) -> None:
        if len(self.screen_stack) > 2:  # the blank base and the start screen stay
            await self.pop_screen()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every binding of the app and the screen has a palette twin: the bindings are the one registry."""
        # Not the stock theme switcher: production's look is not a preference.
        yield from (command for command in super().get_system_commands(screen) if command.title != "Theme")
        seen = {"quit", "command_palette"}
        for active in screen.active_bindings.values():
            binding = active.binding
            if not isinstance(active.node, (App, Screen)) or not binding.description or binding.action in seen:
                continue
            if not screen.check_action(binding.action, ()):
                continue  # hidden here (a write action in read-only) or not possible now
            seen.add(binding.action)
            yield SystemCommand(
                binding.description,
                f"Key: {binding.key_display or binding.key}",
                lambda n=active.node, a=binding.action: self.run_action(a, n),
            )

    # --- feedback ----------------------------------------------------------------

    def _notify_retry(self, attempt: int, delay: float, reason: str) -> None:
        self._say_progress(f"{reason}: retrying in {delay:.0f} s (attempt {attempt}).", delay)

    def _notify_wait(self, endpoint: str, seconds: float, limit: Limit | None) -> None:
        rule = f"the provider allows {limit}" if limit else "the provider asked for a pause"
        self._say_progress(f"Waiting {seconds:.0f} s for a turn at {endpoint} ({rule}).", seconds)

    def _say_progress(self, text: str, seconds: float) -> None:
        """A retry or a wait, said on the status line of the screen under any dialog: one line said in place
        (issue 35: a toast each covered half an 80x24 screen, and a dialog's buttons)."""
        if not on_app_thread(self):  # a worker thread's request
            self.call_from_thread(self._say_progress, text, seconds)
            return
        screen = next((s for s in reversed(self.screen_stack) if isinstance(s, BaseScreen) and s.is_mounted), None)
        if screen is not None:
            screen.status_line.say_progress(text, max(seconds, PROGRESS_SHOWN_SECONDS))

    def report_error(self, error: BaseException) -> None:
        """Say what happened and what to do; never a secret, never a crash."""
        from tui.api.errors import AuthenticationError, ServiceError
        from tui.local.config import ConfigError
        from tui.local.database import DatabaseError

        if isinstance(error, AuthenticationError) and self.current_session is not None:
            message = f"Authentication failed (401). Check profile {self.current_session.profile.name}'s client id and secret."
        elif isinstance(error, ServiceError):
            message = f"{error}\n{error.hint}"
        elif isinstance(error, (ConfigError, WatchListUnavailable, DatabaseError)):
            message = str(error)
        else:
            from tui.local.logs import current_log_file, log_unexpected

            log_unexpected(error)
            message = f"Unexpected error ({type(error).__name__}). The app carries on; details are in {current_log_file() or 'the log'}."
        # One refused credential fails every watched item and the screen at once: one toast says it.
        now = time.monotonic()
        if self._errors_on_screen.get(message, 0.0) > now:
            return
        self._errors_on_screen = {shown: until for shown, until in self._errors_on_screen.items() if until > now}
        self._errors_on_screen[message] = now + ERROR_SECONDS
        self.notify(message, title="Error", severity="error", timeout=ERROR_SECONDS)

    def _fatal_error(self) -> None:
        # Textual's crash report prints local variables, which may hold card
        # codes or recipients: log a redacted traceback and say so instead.
        import sys

        from tui.local.logs import current_log_file, log_unexpected

        error = sys.exc_info()[1]
        if error is not None:
            log_unexpected(error)
        self.bell()
        where = current_log_file()
        exit_with_words(
            self,
            f"giftdesk stopped on an unexpected error ({type(error).__name__}). "
            f"A redacted traceback is in {where or 'the log'}.",
        )


PROGRESS_SHOWN_SECONDS = 3.0  # a retry or a wait stays said at least this long, however short


def build_app(settings: AppSettings) -> GiftdeskApp:
    return GiftdeskApp(settings)
