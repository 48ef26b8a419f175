"""The catalog's first page as the last start drew it, in the next start's first frame (issues 16, 26).

Every profile keeps its own (per profile and environment, in the cache dir);
the next start draws it at once, labelled with its age, and the live page
replaces it. The demo's is kept in a folder of its own, so no real profile of
the same name shows it.
"""

from __future__ import annotations

import dataclasses
import json
import stat
import time
from pathlib import Path

import pytest
from apps import app_on, notifications, settle, until

from tui.app import AppSettings, build_app
from tui.core.safe_text import visible
from tui.local.config import SecretSource
from tui.local.first_pages import MAX_FILE_BYTES, first_page_path
from tui.local.profiles import demo_profile, make_profile
from tui.screens.catalog_kept import KEPT_PAGE_VERSION
from tui.simulator import SimulatorSettings, demo_credential
from widgets.row_table import RowTable

SLOW = SimulatorSettings(faults="latency=3s")  # every answer held back: what a start shows first is the kept page


@pytest.fixture
def kept_file() -> Path:
    """The kept page of the profile the tests open (apps.app_on's "demo-sandbox", a demo profile)."""
    return first_page_path("demo-sandbox", "sandbox", demo=True)


def brand_lines(screen) -> list[str]:
    table = screen.query_one("#brands", RowTable)
    return [" | ".join(cell.plain for cell in table.get_row_at(row)) for row in range(table.row_count)]


def status(screen) -> str:
    return str(screen.query_one("#pager-status").render())


def write_kept(path: Path, brands: list[dict], *, kept_at: float | None = None, size: int = 50) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "version": KEPT_PAGE_VERSION,
                "kept_at": time.time() if kept_at is None else kept_at,
                "page": [0, size, 1],
                "brands": brands,
            }
        )
    )


async def test_a_start_keeps_its_first_page_and_the_next_start_draws_it_before_the_service_answers(
    sim_factory, kept_file
):
    async with app_on(sim_factory()).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        live = brand_lines(pilot.app.screen)
        await until(pilot, kept_file.exists)
    assert stat.S_IMODE(kept_file.stat().st_mode) == 0o600
    async with app_on(sim_factory(SLOW)).run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.kept is not None and brand_lines(screen) == live
        # No page count until the service answers, and the rows' age.
        assert status(screen) == "loading page 1… · rows from the last start, just now"
        assert str(screen.query_one("#detail-title").render()).startswith("Acme Books  id 1")
        assert screen.query_one("#products").row_count == 2  # the first brand's products, drawn as they were
        await settle(pilot)
        assert screen.kept is None and status(screen) == "page 1 of 6 · 300 brands"
        assert brand_lines(screen) == live


async def test_the_kept_page_says_how_old_it_is(sim_factory, kept_file):
    write_kept(kept_file, [{"row": [["Old brand", []]] * 6}], kept_at=time.time() - 3 * 3600)
    async with app_on(sim_factory(SLOW)).run_test() as pilot:
        await pilot.pause()
        assert status(pilot.app.screen) == "loading page 1… · rows from the last start, 3 h ago"


async def test_a_first_page_that_did_not_change_is_not_written_again(sim_factory, kept_file):
    sim = sim_factory()
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await until(pilot, kept_file.exists)
    written = kept_file.read_bytes()
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await pilot.pause(0.2)
        await pilot.app.workers.wait_for_complete()
        assert pilot.app.screen.kept is None and pilot.app.screen.first_page.json is not None
    assert kept_file.read_bytes() == written


async def test_an_unchanged_page_kept_long_ago_is_kept_again_with_the_time_it_was_seen(sim_factory, kept_file):
    # Its label says when its rows were last seen: "rows from the last start, 3 h ago" after a start a minute ago
    # that saw the same rows would mislead.
    sim = sim_factory()
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await until(pilot, kept_file.exists)
    old = json.loads(kept_file.read_bytes())
    kept_file.write_text(json.dumps({**old, "kept_at": time.time() - 3 * 3600}))
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await until(pilot, lambda: json.loads(kept_file.read_bytes())["kept_at"] > time.time() - 60)
    assert {**json.loads(kept_file.read_bytes()), "kept_at": 0} == {**old, "kept_at": 0}


async def test_a_page_other_than_the_first_or_filtered_is_not_kept(sim, kept_file):
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await until(pilot, kept_file.exists)
        first = kept_file.read_bytes()
        await pilot.press("n")
        await settle(pilot)
        assert pilot.app.screen.page.index == 1
        await pilot.pause(0.2)
        await pilot.app.workers.wait_for_complete()
    assert kept_file.read_bytes() == first


