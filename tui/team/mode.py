"""Team mode for one process: the link to the team database, the shared stores, and hearing changes.

Opening it installs the team's audit log for every money action of the
process (`tui.local.storage.use_audit_store`); closing it puts the local one
back. The app (or a command) keeps one for as long as it runs. No Textual.
"""

from __future__ import annotations

from collections.abc import Callable

from tui.local.storage import use_audit_store
from tui.team.audit import TeamAuditLog
from tui.team.database import TeamDatabase
from tui.team.inbox import TeamInbox
from tui.team.link import TeamLink
from tui.team.live import Change, TeamListener
from tui.team.notes import TeamNotes
from tui.team.watchlist import TeamWatchList


class TeamMode:
    def __init__(self, database: TeamDatabase, *, user: str, host: str | None = None, demo: bool = False) -> None:
        """`user`: a display name only (the team knows this giftdesk by its login); `demo`: a throwaway database."""
        self.link = TeamLink(database, user=user, host=host)
        self.audit = TeamAuditLog(self.link, throwaway=demo)
        self._notes: dict[str, TeamNotes] = {}
        use_audit_store(self.audit)

    @property
    def database(self) -> TeamDatabase:
        return self.link.database

    def notes(self, environment: str) -> TeamNotes:
        """The notes of an environment's profiles (one store per environment, kept: it holds what was last read)."""
        if environment not in self._notes:
            self._notes[environment] = TeamNotes(self.link, environment)
        return self._notes[environment]

    def watch_list(self, environment: str) -> TeamWatchList:
        """A session's view of the shared list of its environment (its own lead, given up when the session closes it)."""
        return TeamWatchList(self.link, environment)

    def inbox(self, profile: str, environment: str) -> TeamInbox:
        """The receiver's inbox of a profile, in the team database."""
        return TeamInbox(self.link, profile, environment)

    def listener(self, on_change: Callable[[Change], None]) -> TeamListener:
        """Hears every change; the link's reachability follows the listener's connection."""
        return TeamListener(self.database, on_change, self.link.mark)

    def close(self) -> None:
        use_audit_store(None)
        self.link.close()
