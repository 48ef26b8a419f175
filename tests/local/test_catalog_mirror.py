"""The local catalog mirror against the real simulator over loopback: sync, interruption and
resume, incremental changes and removals, search ranking and filters, migrations, the offline CLI."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from failing_transports import FailAfter
from hypothesis import given
from hypothesis import strategies as st

from tui.api.client import RetryPolicy, ServiceClient
from tui.api.errors import ServiceError
from tui.cli import main
from tui.local.database import DatabaseError, open_database
from tui.local.mirror import (
    BACK_IN_STOCK,
    MIGRATIONS,
    NEW,
    OUT_OF_STOCK,
    PRICE_DOWN,
    PRICE_UP,
    REMOVED,
    Mirror,
    SearchFilters,
    folded,
    mirror_path,
    word_start,
    words_of,
)
from tui.local.mirror_sync import sync
from tui.local.profiles import profile_from_env


def client_for(sim, credential, **options) -> ServiceClient:
    return ServiceClient(sim.base_url, credential.client_id, credential.client_secret, **options)


def run_sync(sim, credential, mirror: Mirror, **options):
    async def go():
        async with client_for(sim, credential, **options) as client:
            return await sync(mirror, client)

    return asyncio.run(go())


def service_products(sim) -> dict[int, tuple]:
    """What the service sells now: product id -> (brand id, count)."""
    return {p.id: (str(b.id), p.count) for b in sim.state.catalog.brands for p in b.products}


def mirror_products(mirror: Mirror) -> dict[int, tuple]:
    return {row[0]: (row[1], row[2]) for row in mirror.db.execute("SELECT id, brand_id, count FROM products")}


@pytest.fixture
def own_sim(sim_factory):
    """A simulator of its own: these tests change its catalog."""
    return sim_factory(brands=400, seed=7)


@pytest.fixture
def mirror(tmp_path):
    with Mirror(tmp_path / "mirror.sqlite3") as opened:
        yield opened


# --- sync -------------------------------------------------------------------------------------


def test_first_sync_holds_the_whole_catalog(own_sim, demo_credentials, mirror):
    result = run_sync(own_sim, demo_credentials["acme-sandbox"], mirror)

    assert result.record.kind == "full"
    assert result.changes == 0  # the first sync is where the history starts
    assert mirror_products(mirror) == service_products(own_sim)
    assert mirror.counts() == (400, len(service_products(own_sim)))
    assert result.record.requests == 4  # 400 brands in pages of 100


def test_incremental_sync_with_nothing_changed_asks_for_changes_only(own_sim, demo_credentials, mirror):
    credential = demo_credentials["acme-sandbox"]
    run_sync(own_sim, credential, mirror)
    again = run_sync(own_sim, credential, mirror)

    assert again.record.kind == "incremental"
    assert again.record.requests == 2  # what changed (nothing), and the brand count
    assert again.changes == 0
    assert mirror.changes() == []


def test_incremental_sync_records_price_stock_changes_and_removals(own_sim, demo_credentials, mirror):
    credential = demo_credentials["acme-sandbox"]
    run_sync(own_sim, credential, mirror)
    before = {
        row[0]: (Decimal(row[1]), Decimal(row[2]))
        for row in mirror.db.execute("SELECT id, price_min, price_max FROM products")
    }
    changed = own_sim.change_catalog(prices=6, stock=5, removed=3)

    result = run_sync(own_sim, credential, mirror)

    assert result.record.kind == "incremental"
    assert result.record.requests < 10
    assert mirror_products(mirror) == service_products(own_sim)  # removals noticed, stock as served
    found = mirror.changes()
    kinds: dict[str, set[int]] = {}
    for change in found:
        kinds.setdefault(change.kind, set()).add(change.product_id)
    assert kinds.get(PRICE_UP, set()) | kinds.get(PRICE_DOWN, set()) == set(changed.priced)
    assert kinds.get(OUT_OF_STOCK, set()) == set(changed.out_of_stock)
    assert kinds.get(BACK_IN_STOCK, set()) == set(changed.back_in_stock)
    assert kinds[REMOVED] == set(changed.removed) and len(changed.removed) == 3
    for change in found:
        if change.kind in (PRICE_UP, PRICE_DOWN):
            assert (change.old_min, change.old_max) == before[change.product_id]
            assert (change.difference > 0) == (change.kind == PRICE_UP)
    # The next sync finds nothing new.
    assert run_sync(own_sim, credential, mirror).changes == 0


def test_a_full_sync_over_an_existing_mirror_records_new_products(own_sim, demo_credentials, mirror):
    credential = demo_credentials["acme-sandbox"]
    run_sync(own_sim, credential, mirror)
    mirror.db.execute("DELETE FROM products WHERE id = 10010")

    async def go():
        async with client_for(own_sim, credential) as client:
            return await sync(mirror, client, full=True)

    result = asyncio.run(go())
    assert result.record.kind == "full"
    assert [(c.kind, c.product_id) for c in mirror.changes()] == [(NEW, 10010)]


def test_an_interrupted_sync_leaves_the_previous_mirror_whole_and_the_next_finishes(own_sim, demo_credentials, mirror):
    credential = demo_credentials["acme-sandbox"]
    with pytest.raises(ServiceError):  # the first sync dies after two of its four pages
        run_sync(own_sim, credential, mirror, transport=FailAfter(2), retry=RetryPolicy(attempts=1))
    assert mirror.counts() == (0, 0) and mirror.last_sync() is None

    run_sync(own_sim, credential, mirror)
    held = mirror_products(mirror)
    changed = own_sim.change_catalog(prices=30, removed=2)
    with pytest.raises(ServiceError):  # dies after the changes' first page, before the brand count
        run_sync(own_sim, credential, mirror, transport=FailAfter(1), retry=RetryPolicy(attempts=1))
    assert mirror_products(mirror) == held
    assert mirror.last_sync().id == 1 and mirror.changes() == []

    result = run_sync(own_sim, credential, mirror)
    assert mirror_products(mirror) == service_products(own_sim)
    assert {c.product_id for c in mirror.changes() if c.kind == REMOVED} == set(changed.removed)
    assert result.record.id == 2


def test_a_sync_killed_mid_walk_leaves_no_half_mirror(sim_factory, demo_credentials, tmp_path):
    sim = sim_factory(brands=3000, faults="latency=100ms")
    credential = demo_credentials["acme-sandbox"]
    env = {
        **os.environ,
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": credential.client_id,
        "GIFTDESK_CLIENT_SECRET": credential.client_secret,
        "GIFTDESK_ENVIRONMENT": credential.environment,
    }
    env_profile = profile_from_env(env)
    assert env_profile is not None
    path = mirror_path(env_profile.mirror_name, credential.environment)  # keyed by the service too
    wal = path.with_name(path.name + "-wal")
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "catalog", "sync"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while process.poll() is None and not (wal.exists() and wal.stat().st_size > 100_000):
            time.sleep(0.02)  # until pages are being written
        assert process.poll() is None, "the sync ended before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    deadline = time.monotonic() + 5
    while writer_processes(path) and time.monotonic() < deadline:
        time.sleep(0.02)  # its writer learns of it from its input closing, and rolls back
    assert writer_processes(path) == []
    with Mirror(path) as mirror:
        assert mirror.counts() == (0, 0) and mirror.last_sync() is None
        result = run_sync(sim, credential, mirror)
        assert result.record.kind == "full" and mirror.counts()[0] == 3000


def test_a_sync_cancelled_while_writing_leaves_the_mirror_whole_and_usable(sim_factory, demo_credentials, mirror):
    """The TUI cancels its sync worker when the screen goes: the write in progress ends, then all is rolled back."""
    sim = sim_factory(brands=2000, faults="latency=20ms")
    credential = demo_credentials["acme-sandbox"]

    async def cancelled_after_three_pages():
        written = asyncio.Event()
        pages = [0]

        def advance(steps=1, total=None):
            pages[0] += steps
            if pages[0] >= 3:
                written.set()

        async with client_for(sim, credential) as client:
            task = asyncio.ensure_future(sync(mirror, client, advance=advance))
            await written.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(cancelled_after_three_pages())
    assert mirror.counts() == (0, 0) and mirror.last_sync() is None
    assert mirror.search("").count == 0
    result = run_sync(sim, credential, mirror)  # the same connection: no transaction left open
    assert result.record.kind == "full" and mirror.counts()[0] == 2000


def catalog_answer(items: list[dict]) -> httpx.MockTransport:
    """The service answering every catalog request with these brands, one page."""
    page = {"pageIndex": 0, "pageSize": 100, "count": len(items), "items": items}
    return httpx.MockTransport(lambda request: httpx.Response(200, json=page))


def wire_brand(**changes) -> dict:
    brand = {
        "internalId": "7",
        "name": "Exact Cards",
        "countryCode": "GB",
        "currencyCode": "GBP",
        "description": None,
        "logoUrl": "https://img.example/7.png",
        "modifiedDate": "2024-05-01T10:00:00Z",
        "categories": [{"id": 3, "name": "Gifts", "description": None}],
        "products": [
            {
                "id": 71,
                "name": "Exact 12.50",
                "minFaceValue": 12.50,
                "maxFaceValue": 12.50,
                "count": None,
                "price": {"min": 12.10, "max": 12.10, "currencyCode": "GBP"},
                "modifiedDate": "2024-05-01T10:00:00Z",
            }
        ],
    }
    brand.update(changes)
    return brand


@pytest.mark.parametrize(
    "max_face", ["150000.10", '{"value": 150000.10, "currencyCode": "GBP"}'], ids=["number", "money-object"]
)  # the provider's dialect: either (issue 25)
def test_amounts_are_kept_as_the_exact_numbers_served(mirror, max_face):
    body = (
        '{"pageIndex": 0, "pageSize": 100, "count": 1, "items": [{"internalId": "7", "name": "Exact Cards", '
        '"countryCode": "GB", "currencyCode": "GBP", "modifiedDate": "2024-05-01T10:00:00Z", "categories": [], '
        f'"products": [{{"id": 71, "name": "Exact", "minFaceValue": 12.50, "maxFaceValue": {max_face}, '
        '"count": 3, "price": {"min": 12.1000, "max": 145000, "currencyCode": "GBP"}, '
        '"modifiedDate": "2024-05-01T11:00:00+01:00"}]}]}'
    )
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=body.encode()))

    async def go():
        async with ServiceClient(
            "http://service.test", "id", "mock-transport-client-secret", transport=transport
        ) as client:
            return await sync(mirror, client)

    asyncio.run(go())
    assert mirror.db.execute("SELECT min_face, max_face, price_min, price_max, modified FROM products").fetchone() == (
        "12.50",
        "150000.10",
        "12.1000",
        "145000",
        "2024-05-01T10:00:00",
    )
    product = mirror.search("exact").brands[0]["products"][0]
    assert (product["minFaceValue"], product["price"]["min"]) == (Decimal("12.50"), Decimal("12.1000"))


@pytest.mark.parametrize(
    "broken",
    [
        {"internalId": 7},  # an id that is not text
        {"name": None},
        {"products": [{"id": 71, "name": "No price", "minFaceValue": 1, "maxFaceValue": 1}]},
        {
            "products": [
                {
                    "id": "x1",
                    "name": "Bad id",
                    "minFaceValue": 1,
                    "maxFaceValue": 1,
                    "price": {"min": 1, "max": 1, "currencyCode": "GBP"},
                }
            ]
        },
        {
            "products": [
                {
                    "id": 71,
                    "name": "Bad amount",
                    "minFaceValue": "lots",
                    "maxFaceValue": 1,
                    "price": {"min": 1, "max": 1, "currencyCode": "GBP"},
                }
            ]
        },
    ],
)
def test_a_malformed_catalog_page_fails_the_sync_and_leaves_the_mirror(mirror, broken):
    from tui.api.errors import MalformedResponseError

    async def go():
        async with ServiceClient(
            "http://service.test",
            "id",
            "mock-transport-client-secret",
            transport=catalog_answer([wire_brand(**broken)]),
            retry=RetryPolicy(attempts=1),
        ) as client:
            return await sync(mirror, client)

    with pytest.raises(MalformedResponseError, match="does not match CatalogPage"):
        asyncio.run(go())
    assert mirror.counts() == (0, 0) and mirror.last_sync() is None


def mock_sync(mirror: Mirror, transport: httpx.MockTransport, **options):
    async def go():
        async with ServiceClient(
            "http://service.test",
            "id",
            "mock-transport-client-secret",
            transport=transport,
            retry=RetryPolicy(attempts=1),
        ) as client:
            return await sync(mirror, client, **options)

    return asyncio.run(go())


def test_the_progress_counts_every_page_once_stored(own_sim, demo_credentials, mirror):
    steps: list[int] = []
    totals: list[int] = []

    def advance(steps_done=1, total=None):
        steps.append(steps_done)
        if total is not None:
            totals.append(total)

    async def go():
        async with client_for(own_sim, demo_credentials["acme-sandbox"]) as client:
            return await sync(mirror, client, advance=advance)

    asyncio.run(go())
    assert totals == [4] and sum(steps) == 4  # 400 brands in pages of 100, however they were stored together


def writer_processes(path) -> list[int]:
    """The mirror writer processes (tui/local/mirror_writer.py) working on the mirror at `path`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # not a process, or gone meanwhile
            continue
        if b"tui.local.mirror_writer" in command and str(path).encode() in command:
            found.append(int(entry.name))
    return found


