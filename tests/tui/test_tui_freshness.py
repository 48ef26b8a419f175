"""The screens say how fresh their data is (issue 27): "as of 12:04 (3 min ago)"; a refresh beyond the
provider's budget says when it will be possible instead of failing; a long wait for a turn is told; an open
ledger, board and rates refresh by themselves as often as the limits allow, and ended days never again."""

from __future__ import annotations

import itertools
import re
import time
from datetime import date, timedelta

import pytest
from apps import app_on, notifications, settle, until
from textual.widgets import Input, Static
from watch_support import place

from tui.core.watching import DEFAULT_BACKOFF, DEFAULT_BUDGET, looked_again_within
from tui.local import report_copies
from tui.screens import freshness
from tui.screens.freshness import text_for
from tui.simulator.rate_limits import PROVIDER_LIMITS

pytestmark = pytest.mark.usefixtures("provider_limits")  # DESIGN's table, as a user has it
WIDE = (160, 48)
AS_OF = re.compile(r"as of \d\d:\d\d \(just now\)")


@pytest.fixture(autouse=True)
def real_freshness(monkeypatch):
    monkeypatch.setattr(freshness, "text_for", text_for)  # the line itself, not the snapshots' fixed one
    monkeypatch.setattr(freshness, "SHORTEST_RENEWAL", 0.5)  # 5 s for a user: short limits here, quick tests


def moment(at: float) -> str:
    return time.strftime("%H:%M", time.localtime(at))


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_the_ledger_says_how_fresh_and_a_refresh_beyond_the_budget_says_when(sim_factory, monkeypatch):
    sim = sim_factory(limits=PROVIDER_LIMITS)
    app = app_on(sim, profile_options={"limits": {"transactions": "1/hour"}})
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("2")
        screen = pilot.app.screen
        await until(pilot, lambda: screen.report is not None)
        await settle(pilot)
        assert AS_OF.search(shown(screen, "#ledger-title"))
        refused_at = time.time()
        await pilot.press("r")
        await until(pilot, lambda: "allows a refresh at" in shown(screen, "#ledger-title"))
        allowed = re.search(r"the provider's limit allows a refresh at (\d\d:\d\d)", shown(screen, "#ledger-title"))[1]
        assert allowed in {moment(refused_at + 3600), moment(time.time() + 3600)}
        assert screen.report is not None and screen.report.start_date  # the copy still shows
        # That time stays where the refusal put it (rule 12): it moved on with each redraw.
        monkeypatch.setattr(freshness, "clock", lambda: refused_at + 1800)
        screen._redraw_freshness()  # its 30 s timer's work, half an hour on
        assert f"allows a refresh at {allowed}" in shown(screen, "#ledger-title")
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
        await until(pilot, lambda: "for a turn at exchange_rates" in str(pilot.app.screen.status_line.render()))
        assert not any("for a turn" in n for n in notifications(pilot.app))  # said in place, not a toast
        await settle(pilot)
    assert [logged.status for logged in sim.requests("exchange_rates")] == [200, 200]


# --- refreshing by itself, as often as the limits allow (short limits, so that the tests are quick) ---------

BY_ITSELF = re.compile(r"as of \d\d:\d\d \(just now\) · refreshes by itself at \d\d:\d\d")


def spaced(sim, endpoint: str, seconds: float) -> bool:
    """Every request answered (no 429) and none sooner than `seconds` after the one before."""
    log = sim.requests(endpoint)
    times = [logged.at for logged in log]
    return all(logged.status == 200 for logged in log) and all(
        later - earlier >= seconds for earlier, later in itertools.pairwise(times)
    )


async def test_an_open_ledger_refreshes_by_itself_as_often_as_its_limit_allows(sim_factory):
    sim = sim_factory(limits=(("transactions", 1, 1.0),))
    app = app_on(sim, profile_options={"limits": {"transactions": "1/s"}})
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("2")
        screen = pilot.app.screen
        await until(pilot, lambda: len(sim.requests("transactions")) >= 3, timeout=15)
        await until(pilot, lambda: BY_ITSELF.search(shown(screen, "#ledger-title")))
    assert spaced(sim, "transactions", 1.0)
    first, *again = [logged.query for logged in sim.requests("transactions")]
    assert first == f"startDate={screen.day_range.start}&endDate={screen.day_range.end}"  # the last 24 hours
    assert set(again) == {f"startDate={screen.day_range.end}&endDate={screen.day_range.end}"}  # today's, yesterday kept


