"""Team mode as the app follows it: the team's changes heard (LISTEN) and passed to the watch list and the open
screens of the session they concern, and the header's word when the team database is away.

A notification is a hint (DESIGN rule 13): each screen reads back what changed with the operator's own rights.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tui.screens.base import BaseScreen
from tui.screens.host import ERROR_SECONDS

if TYPE_CHECKING:
    from collections.abc import Callable

    from tui.app_watch import WatchFollower
    from tui.screens.host import GiftdeskHost
    from tui.team.live import Change, TeamListener
    from tui.team.mode import TeamMode

TEAM_UNREACHABLE = "team database unreachable, retrying"
TEAM_WORKERS = "team"  # the worker group of the listener


class TeamFollower:
    """Hears one team's changes for the app; `redraw` redraws the header (the team's word)."""

    def __init__(self, app: GiftdeskHost, team: TeamMode, watching: WatchFollower, redraw: Callable[[], None]) -> None:
        self.app = app
        self.team = team
        self.watching = watching
        self.redraw = redraw
        self.listener: TeamListener | None = None

    @property
    def listening(self) -> bool:
        """Whether the team's changes are heard now (LISTEN is on)."""
        return self.listener is not None and self.listener.listening.is_set()

    def words(self) -> str:
        """What the header says of the team."""
        return "team" if self.team.link.reachable else TEAM_UNREACHABLE

    def start(self) -> None:
        """Hear every change the team makes (LISTEN), and say in the header when the database is away."""
        loop = asyncio.get_running_loop()

        def reachable_changed(reachable: bool) -> None:  # from whichever thread saw it
            loop.call_soon_threadsafe(self._reachable, reachable)

        self.team.link.on_reachable(reachable_changed)
        self.listener = self.team.listener(self._changed)
        self.app.run_worker(self.listener.run(), name="team-listener", group=TEAM_WORKERS, exit_on_error=False)

    def listener_failed(self, error: BaseException) -> None:
        self.app.notify(
            f"Live updates from the team stopped ({type(error).__name__}: {error}); restart giftdesk to hear them again.",
            title="Team",
            severity="error",
            timeout=ERROR_SECONDS,
        )

    def _reachable(self, reachable: bool) -> None:
        self.redraw()
        if reachable:  # what changed meanwhile was not heard: read it again
            self.watching.resync()
            self._tell_screens({"what": "all"})

    def _changed(self, change: Change) -> None:
        session = self.app.current_session
        if session is None or (change.get("profile"), change.get("environment")) != (
            session.profile.name,
            session.environment,
        ):
            return
        if change.get("what") == "watch":
            self.watching.shared_change(change)
        self._tell_screens(change)

    def _tell_screens(self, change: Change) -> None:
        for screen in self.app.screen_stack:
            if isinstance(screen, BaseScreen):
                screen.team_changed(change)
