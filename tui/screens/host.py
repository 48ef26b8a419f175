"""The app as screens see it.

Screens reach the app through `self.app`, typed as `GiftdeskHost`; they never
import `tui.app`, which imports them. `tui.app.GiftdeskApp` is the one
implementation.
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App

from tui.core.safe_text import visible
from widgets.private import masked_for_screenshot

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from tui.api.models import Product
    from tui.local.config import Profile
    from tui.local.config_file import ProfileStore
    from tui.local.notes import NoteStore
    from tui.session import Session
    from tui.team.mode import TeamMode
    from tui.watch_service import WatchService

ERROR_SECONDS = 10.0  # an error's toast stays this long (the app says the same error meanwhile only once)
NOTIFY_LIMIT = 1000  # characters of a toast: a 10,000-character name must not fill the screen
CLIPBOARD_SECONDS = 30.0  # a copied card code or PIN is cleared after this long (GIFTDESK_CLIPBOARD_SECONDS; 0: never)


def clipboard_seconds() -> float | None:
    """How long a copied secret stays on the clipboard; None: until something else is copied."""
    text = os.environ.get("GIFTDESK_CLIPBOARD_SECONDS", "").strip()
    try:
        seconds = float(text) if text else CLIPBOARD_SECONDS
    except ValueError:
        seconds = CLIPBOARD_SECONDS
    return seconds if seconds > 0 else None


class NoSession(RuntimeError):
    """A screen that needs a profile was asked for one before any was chosen."""


class WatchListUnavailable(RuntimeError):
    """The watch list's file cannot be used (corrupt, unreadable): the message says which and what to do."""


class GiftdeskHost(App[None]):
    """What a screen may ask of the app."""

    profiles: dict[str, Profile]
    current_session: Session | None  # None until a profile is chosen (first run)

    @property
    def session(self) -> Session:
        """The active profile's session; every screen but first-run, Help and Profiles has one."""
        if self.current_session is None:
            raise NoSession("no profile is active yet")
        return self.current_session

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notification is literal (DESIGN rule 8): its text often holds the service's.

        Never parsed as markup, whatever `markup` says; control characters are shown, not emitted.
        """
        super().notify(
            visible(message, multiline=True, limit=NOTIFY_LIMIT),
            title=visible(title, limit=NOTIFY_LIMIT),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def action_help_quit(self) -> None:
        """Ctrl-C: how to quit, said in words (Textual's own text is markup, and notifications here are literal)."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit giftdesk.", title="Do you want to quit?")
                return

    # --- privacy (DESIGN rule 6) ------------------------------------------------------------

    def copy_secret(self, value: str) -> float | None:
        """Copy a card code or PIN; it is cleared from the clipboard after `clipboard_seconds()`
        (an empty OSC 52 write) unless something else was copied meanwhile. Returns that delay."""
        self.copy_to_clipboard(value)
        delay = clipboard_seconds()
        if delay:
            self.set_timer(delay, lambda: self._clear_clipboard(value))
        return delay

    def _clear_clipboard(self, value: str) -> None:
        if self.clipboard == value:
            self.copy_to_clipboard("")

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Textual's screenshot (palette → Screenshot), masked as rule 6 says, into giftdesk's private folder."""
        restore = masked_for_screenshot(self.screen_stack)
        self.call_after_refresh(self._save_screenshot, restore)
        return None

    def _save_screenshot(self, restore: Callable[[], None]) -> None:
        from tui.local.exports import screenshot_dir, write_screenshot

        try:
            svg = self.export_screenshot()
        finally:
            restore()
        try:
            saved = write_screenshot(svg)
        except OSError as error:
            self.notify(
                f"Screenshot not saved: {error.strerror or error}. Check that {screenshot_dir()} can be written "
                "(GIFTDESK_SCREENSHOT_DIR).",
                title="Screenshot",
                severity="error",
                timeout=10,
            )
            return
        self.notify(f"Saved, private values masked: {saved}", title="Screenshot")

    @property
    @abstractmethod
    def watch_list(self) -> WatchService:
        """The active session's watch list: `app.watch_list.add_order(request_id)` pins an order.
        Raises WatchListUnavailable when its file cannot be used (say it; the rest of the app works)."""

    @property
    @abstractmethod
    def notes(self) -> NoteStore:
        """Notes on orders: the team's in team mode, else this machine's."""

    @property
    def team(self) -> TeamMode | None:
        """Team mode (tui.team), or None: this machine's stores."""
        return None

    @property
    @abstractmethod
    def readonly(self) -> bool: ...

    @property
    @abstractmethod
    def is_production(self) -> bool: ...

    @property
    @abstractmethod
    def profile_store(self) -> ProfileStore | None:
        """Where profiles are saved; None in the demo, whose profiles live in memory only."""

    @property
    @abstractmethod
    def config_problem(self) -> str | None:
        """A config file that could not be read, to show on the first-run screen."""

    @abstractmethod
    def choose_account(self, account_id: int, label: str) -> None: ...

    @abstractmethod
    async def navigate(self, name: str, argument: str | None = None) -> None: ...

    @abstractmethod
    async def open_over(self, name: str, argument: str) -> None: ...

    @abstractmethod
    async def switch_profile(self, name: str) -> None: ...

    @abstractmethod
    async def start_demo(self) -> None: ...

    @abstractmethod
    async def action_back(self) -> None: ...

    @abstractmethod
    def open_new_order(self, product: Product | None = None, currency: str | None = None) -> None: ...

    @abstractmethod
    def report_error(self, error: BaseException) -> None: ...

    @abstractmethod
    async def start_drawn(self) -> None:
        """Returns once the start screen's first frame is on the terminal."""

    @abstractmethod
    def start_screen_shown(self) -> None:
        """The start screen's first content (the catalog's first page, or why it failed) is on
        screen: what the start put off so as not to delay it begins a moment later. Saying it
        again does nothing."""