async def test_the_kept_page_is_outside_text_and_is_shown_literally(sim, kept_file):
    hostile = "[bold red]x[/] [@click=app.quit]q[/] \x1b]52;c;aGk=\x07 \u202eevil"
    cell = [hostile, [[0, 3, "bold"]]]
    write_kept(
        kept_file, [{"row": [cell] * 6, "title": cell, "products": [[cell] * 6], "sections": {"description": hostile}}]
    )
    # A wrong secret: the live page never comes, so the kept one stays, and says what it is.
    credential = demo_credential("acme-sandbox")
    profiles = {
        "demo-sandbox": demo_profile(
            "demo-sandbox", "sandbox", sim.base_url, credential.client_id, "not-the-demo-secret"
        )
    }
    async with build_app(AppSettings(profiles=profiles, profile_name="demo-sandbox")).run_test() as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert pilot.app.is_running  # the escapes were not obeyed
        assert brand_lines(screen) == [" | ".join([visible(hostile)] * 6)]
        assert str(screen.query_one("#detail-sections").render()) == "Description\n" + visible(hostile, multiline=True)
        assert status(screen).endswith("rows from the last start, just now")


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        json.dumps({"version": 99, "kept_at": 0, "page": [0, 50, 1], "brands": []}).encode(),  # another version's shape
        json.dumps(
            {"version": 1, "page": [0, 50, 1], "brands": []}
        ).encode(),  # the first version's: no time of keeping
        json.dumps(
            {"version": KEPT_PAGE_VERSION, "kept_at": 0, "page": [0, 10, 1], "brands": []}
        ).encode(),  # page size
        json.dumps({"version": KEPT_PAGE_VERSION, "kept_at": 0, "page": [0, 50, 1], "brands": [{"row": "x"}]}).encode(),
        json.dumps({"version": KEPT_PAGE_VERSION, "kept_at": "soon", "page": [0, 50, 1], "brands": []}).encode(),
        json.dumps([1, 2, 3]).encode(),
        json.dumps(
            {
                "version": KEPT_PAGE_VERSION,
                "kept_at": 0,
                "page": [0, 50, 1],  # more rows than a page
                "brands": [{"row": [["x", []]] * 6}] * 51,
            }
        ).encode(),
        b"[" * 100_000 + b"]" * 100_000,  # nested past the parser's depth
        b" " * (MAX_FILE_BYTES + 1) + b"{}",  # too large to be a page: not read
    ],
)
async def test_a_kept_page_that_cannot_be_used_is_passed_over_and_replaced(sim_factory, kept_file, content):
    kept_file.parent.mkdir(parents=True)
    kept_file.write_bytes(content)
    async with app_on(sim_factory()).run_test() as pilot:
        await pilot.pause()
        assert pilot.app.screen.kept is None
        await settle(pilot)
        assert pilot.app.screen.query_one("#brands", RowTable).row_count == 50
        await until(pilot, lambda: kept_file.read_bytes() != content)
    assert json.loads(kept_file.read_bytes())["version"] == KEPT_PAGE_VERSION


async def test_each_profile_and_environment_keeps_its_own_and_the_demo_its_own(sim, kept_file):
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await until(pilot, kept_file.exists)
    for other in (
        first_page_path("demo-sandbox", "production", demo=True),
        first_page_path("demo-sandbox", "sandbox", demo=False),  # a real profile of the demo's name
        first_page_path("demo-production", "production", demo=True),
    ):
        assert not other.exists()
    async with app_on(sim, "demo-production").run_test() as pilot:
        await pilot.pause()
        assert pilot.app.screen.kept is None  # the sandbox profile's page is not the production one's
        await settle(pilot)
        await until(pilot, first_page_path("demo-production", "production", demo=True).exists)


async def test_keys_that_need_a_brand_say_the_catalog_is_still_loading_while_the_kept_page_shows(
    sim_factory, kept_file
):
    sim = sim_factory()
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await until(pilot, kept_file.exists)
    async with app_on(sim_factory(SLOW)).run_test() as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.kept is not None
        await pilot.press("c", "o", "k")  # `k` filtered the live brands, none yet: the kept rows went
        await pilot.pause()
        assert notifications(pilot.app) == ["The catalog is still loading: a moment."] * 3
        assert pilot.app.clipboard == ""
        assert screen.query_one("#brands").row_count == len(screen.kept.brands) > 0


async def test_a_kept_brand_whose_detail_cannot_be_read_shows_its_row_and_says_so(sim_factory, kept_file):
    write_kept(kept_file, [{"row": [["Kept brand", []]] * 6, "products": 7}])
    async with app_on(sim_factory(SLOW)).run_test() as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert brand_lines(screen) == [" | ".join(["Kept brand"] * 6)]
        assert str(screen.query_one("#detail-title").render()) == "(this brand's detail was not kept)"
        assert not screen.query_one("#products").display


async def test_a_real_profile_keeps_its_page_apart_from_the_demos_and_draws_it_next_start(sim_factory, monkeypatch):
    credential = demo_credential("acme-sandbox")
    monkeypatch.setenv("ACME_SECRET", credential.client_secret)
    profile = make_profile(
        name="demo-sandbox",
        environment="sandbox",
        base_url=sim_factory().base_url,
        client_id=credential.client_id,
        secret=SecretSource(kind="env", ref="ACME_SECRET"),
    )
    assert not profile.is_demo
    real, demo = (
        first_page_path("demo-sandbox", "sandbox", demo=False),
        first_page_path("demo-sandbox", "sandbox", demo=True),
    )
    async with build_app(
        AppSettings(profiles={"demo-sandbox": profile}, profile_name="demo-sandbox")
    ).run_test() as pilot:
        await settle(pilot)
        await until(pilot, real.exists)
    assert not demo.exists()
    slow = dataclasses.replace(profile, base_url=sim_factory(SLOW).base_url)
    async with build_app(AppSettings(profiles={"demo-sandbox": slow}, profile_name="demo-sandbox")).run_test() as pilot:
        await pilot.pause()
        assert pilot.app.screen.kept is not None
        assert status(pilot.app.screen) == "loading page 1… · rows from the last start, just now"
