"""PostgreSQL fixtures (a pytest plugin, see conftest.py): a real server for the team store's tests.

- `pg_cluster`: one throwaway cluster per test session (per xdist worker), started
  with the project's own helper (tests/pg_cluster.py), stopped and removed at the end.
- `team_url`: a fresh empty database of that cluster for one test; its URL (no password:
  the throwaway cluster trusts loopback).
- `own_cluster`: a cluster of the test's own, for tests that stop and start the server.

Without the server binaries the tests that need them are skipped, saying how to get
them; on CI (`CI` set) they fail instead: .ci/run installs the server.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tui.team.cluster import HOW_TO_GET, Cluster, running_cluster, server_bindir


def _bindir_or_skip():
    bindir = server_bindir()
    if bindir is None:
        if os.environ.get("CI"):
            pytest.fail(f"no PostgreSQL server binaries (initdb, pg_ctl) on this CI machine: {HOW_TO_GET}")
        pytest.skip(f"no PostgreSQL server binaries (initdb, pg_ctl): {HOW_TO_GET}")
    return bindir


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    with running_cluster(_bindir_or_skip()) as cluster:
        yield cluster


@pytest.fixture
def team_url(pg_cluster: Cluster) -> Iterator[str]:
    url = pg_cluster.create_database()
    yield url
    pg_cluster.drop_database(url)


@pytest.fixture
def own_cluster() -> Iterator[Cluster]:
    with running_cluster(_bindir_or_skip()) as cluster:
        yield cluster
