"""The session's watch list as the app follows it: its counts in the header a few times a second, and one bell and
one toast for the items that ended.

The app owns one `WatchFollower` and starts it with each session (after the start screen's first content, at the
start); screens reach the list itself through `app.watch_list` (tui.screens.host).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.screens.host import ERROR_SECONDS, NoSession, WatchListUnavailable

if TYPE_CHECKING:
    from textual.timer import Timer

    from tui.api.errors import ServiceError
    from tui.local.watchlist import WatchedItem
    from tui.screens.host import GiftdeskHost
    from tui.session import Session
    from tui.team.live import Change
    from tui.team.mode import TeamMode
    from tui.watch_service import WatchService

WATCH_REDRAW_SECONDS = 0.3  # the watch list's changes that are not final reach the screen this often at most
ENDED_REDRAW_SECONDS = 0.05  # an item that went final reaches the header within this (those ending meanwhile with it)
# One bell and one toast for the items that ended, at most this often: a burst (a receiver settling 20 orders a
# second, a first look at 500) is told together, not as a toast per item that lays the screen out each time.
ENDED_TOLD_SECONDS = 2.0
ENDED_TOLD_AT_MOST = 5  # items named in one toast; the rest are counted


class WatchFollower:
    """Follows one session's watch list for the app; `redraw` redraws the header's counts (and the Watch screen)."""

    def __init__(self, app: GiftdeskHost, redraw: Callable[[], None]) -> None:
        self.app = app
        self.redraw = redraw
        self.service: WatchService | None = None
        self.problem: str | None = None  # why the watch list's file cannot be used, when it cannot
        self._redraw_due: tuple[float, Timer] | None = None  # when the header next follows the list, and its timer
        self._ended: list[WatchedItem] = []  # items that went final, not told yet (`_tell_ended`)
        self._ended_told_at = -ENDED_TOLD_SECONDS  # time.monotonic() of the last bell and toast

    def start(self, session: Session | None, team: TeamMode | None) -> None:
        """The session's watch list, followed until the session ends (items of other profiles wait)."""
        from tui.local.database import DatabaseError
        from tui.watch_service import WatchService

        self.service = None
        self.problem = None
        if session is not None:
            store = team.watch_list(session.environment) if team is not None else None
            try:
                self.service = WatchService(
                    session, store=store, on_change=self._changed, on_error=self._failed, on_stopped=self._stopped
                )
            except DatabaseError as error:
                self.problem = (
                    f"The watch list cannot be used: {error} "
                    "Orders and payouts still open as usual; only pinning waits until giftdesk restarts."
                )
                self.app.notify(self.problem, title="Watch list", severity="error", timeout=10)
            else:
                self.service.start()
        self.redraw()

    @property
    def watch_list(self) -> WatchService:
        if self.service is None:
            if self.problem is not None:
                raise WatchListUnavailable(self.problem)
            raise NoSession("no profile is active yet")
        return self.service

    def counts(self) -> tuple[int, int]:
        """Items watched, and those needing attention: the header's counts."""
        return self.service.counts() if self.service is not None else (0, 0)

    def resync(self) -> None:
        if self.service is not None:
            self.service.resync()

    def shared_change(self, change: Change) -> None:
        if self.service is not None:
            self.service.shared_change(change)

    # --- what the list tells -----------------------------------------------------------

    def _stopped(self, error: BaseException) -> None:
        self.app.notify(
            f"The watch list stopped following its items ({type(error).__name__}: {error}). What it shows "
            "may be old: switch profile or restart giftdesk to follow them again.",
            title="Watch list",
            severity="error",
            timeout=ERROR_SECONDS,
        )

    def _changed(self, item: WatchedItem, went_final: bool) -> None:
        # Many items move at once (a first look at 500, a receiver settling 20 a second): the header and the
        # Watch screen follow a few times a second, an item that went final within a frame, so keys stay quick.
        if went_final:
            self._ended.append(item)
        self._redraw_within(ENDED_REDRAW_SECONDS if went_final else WATCH_REDRAW_SECONDS)

    def _redraw_within(self, seconds: float) -> None:
        due = time.monotonic() + seconds
        if self._redraw_due is not None:
            if self._redraw_due[0] <= due:
                return
            self._redraw_due[1].stop()
        self._redraw_due = (due, self.app.set_timer(seconds, self._redraw))

    def _redraw(self) -> None:
        self._redraw_due = None
        self.redraw()
        self._tell_ended()

    def _tell_ended(self) -> None:
        """One bell and one toast for the items that ended since the last, at most every ENDED_TOLD_SECONDS."""
        from tui.core.endings import ended_badly

        if not self._ended:
            return
        wait = self._ended_told_at + ENDED_TOLD_SECONDS - time.monotonic()
        if wait > 0:
            self._redraw_within(wait)
            return
        ended, self._ended = self._ended, []
        self._ended_told_at = time.monotonic()
        lines = [
            f"{'Order' if item.kind == 'order' else 'Payout'} {item.label} ended {item.status}."
            + (" It needs attention." if ended_badly(item.status) else "")
            for item in ended[:ENDED_TOLD_AT_MOST]
        ]
        if len(ended) > ENDED_TOLD_AT_MOST:
            lines.append(f"And {len(ended) - ENDED_TOLD_AT_MOST} more ended: the Watch screen lists them.")
        bad = any(ended_badly(item.status) for item in ended)
        self.app.bell()
        self.app.notify(
            "\n".join(lines), title="Watch list", severity="error" if bad else "information", timeout=10 if bad else 5
        )

    def _failed(self, item: WatchedItem, error: ServiceError) -> None:
        from tui.api.errors import AuthenticationError, ForbiddenError

        if isinstance(error, (AuthenticationError, ForbiddenError)):
            self.app.report_error(error)