def test_two_syncs_at_once_each_fill_their_own_mirror(own_sim, demo_credentials, tmp_path):
    """The TUI's `S` on two profiles: two writer processes, each with its own mirror."""

    async def two_at_once():
        async with client_for(own_sim, demo_credentials["acme-sandbox"]) as client:
            with Mirror(tmp_path / "a.sqlite3") as one, Mirror(tmp_path / "b.sqlite3") as other:
                await asyncio.gather(sync(one, client), sync(other, client))
                return one.counts(), other.counts()

    one, other = asyncio.run(two_at_once())
    assert one == other == (400, len(service_products(own_sim)))
    assert writer_processes(tmp_path / "a.sqlite3") == writer_processes(tmp_path / "b.sqlite3") == []


def test_a_failed_sync_leaves_no_writer_behind(mirror):
    with pytest.raises(ServiceError):
        mock_sync(mirror, catalog_answer([wire_brand(internalId=None)]))
    assert writer_processes(mirror.path) == []


def test_a_writer_killed_mid_sync_fails_the_sync_and_leaves_the_mirror_whole(sim_factory, demo_credentials, mirror):
    sim = sim_factory(brands=2000, faults="latency=20ms")
    credential = demo_credentials["acme-sandbox"]
    killed: list[int] = []

    def advance(steps=1, total=None):
        if steps and not killed:  # a page is stored: the writer is mid-transaction
            killed.extend(writer_processes(mirror.path))
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

    async def go():
        async with client_for(sim, credential) as client:
            return await sync(mirror, client, advance=advance)

    # Said as a DatabaseError the commands report (not a RuntimeError traceback), true to what was stored.
    with pytest.raises(
        DatabaseError, match=r"the catalog mirror's writer stopped .*before storing the sync: the mirror is as it was"
    ):
        asyncio.run(go())
    assert len(killed) == 1
    assert mirror.counts() == (0, 0) and mirror.last_sync() is None
    result = run_sync(sim, credential, mirror)
    assert result.record.kind == "full" and mirror.counts()[0] == 2000


