"""The app as screens see it.

Screens reach the app through `self.app`, typed as `GiftdeskHost`; they never
import `tui.app`, which imports them. `tui.app.GiftdeskApp` is the one
implementation.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING

from textual.app import App

from tui.core.safe_text import visible

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from tui.api.models import Product
    from tui.local.config import Profile, ProfileStore
    from tui.session import Session


class NoSession(RuntimeError):
    """A screen that needs a profile was asked for one before any was chosen."""


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

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Every notification is literal (DESIGN rule 8): its text often holds the service's.

        Never parsed as markup, whatever `markup` says; control characters are shown, not emitted.
        """
        super().notify(visible(message, multiline=True), title=visible(title), severity=severity, timeout=timeout, markup=False)

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
    async def switch_profile(self, name: str) -> None: ...

    @abstractmethod
    async def start_demo(self) -> None: ...

    @abstractmethod
    async def action_back(self) -> None: ...

    @abstractmethod
    def open_test_order(self, product: Product | None = None) -> None: ...

    @abstractmethod
    def report_error(self, error: BaseException) -> None: ...
