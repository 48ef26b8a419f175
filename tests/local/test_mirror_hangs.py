"""A sync never hangs when its writer process fails while the sync waits (issue 24 item 4)."""

from __future__ import annotations

import faulthandler

import httpx
import pytest
from test_catalog_mirror import mock_sync, wire_brand, writer_processes

from tui.api.errors import MalformedResponseError
from tui.local.mirror import Mirror


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
