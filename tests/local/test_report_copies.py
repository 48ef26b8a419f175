"""Local copies of the scarce reports (issue 27): a closed day is fetched once, today is refreshed as the
limit allows, --fresh asks the service, and beyond the budget the copy answers saying when the service can."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from tui.api.client import ServiceClient
from tui.api.limiter import Limiter
from tui.core.dates import DayRange
from tui.local.ages import as_of
from tui.local.limit_store import profile_database
from tui.local.report_copies import ReportCopies, service_today
from tui.simulator.rate_limits import PROVIDER_LIMITS

pytestmark = pytest.mark.usefixtures("provider_limits")  # DESIGN's table, as a user has it
CREDENTIAL = "acme-sandbox"  # the one with a seeded past


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def service(sim_factory, demo_credentials):
    sim = sim_factory(history=40, limits=PROVIDER_LIMITS)
    credential = demo_credentials[CREDENTIAL]
    client = ServiceClient(sim.base_url, credential.client_id, credential.client_secret, limiter=Limiter())
    return sim, client


def asked(sim, endpoint):
    return [logged.query for logged in sim.requests(endpoint)]


async def test_closed_days_are_fetched_once_and_today_as_the_limit_allows(service, tmp_path):
    import time

    sim, client = service
    clock = Clock(time.time())
    copies = ReportCopies(profile_database("p", "sandbox"), clock=clock)
    today = service_today()
    week = (today - timedelta(days=6), today)

    first = await copies.transactions(client, *week)
    assert not first.from_copy and first.value.transactions  # the seeded past charged the accounts
    assert first.renew_at == pytest.approx(first.fetched + 15 * 60)  # when an open screen looks again
    again = await copies.transactions(client, *week)
    assert again.from_copy and again.age(clock.now) == 0
    assert [t.reference for t in again.value.transactions] == [t.reference for t in first.value.transactions]
    assert len(asked(sim, "transactions")) == 1

    clock.now += 15 * 60  # transactions: 4/hour -> today's copy is kept 15 min
    later = await copies.transactions(client, *week)
    assert later.from_copy  # the closed days still came from the copy
    assert later.renew_at == pytest.approx(clock.now + 15 * 60)
    assert asked(sim, "transactions")[-1] == f"startDate={today}&endDate={today}"

    fresh = await copies.transactions(client, *week, fresh=True)
    assert not fresh.from_copy and asked(sim, "transactions")[-1] == f"startDate={week[0]}&endDate={today}"
    assert len(asked(sim, "transactions")) == 3


async def test_beyond_the_budget_the_copy_answers_and_says_when_the_service_can(service):
    sim, client = service
    copies = ReportCopies(profile_database("p", "sandbox"))
    yesterday = service_today() - timedelta(days=1)
    for _ in range(4):  # the hour's whole budget
        await copies.transactions(client, yesterday, yesterday, fresh=True)
    answer = await copies.transactions(client, yesterday, yesterday, fresh=True)
    assert answer.from_copy and answer.refused is not None
    assert "allows 4/hour here); the next request is possible at" in str(answer.refused)
    assert [logged.status for logged in sim.requests("transactions")] == [200] * 4  # never a 429
    assert answer.renew_at is None  # a day that has ended: an open screen never asks for it again


async def test_a_refused_refresh_of_today_is_due_again_when_the_limiter_said(service):
    import time

    sim, client = service
    copies = ReportCopies(profile_database("p", "sandbox"))
    today = service_today()
    for _ in range(4):  # the hour's whole budget
        await copies.transactions(client, today, today, fresh=True)
    answer = await copies.transactions(client, today, today, fresh=True)
    assert answer.refused is not None and answer.refused.retry_after is not None
    assert answer.renew_at == pytest.approx(time.time() + answer.refused.retry_after, abs=5)  # about an hour on
    assert [logged.status for logged in sim.requests("transactions")] == [200] * 4


async def test_the_orders_report_is_kept_by_day_like_the_transactions(service):
    sim, client = service
    copies = ReportCopies(profile_database("p", "sandbox"))
    today = service_today()
    month = DayRange(today - timedelta(days=29), today - timedelta(days=1))
    first = await copies.order_history(client, month)
    again = await copies.order_history(client, DayRange(today - timedelta(days=9), today - timedelta(days=2)))
    assert first.value and again.from_copy
    assert first.renew_at is None and again.renew_at is None  # closed days: never asked again
    assert {line.order_number for line in again.value} <= {line.order_number for line in first.value}
    assert len(asked(sim, "order_history")) == 1


async def test_the_orders_known_say_their_status_and_date_where_seen(service):
    """What tells apart the candidates of an ambiguous ID (the TUI's picker): the report's line, the order seen whole."""
    _, client = service
    copies = ReportCopies(profile_database("p", "sandbox"))
    today = service_today()
    lines = (await copies.order_history(client, DayRange(today - timedelta(days=29), today - timedelta(days=1)))).value
    copies.remember_cards("opened-order", "O-00000007", ["SN1"], status="Failed", created="2025-01-02T03:00:00Z")
    known = {order.request_id: order for order in copies.known_orders()}
    line = lines[0]
    assert (known[line.client_reference_number].status, known[line.client_reference_number].day) == (
        line.status,
        line.order_date,
    )
    assert (known["opened-order"].status, known["opened-order"].day) == ("Failed", "2025-01-02T03:00:00Z")


async def test_rates_and_catalog_v1_are_kept_for_their_interval(service):
    import time

    sim, client = service
    clock = Clock(time.time())
    copies = ReportCopies(profile_database("p", "sandbox"), clock=clock)
    for _ in range(3):
        rates = await copies.exchange_rates(client, "EUR")
        brands = await copies.catalog_v1(client)
    assert rates.from_copy and brands.from_copy and brands.value
    assert rates.renew_at == pytest.approx(rates.fetched + 10 * 60)
    assert brands.renew_at == pytest.approx(brands.fetched + 30 * 60)
    assert len(asked(sim, "exchange_rates")) == 1 and len(asked(sim, "catalog_v1")) == 1
    clock.now += 30 * 60  # catalog v1: 2/hour -> kept 30 min; rates 10 min
    assert not (await copies.exchange_rates(client, "EUR")).from_copy
    assert not (await copies.catalog_v1(client)).from_copy
    assert (await copies.exchange_rates(client, "GBP")).from_copy is False  # each query its own copy


def test_as_of_says_when_and_how_long_ago():
    moment = 1_700_000_000.0
    assert as_of(moment, moment + 3 * 60 + 5).endswith("(3 min ago)")
    assert as_of(moment, moment + 10).endswith("(just now)")
    assert as_of(moment, moment).startswith("as of ")


def test_a_day_is_closed_only_once_it_has_ended_everywhere():
    assert service_today() <= date.today()


async def test_the_charged_orders_are_the_transactions_alone_each_with_its_charges_time(service):
    """The board dates final orders by their charge (issue 39) on every load: it reads the transactions' copies only,
    not the orders reports and the orders seen whole beside them."""
    _, client = service
    copies = ReportCopies(profile_database("p", "sandbox"))
    today = service_today()
    month = DayRange(today - timedelta(days=29), today - timedelta(days=1))
    await copies.order_history(client, month)
    copies.remember_cards("opened-order", "O-00000007", ["SN1"], status="Failed", created="2025-01-02T03:00:00Z")
    assert copies.known_orders() and not copies.charged_orders()  # no transactions kept yet, though orders are named
    report = (await copies.transactions(client, month.start, month.end)).value
    charged = copies.charged_orders()
    assert charged and {order.where for order in charged} == {"transactions"}
    assert {order.request_id for order in charged} <= {order.request_id for order in copies.known_orders()}
    assert all(order.day for order in charged) and report is not None
