"""Issue 16: the demo's first catalog page, as its last start drew it, in the next start's first frame.

The demo's service starts from the same seed every run, so the page its last
start showed is what the next one will show: the Catalog screen draws it at once
and asks for the live page meanwhile. Outside the demo nothing is kept.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from apps import app_on, notifications, settle, until

from tui.app import AppSettings, build_app
from tui.core.safe_text import visible
from tui.local.config import demo_profile
from tui.local.demo_data import FIRST_PAGE_FILE, FIRST_PAGE_VARIABLE
from tui.simulator import SimulatorSettings, demo_credential
from widgets.row_table import RowTable


@pytest.fixture
def kept_file(tmp_path, monkeypatch) -> Path:
    """Demo mode's variable (tui.local.demo_data.enter_demo_data_dir), pointing into the test's folder."""
    path = tmp_path / "data" / FIRST_PAGE_FILE
    monkeypatch.setenv(FIRST_PAGE_VARIABLE, str(path))
    return path


def brand_lines(screen) -> list[str]:
    table = screen.query_one("#brands", RowTable)
    return [" | ".join(cell.plain for cell in table.get_row_at(row)) for row in range(table.row_count)]


def status(screen) -> str:
    return str(screen.query_one("#pager-status").render())


async def test_a_demo_start_keeps_its_first_page_and_the_next_start_draws_it_before_the_service_answers(
        sim_factory, kept_file):
    async with app_on(sim_factory()).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        live = brand_lines(pilot.app.screen)
        await until(pilot, kept_file.exists)
    assert stat.S_IMODE(kept_file.stat().st_mode) == 0o600
    # The same catalog, every answer held back 3 s: what the first frame shows comes from the kept page.
    slow = sim_factory(SimulatorSettings(faults="latency=3s"))
    async with app_on(slow).run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.kept is not None and brand_lines(screen) == live
        assert status(screen) == "loading page 1… · rows from the last start"  # no page count until it answers
        assert str(screen.query_one("#detail-title").render()).startswith("Acme Books  id 1")
        assert screen.query_one("#products").row_count == 2  # the first brand's products, drawn as they were
        await settle(pilot)
        assert screen.kept is None and status(screen) == "page 1 of 6 · 300 brands"
        assert brand_lines(screen) == live


async def test_a_first_page_that_did_not_change_is_not_written_again(sim_factory, kept_file):
    sim = sim_factory()
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await until(pilot, kept_file.exists)
    written = kept_file.stat().st_mtime_ns
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await pilot.pause(0.2)
        await pilot.app.workers.wait_for_complete()
        assert pilot.app.screen.kept_json is not None
    assert kept_file.stat().st_mtime_ns == written


async def test_the_kept_page_is_outside_text_and_is_shown_literally(sim, kept_file):
    hostile = "[bold red]x[/] [@click=app.quit]q[/] \x1b]52;c;aGk=\x07 \u202eevil"
    cell = [hostile, [[0, 3, "bold"]]]
    kept_file.parent.mkdir(parents=True)
    kept_file.write_text(json.dumps({"version": 1, "page": [0, 50, 1], "brands": [{
        "row": [cell] * 6, "title": cell, "products": [[cell] * 6], "sections": {"description": hostile}}]}))
    # A wrong secret: the live page never comes, so the kept one stays, and says what it is.
    credential = demo_credential("acme-sandbox")
    profiles = {"demo-sandbox": demo_profile("demo-sandbox", "sandbox", sim.base_url, credential.client_id,
                                             "not-the-demo-secret")}
    async with build_app(AppSettings(profiles=profiles, profile_name="demo-sandbox")).run_test() as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert pilot.app.is_running  # the escapes were not obeyed
        assert brand_lines(screen) == [" | ".join([visible(hostile)] * 6)]
        assert str(screen.query_one("#detail-sections").render()) == "Description\n" + visible(hostile, multiline=True)
        assert status(screen).endswith("rows from the last demo start")


@pytest.mark.parametrize("content", [
    b"{not json",
    json.dumps({"version": 99, "page": [0, 50, 1], "brands": []}).encode(),  # another version's shape
    json.dumps({"version": 1, "page": [0, 10, 1], "brands": []}).encode(),  # another page size
    json.dumps({"version": 1, "page": [0, 50, 1], "brands": [{"row": "x"}]}).encode(),
    json.dumps([1, 2, 3]).encode(),
])
async def test_a_kept_page_that_cannot_be_used_is_passed_over_and_replaced(sim_factory, kept_file, content):
    kept_file.parent.mkdir(parents=True)
    kept_file.write_bytes(content)
    async with app_on(sim_factory()).run_test() as pilot:
        await pilot.pause()
        assert pilot.app.screen.kept is None
        await settle(pilot)
        assert pilot.app.screen.query_one("#brands", RowTable).row_count == 50
        await until(pilot, lambda: kept_file.read_bytes() != content)
    assert json.loads(kept_file.read_bytes())["version"] == 1


async def test_outside_the_demo_nothing_is_kept(sim, tmp_path):
    assert FIRST_PAGE_VARIABLE not in os.environ  # tests/conftest.py: no test starts in demo mode
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await pilot.pause(0.2)
    assert not list(tmp_path.rglob(FIRST_PAGE_FILE))


async def test_keys_that_need_a_brand_say_the_catalog_is_still_loading_while_the_kept_page_shows(sim_factory, kept_file):
    sim = sim_factory()
    async with app_on(sim).run_test() as pilot:
        await settle(pilot)
        await until(pilot, kept_file.exists)
    async with app_on(sim_factory(SimulatorSettings(faults="latency=3s"))).run_test() as pilot:
        await pilot.pause()
        assert pilot.app.screen.kept is not None
        await pilot.press("c", "o")
        await pilot.pause()
        assert notifications(pilot.app) == ["The catalog is still loading: a moment."] * 2
        assert pilot.app.clipboard == ""


async def test_a_kept_brand_whose_detail_cannot_be_read_shows_its_row_and_says_so(sim_factory, kept_file):
    cell = ["Kept brand", []]
    kept_file.parent.mkdir(parents=True)
    kept_file.write_text(json.dumps({"version": 1, "page": [0, 50, 1], "brands": [{"row": [cell] * 6, "products": 7}]}))
    async with app_on(sim_factory(SimulatorSettings(faults="latency=3s"))).run_test() as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert brand_lines(screen) == [" | ".join(["Kept brand"] * 6)]
        assert str(screen.query_one("#detail-title").render()) == "(this brand's detail was not kept)"
        assert not screen.query_one("#products").display