async def test_an_open_board_refreshes_by_itself_and_a_range_of_ended_days_is_never_asked_again(sim_factory):
    sim = sim_factory(limits=(("order_history", 1, 1.0),))
    app = app_on(sim, profile_options={"limits": {"order_history": "1/s"}})
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("8")
        screen = pilot.app.screen
        await until(pilot, lambda: len(sim.requests("order_history")) >= 3, timeout=15)
        await until(pilot, lambda: BY_ITSELF.search(shown(screen, "#orders-summary")))
        await pilot.press("R")  # yesterday alone: a day that has ended
        await settle(pilot)
        dialog = pilot.app.screen
        for field in ("#range-from", "#range-to"):
            dialog.query_one(field, Input).value = "yesterday"
        asked = len(sim.requests("order_history"))
        await pilot.press("enter")  # yesterday came with the opening range: its copy answers, now and later
        await until(
            pilot,
            lambda: (
                screen.loaded_range == screen.day_range
                and str(screen.day_range.start) == str(date.today() - timedelta(days=1))
            ),
        )
        await pilot.pause(2.5)  # more than two of today's spacings
        assert len(sim.requests("order_history")) == asked  # fetched once, kept
        assert AS_OF.search(shown(screen, "#orders-summary")) and "by itself" not in shown(screen, "#orders-summary")
    assert spaced(sim, "order_history", 1.0)


@pytest.fixture
def rates_kept_a_second(monkeypatch) -> None:
    monkeypatch.setattr(report_copies, "RATES_KEPT_FOR", 1.0)  # kept 10 min for a user


async def open_rates(pilot):
    """The rates screen, once its line says when it refreshes by itself."""
    await pilot.press("0")
    screen = pilot.app.screen
    await until(pilot, lambda: BY_ITSELF.search(shown(screen, "#rates-note")))
    return screen


async def test_open_rates_refresh_by_themselves_when_their_copy_falls_due(sim_factory, rates_kept_a_second):
    sim = sim_factory(limits=PROVIDER_LIMITS)
    async with app_on(sim).run_test(size=WIDE) as pilot:
        await open_rates(pilot)
        await until(pilot, lambda: len(sim.requests("exchange_rates")) >= 3, timeout=15)
    assert spaced(sim, "exchange_rates", 1.0)


async def test_the_watch_list_says_how_soon_each_item_is_looked_at_again(sim_factory):
    """The watch list refreshes by itself already (its scheduler, on Get order's budget): its line says
    how often, from the watched count and the limit (200 orders at 120/min: once every 100 s)."""
    assert looked_again_within(200, DEFAULT_BUDGET, DEFAULT_BACKOFF) == 100.0
    sim = sim_factory(limits=PROVIDER_LIMITS)
    pending = [place(sim, "10.14") for _ in range(2)]  # a Paused card: Pending a while
    app = app_on(sim)
    async with app.run_test(size=WIDE) as pilot:
        for request_id in pending:
            app.watch_list.add_order(request_id)
        await pilot.press("9")
        screen = pilot.app.screen
        await until(pilot, lambda: "2 watching" in shown(screen, "#watch-summary"))
        assert "Each looked at again within 30 s, as the provider's limits allow." in shown(screen, "#watch-summary")


async def test_a_refresh_by_itself_never_cancels_an_r_waiting_for_its_turn(sim_factory):
    """`r` waits ~3 s for its turn; the screen's own refresh coming meanwhile (its timer, fired here at
    once) leaves it be: the service is asked once more, by the `r`, not answered from the copy instead."""
    sim = sim_factory(limits=(("exchange_rates", 1, 3.0),))
    async with app_on(sim, profile_options={"limits": {"exchange_rates": "1/3s"}}).run_test(size=WIDE) as pilot:
        await pilot.press("0")
        screen = pilot.app.screen
        await until(pilot, lambda: screen.rates is not None)
        await pilot.press("r")
        await until(pilot, lambda: "for a turn at exchange_rates" in str(screen.status_line.render()))
        screen._renew()  # its timer's work, while the `r` waits
        await until(pilot, lambda: len(sim.requests("exchange_rates")) == 2, timeout=15)
        await settle(pilot)
    assert [logged.status for logged in sim.requests("exchange_rates")] == [200, 200]


# --- truth as time passes (rule 12): a time said is the time it will be, never one gone -------------------------


async def test_after_a_refresh_by_itself_failed_the_line_says_the_next_try_not_a_time_gone(
    sim_factory, rates_kept_a_second, monkeypatch
):
    sim = sim_factory(limits=PROVIDER_LIMITS)
    async with app_on(sim).run_test(size=WIDE) as pilot:
        screen = await open_rates(pilot)
        said = re.search(r"refreshes by itself at (\d\d:\d\d)", shown(screen, "#rates-note"))[1]
        sim.stop()
        await pilot.pause(1.2)  # the copy falls due
        later = time.time() + 3600
        monkeypatch.setattr(freshness, "clock", lambda: later)
        screen._renew()  # its timer's work, an hour on, the service gone
        await until(pilot, lambda: "Stale" in str(screen.status_line.render()))
        line = shown(screen, "#rates-note")
        assert f"refreshes by itself at {moment(later + freshness.RETRY_SECONDS)}" in line
        assert f"at {said}" not in line
