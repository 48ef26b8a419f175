"""Helpers of the team store's tests (tests/team): links to a team database as different engineers."""

from __future__ import annotations

from tui.team.database import TeamDatabase
from tui.team.link import TeamLink


def open_link(database: TeamDatabase, user: str = "ana", host: str = "desk-1") -> TeamLink:
    return TeamLink(database, user=user, host=host)