def test_a_writer_gone_after_its_commit_is_said_to_have_stored_the_sync(sim_factory, demo_credentials, mirror):
    """Killed between its commit and its "done", the writer leaves a sync that is stored: the message
    says so (it said "the mirror is as it was" once). The moment cannot be hit from outside at will,
    so the verdict is asked of the mirror as the sync leaves it."""
    from tui.local.mirror_sync import _after_stop

    record = run_sync(sim_factory(brands=30), demo_credentials["acme-sandbox"], mirror).record
    said = _after_stop(mirror, record.started, "the catalog mirror's writer stopped (killed)")
    assert said.endswith("after storing the sync: the mirror holds it (30 brands)")
    earlier = _after_stop(mirror, "2000-01-01T00:00:00+00:00", "the catalog mirror's writer stopped (killed)")
    assert earlier.endswith("before storing the sync: the mirror is as it was; sync again")


def test_a_page_is_read_whatever_its_layout(mirror):
    """Members in any order, any JSON whitespace: the page reads as json.loads would read it."""
    page = {
        "pageIndex": 0,
        "pageSize": 100,
        "count": 2,
        "items": [wire_brand(), wire_brand(internalId="8", name="Other Cards", products=[], categories=None)],
    }
    body = json.dumps(dict(reversed(list(page.items()))), indent="\t", separators=(" ,\r\n", " : "))
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=f"\n {body} \n".encode()))
    mock_sync(mirror, transport)

    assert mirror.counts() == (2, 1)
    assert mirror.db.execute("SELECT id, brand_id, name, min_face, price_min FROM products").fetchall() == [
        (71, "7", "Exact 12.50", "12.5", "12.1")
    ]  # 12.50 as json.dumps wrote it


