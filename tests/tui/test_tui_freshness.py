"""The screens say how fresh their data is (issue 27): "as of 12:04 (3 min ago)"; a refresh beyond the
provider's budget says when it will be possible instead of failing; a long wait for a turn is told."""

from __future__ import annotations

import re

import pytest
from apps import app_on, notifications, settle, until
from textual.widgets import Static

from tui.screens import freshness
from tui.screens.freshness import text_for
from tui.simulator.rate_limits import PROVIDER_LIMITS

pytestmark = pytest.mark.usefixtures("provider_limits")  # DESIGN's table, as a user has it
WIDE = (160, 48)
AS_OF = re.compile(r"as of \d\d:\d\d \(just now\)")


@pytest.fixture(autouse=True)
def real_freshness(monkeypatch):
    monkeypatch.setattr(freshness, "text_for", text_for)  # the line itself, not the snapshots' fixed one


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_the_ledger_says_how_fresh_and_a_refresh_beyond_the_budget_says_when(sim_factory):
    sim = sim_factory(limits=PROVIDER_LIMITS)
    app = app_on(sim, profile_options={"limits": {"transactions": "1/hour"}})
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("2")
        screen = pilot.app.screen
        await until(pilot, lambda: screen.report is not None)
        await settle(pilot)
        assert AS_OF.search(shown(screen, "#ledger-title"))
        await pilot.press("r")
        await until(pilot, lambda: "allows a refresh at" in shown(screen, "#ledger-title"))
        assert re.search(r"the provider's limit allows a refresh at \d\d:\d\d", shown(screen, "#ledger-title"))
        assert screen.report is not None and screen.report.start_date  # the copy still shows
    assert [logged.status for logged in sim.requests("transactions")] == [200]  # asked once, never refused


async def test_the_board_and_the_rates_say_how_fresh(sim_factory):
    sim = sim_factory(limits=PROVIDER_LIMITS)
    async with app_on(sim).run_test(size=WIDE) as pilot:
        await pilot.press("8")
        await settle(pilot)
        screen = pilot.app.screen
        await until(pilot, lambda: AS_OF.search(shown(screen, "#orders-summary")))
        await pilot.press("0")
        await settle(pilot)
        screen = pilot.app.screen
        await until(pilot, lambda: AS_OF.search(shown(screen, "#rates-note")))


async def test_a_wait_for_a_turn_over_a_second_is_told(sim_factory):
    sim = sim_factory(limits=(("exchange_rates", 1, 3.0),))
    async with app_on(sim, profile_options={"limits": {"exchange_rates": "1/3s"}}).run_test(size=WIDE) as pilot:
        await pilot.press("0")
        await settle(pilot)
        await pilot.press("r")
        await until(pilot, lambda: any("for a turn at exchange_rates" in n for n in notifications(pilot.app)))
        await settle(pilot)
    assert [logged.status for logged in sim.requests("exchange_rates")] == [200, 200]
