"""`giftdesk --demo --team`: the demo in team mode, on a throwaway local PostgreSQL cluster.

GIFTDESK_DATABASE_URL, when set, is used instead (a second demo joins the
first one's database: its URL is said when the first starts). No Textual.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from tui.local.config import DATABASE_URL_VARIABLE
from tui.team.cluster import HOW_TO_GET, ClusterError, running_cluster, server_bindir
from tui.team.database import TeamDatabase, TeamDatabaseError, migrate


@contextmanager
def demo_team_database(environ: Mapping[str, str] = os.environ) -> Iterator[TeamDatabase]:
    """A migrated team database for the demo, gone (with its cluster) when the demo ends."""
    url = environ.get(DATABASE_URL_VARIABLE, "").strip()
    if url:
        database = TeamDatabase(url)
        migrate(database)
        yield database
        return
    bindir = server_bindir()
    if bindir is None:
        raise TeamDatabaseError(
            f"giftdesk --demo --team needs the PostgreSQL server's programs (initdb, pg_ctl): {HOW_TO_GET}"
        )
    try:
        with running_cluster(bindir) as cluster:
            database = TeamDatabase(cluster.create_database())
            migrate(database)
            yield database
    except ClusterError as error:
        raise TeamDatabaseError(f"the demo's team database: {error}") from None