@pytest.mark.parametrize(
    "body",
    [
        b'{"count": 1, "items": [',  # cut short
        b'{"count": 1, "items": []} {}',  # something after the page
        b'{"count": 1, "items": [], }',
        b'{"count": 1, "items": {}}',  # items not a list
        b'{"items": []}',  # no count
        b'{"count": 1, "items": [], "items": []}',  # which items?
        b'["count", 1]',
        b"\xff",
    ],
)
def test_a_page_that_is_not_a_catalog_page_fails_the_sync_and_leaves_the_mirror(mirror, body):
    from tui.api.errors import MalformedResponseError

    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=body))
    with pytest.raises(MalformedResponseError, match=r"catalog v2: (response is not JSON|expected a catalog page)"):
        mock_sync(mirror, transport)
    assert mirror.counts() == (0, 0) and mirror.last_sync() is None


def test_a_brand_on_two_pages_is_stored_once_with_the_later_page(mirror):
    """The catalog moved while it was walked: a brand comes again on the next page (pages may be stored together)."""
    first = [wire_brand(internalId=str(n), name=f"Brand {n}", products=[]) for n in range(1001, 1100)] + [wire_brand()]
    later = wire_brand(name="Exact Cards Renamed")
    later["products"][0]["price"] = {"min": 11.00, "max": 11.00, "currencyCode": "GBP"}
    pages = {
        "0": first,
        "1": [later, *(wire_brand(internalId=str(n), name=f"Brand {n}", products=[]) for n in range(1100, 1150))],
    }

    def answer(request: httpx.Request) -> httpx.Response:
        index = request.url.params["PageIndex"]
        return httpx.Response(200, json={"pageIndex": int(index), "pageSize": 100, "count": 151, "items": pages[index]})

    mock_sync(mirror, httpx.MockTransport(answer))
    assert mirror.counts() == (150, 1)
    assert mirror.search("renamed").brands[0]["products"][0]["price"]["min"] == Decimal("11.0")
    assert mirror.search("exact").count == 1


