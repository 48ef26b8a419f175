"""A sync never hangs when its writer process fails while the sync waits (issue 24 item 4)."""

from __future__ import annotations

import asyncio
import faulthandler
import sqlite3

import httpx
import pytest
from test_catalog_mirror import mock_sync, wire_brand, writer_processes

from tui.api.client import RetryPolicy, ServiceClient
from tui.api.errors import MalformedResponseError
from tui.local.database import DatabaseError
from tui.local.mirror import Mirror, SyncResult
from tui.local.mirror_sync import sync


@pytest.fixture
def mirror(tmp_path):
    with Mirror(tmp_path / "mirror.sqlite3") as opened:
        yield opened


@pytest.fixture(autouse=True)
def hang_guard():
    """A hang ends the test run with the stacks, rather than waiting for CI's limit."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def test_a_malformed_page_after_a_good_one_fails_the_sync(mirror):
    good = [wire_brand(internalId=str(n), name=f"Brand {n}", products=[]) for n in range(1000, 1100)]

    def answer(request: httpx.Request) -> httpx.Response:
        index = int(request.url.params["PageIndex"])
        items = good if index == 0 else [wire_brand(internalId=7)]  # an id that is not text
        return httpx.Response(200, json={"pageIndex": index, "pageSize": 100, "count": 250, "items": items})

    with pytest.raises(MalformedResponseError, match="does not match CatalogPage"):
        mock_sync(mirror, httpx.MockTransport(answer))
    assert mirror.counts() == (0, 0) and mirror.last_sync() is None
    assert writer_processes(mirror.path) == []


def _small_catalog(request: httpx.Request) -> httpx.Response:
    index = int(request.url.params.get("PageIndex", 0))
    items = [
        wire_brand(internalId=str(n), name=f"Brand {n}", products=[]) for n in range(100 * index, 100 * index + 100)
    ]
    return httpx.Response(200, json={"pageIndex": index, "pageSize": 100, "count": 200, "items": items})


def test_a_mirror_locked_by_another_sync_fails_the_sync_and_says_so(mirror):
    holder = sqlite3.connect(mirror.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another sync's writer, holding the write lock throughout
    try:
        with pytest.raises(
            DatabaseError, match=r"being written by another sync \(database is locked\); this sync stored nothing"
        ):
            mock_sync(mirror, httpx.MockTransport(_small_catalog))
    finally:
        holder.rollback()
        holder.close()
    assert mirror.last_sync() is None and writer_processes(mirror.path) == []


def test_three_syncs_at_once_on_one_mirror_each_end(tmp_path):
    path = tmp_path / "mirror.sqlite3"

    async def three_at_once():
        transport = httpx.MockTransport(_small_catalog)
        async with ServiceClient(
            "http://service.test",
            "id",
            "mock-transport-client-secret",
            transport=transport,
            retry=RetryPolicy(attempts=1),
        ) as client:
            with Mirror(path) as one, Mirror(path) as two, Mirror(path) as three:
                return await asyncio.gather(*(sync(m, client) for m in (one, two, three)), return_exceptions=True)

    outcomes = asyncio.run(three_at_once())
    for outcome in outcomes:  # each either synced, or was told the mirror was locked
        assert isinstance(outcome, SyncResult) or (
            isinstance(outcome, DatabaseError) and "being written by another sync" in str(outcome)
        ), outcome
    assert any(isinstance(outcome, SyncResult) for outcome in outcomes)
    with Mirror(path) as mirror:
        assert mirror.counts()[0] == 200
    assert writer_processes(path) == []
