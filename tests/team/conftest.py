"""The team store's fixtures: a migrated team database and a link to it, and each store on both backends.

`store_backend` is "sqlite" (this machine's files) or "postgresql" (the team database
of tests/pg_fixtures.py); tests taking `watch_store`, `note_store`, `audit_store` or
`inbox_factory` run once on each, so both keep the same interface and the same rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from team_support import open_link

from tui.local.inbox import SqliteInbox
from tui.local.notes import SqliteNotes
from tui.local.storage import AuditLog
from tui.local.watchlist import WatchList
from tui.team.audit import TeamAuditLog
from tui.team.database import TeamDatabase, migrate
from tui.team.inbox import TeamInbox
from tui.team.link import TeamLink
from tui.team.notes import TeamNotes
from tui.team.watchlist import TeamWatchList


@pytest.fixture
def team_database(team_url: str) -> TeamDatabase:
    database = TeamDatabase(team_url)
    migrate(database)
    return database


@pytest.fixture
def link(team_database: TeamDatabase) -> Iterator[TeamLink]:
    team = open_link(team_database)
    yield team
    team.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_backend(request) -> str:
    return request.param


@pytest.fixture
def backend_link(store_backend: str, request) -> TeamLink | None:
    return request.getfixturevalue("link") if store_backend == "postgresql" else None


@pytest.fixture
def watch_store(backend_link: TeamLink | None, tmp_path) -> Iterator[WatchList | TeamWatchList]:
    store = TeamWatchList(backend_link, "sandbox") if backend_link else WatchList(tmp_path / "watch.sqlite3")
    yield store
    store.close()


@pytest.fixture
def note_store(backend_link: TeamLink | None, tmp_path) -> Iterator[SqliteNotes | TeamNotes]:
    store = TeamNotes(backend_link, "sandbox") if backend_link else SqliteNotes("ana", tmp_path / "notes.sqlite3")
    yield store
    store.close()


@pytest.fixture
def audit_store(backend_link: TeamLink | None, tmp_path) -> AuditLog | TeamAuditLog:
    return TeamAuditLog(backend_link) if backend_link else AuditLog(tmp_path / "audit.jsonl")


@pytest.fixture
def inbox_factory(backend_link: TeamLink | None, tmp_path) -> Iterator[Callable[[str], SqliteInbox | TeamInbox]]:
    opened: list[SqliteInbox | TeamInbox] = []

    def open_inbox(profile: str) -> SqliteInbox | TeamInbox:
        inbox = (
            TeamInbox(backend_link, profile, "sandbox")
            if backend_link
            else SqliteInbox(profile, tmp_path / f"{profile}.sqlite3")
        )
        opened.append(inbox)
        return inbox

    yield open_inbox
    for inbox in opened:
        inbox.close()