# --- search -----------------------------------------------------------------------------------


@pytest.fixture
def synced(sim, demo_credentials, mirror) -> Mirror:
    run_sync(sim, demo_credentials["acme-sandbox"], mirror)
    return mirror


def test_search_matches_prefixes_of_names_and_ranks_names_first(synced):
    hits = synced.search("tea")
    assert hits.brands[0]["name"] == "Tea & Co"
    assert {p["id"] for p in hits.brands[0]["products"]} == {501, 502}

    books = synced.search("boo")  # a prefix: brand "Acme Books" and the "Books" category
    names = [brand["name"] for brand in books.brands]
    by_name = [n for n in names if "Books" in n]
    assert names[: len(by_name)] == by_name  # brand-name matches before category-only matches
    assert len(names) > len(by_name)


def test_search_all_words_must_match_and_typed_syntax_is_literal(synced):
    assert [b["name"] for b in synced.search("acme egift").brands] == ["Acme Books"]
    assert [p["id"] for p in synced.search("acme egift").brands[0]["products"]] == [102]
    assert synced.search('acme" OR "tea').count == synced.search("acme tea").count == 0
    assert synced.search("bäckerei").brands[0]["name"] == "Bäckerei Blau"
    assert synced.search("backerei").brands[0]["name"] == "Bäckerei Blau"  # accents optional


WORDY = st.text(st.sampled_from("abcäé ÄBß-1_$'\u0301"), max_size=30)


@given(WORDY, WORDY)
def test_a_word_is_found_where_some_word_of_the_text_starts_with_it(text, typed):
    """Which products a search shows: a typed word is the start of some word of the name, as FTS5 folds them."""
    for word in words_of(typed):
        assert bool(word_start(word)(folded(text))) == any(token.startswith(word) for token in words_of(text))


def test_search_filters_are_the_v2_filters(synced, sim):
    gb = synced.search("", SearchFilters(country="gb"), limit=1000)
    assert gb.count == sum(1 for b in sim.state.catalog.brands if b.country == "GB")
    assert {b["countryCode"] for b in gb.brands} == {"GB"}
    eur = synced.search("gift", SearchFilters(currency="EUR"), limit=1000)
    assert eur.count and {b["currencyCode"] for b in eur.brands} == {"EUR"}
    assert [b["name"] for b in synced.search("", SearchFilters(product_id=402)).brands] == ["Scarce Sneakers"]
    assert synced.search("", SearchFilters(brand_id="5")).brands[0]["name"] == "Tea & Co"
    assert {b["name"] for b in synced.search("", SearchFilters(name="sneak")).brands} == {"Scarce Sneakers"}
    recent = synced.search("", SearchFilters(modified_since="2024-06-01T12:06:00"), limit=1000)
    assert all(p["modifiedDate"] > "2024-06-01T12:06:00" for b in recent.brands for p in b["products"])


