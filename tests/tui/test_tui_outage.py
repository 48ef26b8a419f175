"""The service goes away under a running TUI and comes back (issue 35, break 2; DESIGN rule 12): a failed
refresh keeps the last good data on screen, said stale on the status line with its age (as of the last
success) and the error, never blank and never "just now"; when the service is back, `r` makes it fresh.
The simulator is really stopped (its port refuses connections) and started again on the same port."""

from __future__ import annotations

import time

import pytest
from apps import Outage, app_on, notifications, settle, until
from test_tui_ledger import open_ledger, place, shown
from test_tui_orders import open_recent_board, summary

import tui.screens.freshness
import widgets.status_line
from tui.screens.freshness import text_for
from tui.simulator import SimulatorSettings

WIDE = (160, 48)
LATER = 600.0  # seconds: the refresh fails ten minutes after the last good data came


@pytest.fixture(autouse=True)
def freshness_said(monkeypatch) -> None:
    monkeypatch.setattr(tui.screens.freshness, "text_for", text_for)  # the line itself, not the snapshots' fixed one
    monkeypatch.setattr(widgets.status_line, "clock", time.time)  # and its ages, as they are


@pytest.fixture
def outage():
    service = Outage(SimulatorSettings(seed=11, history=120, limits=None))
    yield service
    service.stop()


def ten_minutes_on(monkeypatch) -> None:
    later = time.time() + LATER
    monkeypatch.setattr(widgets.status_line, "clock", lambda: later)
    monkeypatch.setattr(tui.screens.freshness, "clock", lambda: later)


def status_line(screen) -> str:
    return str(screen.status_line.render())


async def test_a_failed_reload_keeps_the_orders_board_said_stale_with_its_age(outage, monkeypatch):
    app = app_on(outage.server)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        rows = screen.table.row_count
        assert rows and not screen.status_line.display

        outage.down()
        ten_minutes_on(monkeypatch)
        await pilot.press("r")
        await until(pilot, lambda: screen.status_line.stale and not screen.table.loading)
        await settle(pilot)
        assert screen.table.row_count == rows  # the last good data stays
        line = status_line(screen)
        assert screen.status_line.display and "Stale: last good data as of" in line and "(10 min ago)" in line
        assert "connection failed" in line
        assert "just now" not in summary(screen) and "(10 min ago)" in summary(screen)

        monkeypatch.setattr(widgets.status_line, "clock", time.time)
        monkeypatch.setattr(tui.screens.freshness, "clock", time.time)
        outage.up()
        await pilot.press("r")
        await until(pilot, lambda: not screen.status_line.stale and not screen.table.loading)
        await settle(pilot)
        assert screen.table.row_count == rows and not screen.status_line.display
        assert "just now" in summary(screen)


async def test_a_failed_refresh_keeps_the_accounts_ledger_said_stale(outage, demo_credentials, monkeypatch):
    await place(outage.server, demo_credentials, 1001, 101, "25", 2)
    app = app_on(outage.server)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_ledger(pilot)
        before = shown(screen)
        assert before

        outage.down()
        ten_minutes_on(monkeypatch)
        await pilot.press("r")
        await until(pilot, lambda: screen.status_line.stale and not screen.ledger.table.loading)
        await settle(pilot)
        assert shown(screen) == before and screen.report is not None
        line = status_line(screen)
        assert "Stale: last good data as of" in line and "(10 min ago)" in line and "connection failed" in line


async def test_retries_while_the_service_is_away_are_said_in_one_line_not_a_toast_each(outage):
    app = app_on(outage.server)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recent_board(pilot)
        outage.down()
        await pilot.press("r")
        await until(pilot, lambda: "retrying in" in status_line(screen))
        said = {status_line(screen)}
        await until(pilot, lambda: screen.status_line.stale and not screen.table.loading)
        assert said and not any("retrying" in note.lower() for note in notifications(app))
        assert len([note for note in notifications(app) if "connection failed" in note]) <= 1  # the failure, once


async def test_a_reload_that_takes_its_time_keeps_the_boards_rows_on_screen_and_says_it_is_refreshing(sim_factory):
    """Rule 12: `r` over a board of rows kept them hidden under a loading indicator while the service was slow
    or away (up to its timeouts); they stay, and the status line says a refresh is under way."""
    slow = sim_factory(SimulatorSettings(seed=11, history=120, limits=None, faults="latency=1.5s"))
    app = app_on(slow)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        rows = screen.table.row_count
        assert rows
        await pilot.press("r")
        await pilot.pause(0.3)  # the reload's request is on its way (1.5 s)
        assert not screen.table.loading and screen.table.row_count == rows
        assert "Refreshing" in status_line(screen)
        await until(pilot, lambda: "Refreshing" not in status_line(screen), timeout=15)
        assert screen.table.row_count == rows


async def test_a_refresh_that_outlasts_half_a_minute_is_said_under_way_until_it_ends(sim_factory, monkeypatch):
    """A request may take ~90 s to fail (its timeouts, then its retries): "Refreshing…" went after 30 s, and the
    screen no longer said that an answer was still awaited."""
    slow = sim_factory(SimulatorSettings(seed=11, history=120, limits=None, faults="latency=2s"))
    app = app_on(slow)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        await pilot.press("r")
        await pilot.pause(0.3)  # the reload's request is on its way (2 s)
        later = time.time() + 45
        monkeypatch.setattr(widgets.status_line, "clock", lambda: later)
        screen.status_line._redraw()  # its timer's work, 45 s on, the answer still awaited
        assert "Refreshing" in status_line(screen)
        monkeypatch.setattr(widgets.status_line, "clock", time.time)
        await until(pilot, lambda: "Refreshing" not in status_line(screen), timeout=15)
        assert not screen.status_line.stale


async def test_a_refresh_replaced_by_another_is_said_until_the_last_one_ends(sim_factory):
    slow = sim_factory(SimulatorSettings(seed=11, history=120, limits=None, faults="latency=2s"))
    app = app_on(slow)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        await pilot.press("r")
        await pilot.pause(0.3)
        await pilot.press("r")  # the first reload is cancelled: the second is still awaited
        await pilot.pause(0.5)
        assert "Refreshing" in status_line(screen)
        await until(pilot, lambda: "Refreshing" not in status_line(screen), timeout=15)
