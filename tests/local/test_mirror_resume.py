"""The mirror's first sync resumes where it stopped (issue 27): the pages an interrupted full walk
fetched are not asked again, and the previous mirror stays whole until the new one is complete."""

from __future__ import annotations

import asyncio

import pytest
from failing_transports import FailAfter

from tui.api.client import RetryPolicy, ServiceClient
from tui.api.errors import ServiceError
from tui.api.limiter import Limiter, MemoryLimitStore
from tui.local.mirror import Mirror, mirror_path
from tui.local.mirror_resume import PageStash
from tui.local.mirror_sync import PAGE_SIZE, sync
from tui.simulator.rate_limits import PROVIDER_LIMITS

BRANDS = 700  # 7 pages of 100
LIMITER = Limiter(store=MemoryLimitStore())


def run_sync(sim, credential, mirror, **options):
    """A sync by a client of the profile: the limiter's bookings shared, as the profile's processes share them."""

    async def go():
        async with ServiceClient(
            sim.base_url, credential.client_id, credential.client_secret, limiter=LIMITER, **options
        ) as client:
            return await sync(mirror, client)

    return asyncio.run(go())


def pages_asked(sim) -> list[str]:
    return [logged.query for logged in sim.requests("catalog_v2") if logged.status == 200]


@pytest.mark.usefixtures("provider_limits")  # the catalog's 1 page a second, on both sides
def test_an_interrupted_first_sync_resumes_where_it_stopped(sim_factory, demo_credentials):
    sim = sim_factory(brands=BRANDS, limits=PROVIDER_LIMITS)
    global LIMITER
    LIMITER = Limiter(store=MemoryLimitStore())  # DESIGN's table (provider_limits), this test's bookings
    credential = demo_credentials["acme-sandbox"]
    with Mirror(mirror_path("p", "sandbox")) as mirror:
        with pytest.raises(ServiceError):  # the network goes after three pages
            run_sync(sim, credential, mirror, transport=FailAfter(3), retry=RetryPolicy(attempts=1))
        assert mirror.counts() == (0, 0) and mirror.last_sync() is None  # nothing half-stored
        first = pages_asked(sim)
        assert len(first) == 3

        result = run_sync(sim, credential, mirror)
        resumed = pages_asked(sim)[3:]
        assert len(resumed) == BRANDS // PAGE_SIZE - 3  # only the pages the first attempt did not get
        assert not set(resumed) & set(first)
        assert mirror.counts()[0] == BRANDS and result.record.kind == "full"
        assert [logged.status for logged in sim.requests("catalog_v2")] == [200] * len(first + resumed)  # no 429

        PageStash(mirror.path, PAGE_SIZE).page(0) is None or pytest.fail("the kept pages outlived the sync")
        run_sync(sim, credential, mirror)  # the next sync is incremental, not a resumed walk
        assert mirror.last_sync().kind == "incremental"


def test_kept_pages_of_another_page_size_or_too_old_are_not_resumed(tmp_path):
    now = [1_000_000.0]
    stash = PageStash(tmp_path / "m.sqlite3", 100, clock=lambda: now[0])
    assert stash.begin("2026-01-01T00:00:00") == "2026-01-01T00:00:00"
    stash.keep(0, b"page 0")
    stash.close()
    again = PageStash(tmp_path / "m.sqlite3", 100, clock=lambda: now[0] + 60)
    assert again.page(0) == b"page 0" and again.begin("later") == "2026-01-01T00:00:00"
    again.close()
    assert PageStash(tmp_path / "m.sqlite3", 50, clock=lambda: now[0]).page(0) is None
    stale = PageStash(tmp_path / "m.sqlite3", 100, clock=lambda: now[0] + 2 * 3600)
    assert stale.page(0) is None and stale.resumed_from is None