def test_search_pages_through_brands(synced):
    first, second = synced.search("", limit=20), synced.search("", offset=20, limit=20)
    assert first.count == second.count == 300
    assert not {b["internalId"] for b in first.brands} & {b["internalId"] for b in second.brands}


# --- migrations --------------------------------------------------------------------------------


def test_a_mirror_of_schema_1_is_migrated_with_its_data(tmp_path):
    path = tmp_path / "old.sqlite3"
    old = open_database(path, MIGRATIONS[:1])
    old.execute(
        "INSERT INTO brands (id, name, country, currency, description) VALUES ('9', 'Amazonia', 'BR', "
        "'BRL', 'Rainforest cards')"
    )
    old.execute(
        "INSERT INTO products VALUES (90, '9', 'Amazonia eGift', 5, 50, NULL, 5, 50, 'BRL', '2024-01-01T00:00:00')"
    )
    old.execute("INSERT INTO syncs VALUES (1, '2024-01-01T00:00:00', '2024-01-01T00:01:00', 'full', 1, 1, 1)")
    old.close()

    with Mirror(path) as mirror:
        assert mirror.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert [b["name"] for b in mirror.search("amaz").brands] == ["Amazonia"]
        assert mirror.search("rainforest").count == 1  # descriptions indexed too
        assert mirror.changes() == []


def test_a_mirror_from_a_newer_giftdesk_is_refused(tmp_path):
    from tui.local.database import DatabaseError

    path = tmp_path / "new.sqlite3"
    Mirror(path).close()
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    connection.close()
    with pytest.raises(DatabaseError, match="newer giftdesk"):
        Mirror(path)


# --- the command line, offline -------------------------------------------------------------


@pytest.fixture
def giftdesk():
    runner = CliRunner()
    return lambda *args: runner.invoke(main, list(args), catch_exceptions=False)


def point_at(monkeypatch, sim, credential) -> None:
    monkeypatch.setenv("GIFTDESK_BASE_URL", sim.base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", credential.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", credential.client_secret)
    monkeypatch.setenv("GIFTDESK_ENVIRONMENT", credential.environment)


def test_the_cli_syncs_then_searches_and_lists_changes_with_the_service_stopped(
    giftdesk, sim_factory, demo_credentials, monkeypatch
):
    import json

    sim = sim_factory(brands=300)
    point_at(monkeypatch, sim, demo_credentials["acme-sandbox"])
    first = giftdesk("catalog", "sync")
    assert first.exit_code == 0, first.stderr
    assert first.stdout.startswith("full sync: 300 brands")
    changed = sim.change_catalog(prices=4, removed=1)
    second = giftdesk("catalog", "sync", "--json")
    assert json.loads(second.stdout)["kind"] == "incremental"
    sim.stop()

    assert giftdesk("catalog", "--country", "GB").exit_code == 5  # the live listing needs the service
    found = giftdesk("catalog", "search", "tea", "--country", "GB")
    assert found.exit_code == 0, found.stderr
    assert "Tea & Co" in found.stdout and "502" in found.stdout
    as_json = json.loads(giftdesk("catalog", "search", "tea", "--json").stdout)
    assert as_json[0]["brand"]["name"] == "Tea & Co" and {"id", "price", "count"} <= set(as_json[0]["product"])
    listed = giftdesk("catalog", "changes")
    assert listed.exit_code == 0
    for product_id in (*changed.priced, *changed.removed):
        assert str(product_id) in listed.stdout
    since = json.loads(giftdesk("catalog", "changes", "--since", "today", "--json").stdout)
    assert {c["product_id"] for c in since} == {*changed.priced, *changed.removed}
    assert giftdesk("catalog", "changes", "--since", "2999-01-01").stdout.count("\n") == 2  # headers only


def test_searching_without_a_mirror_says_to_sync(giftdesk, sim, demo_credentials, monkeypatch):
    point_at(monkeypatch, sim, demo_credentials["acme-sandbox"])
    result = giftdesk("catalog", "search", "tea")
    assert result.exit_code == 2
    assert "giftdesk catalog sync" in result.stderr


def test_listing_options_and_a_subcommand_do_not_mix(giftdesk):
    assert giftdesk("catalog", "--country", "GB", "sync").exit_code == 2


@pytest.mark.parametrize("name", ["sync", "search", "changes"])
def test_each_mirror_command_has_examples(giftdesk, name):
    result = giftdesk("catalog", name, "--help")
    assert result.exit_code == 0
    examples = result.stdout.split("Examples:")[1]
    assert f"giftdesk catalog {name}" in examples
