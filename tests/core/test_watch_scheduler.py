"""The shared watch scheduler against the real simulator: budget, one request per item at a
time, paused profiles, and a callback that ends an order's polling. Virtual time where the
budget is counted (the clock and the sleep are injected); no timed assertions."""

from __future__ import annotations

import asyncio

import pytest
from watch_support import CREDENTIAL, payout_code, place

from tui.api.client import ServiceClient
from tui.api.models import NotificationConfig
from tui.api.weblink import weblink_token
from tui.core.endings import REFUSED, ended_badly
from tui.core.polling import Backoff
from tui.core.watching import Budget, Observation, Watched, WatchScheduler, classify, classify_lines, client_fetch
from tui.listener import Receiver
from tui.local.inbox import SqliteInbox


class VirtualTime:
    """A clock that moves only when the scheduler sleeps (and then at once)."""

    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0.01)  # the simulator's real time moves on a little too


class Recorder:
    """The scheduler's fetch, through the real client, noting when each request starts."""

    def __init__(self, client: ServiceClient, time: VirtualTime | None = None) -> None:
        self.fetch = client_fetch(self._client)
        self.client, self.time = client, time
        self.starts: list[tuple[float, object]] = []
        self.in_flight: set[object] = set()
        self.overlaps: list[object] = []
        self.most_at_once = 0
        self.changes: list[tuple[object, str, bool]] = []

    async def _client(self) -> ServiceClient:
        return self.client

    async def look(self, item: Watched) -> Observation:
        if item.key in self.in_flight:
            self.overlaps.append(item.key)
        self.in_flight.add(item.key)
        self.most_at_once = max(self.most_at_once, len(self.in_flight))
        self.starts.append((self.time.now if self.time else 0.0, item.key))
        try:
            return await self.fetch(item)
        finally:
            self.in_flight.discard(item.key)

    def changed(self, item: Watched, observation: Observation) -> None:
        self.changes.append((item.key, observation.status, observation.final))


@pytest.fixture
async def client(sim):
    async with ServiceClient(sim.base_url, CREDENTIAL.client_id, CREDENTIAL.client_secret) as service:
        yield service


async def test_requests_stay_within_the_budget_and_never_overlap_per_item(sim, client):
    budget = Budget(per_second=3.0, burst=2, concurrency=3)
    time = VirtualTime()
    recorder = Recorder(client, time)
    scheduler = WatchScheduler(
        recorder.look,
        recorder.changed,
        budget=budget,
        backoff=Backoff(first=0.2, cap=1.0),
        clock=time.clock,
        sleep=time.sleep,
    )
    orders = [place(sim, "10.13" if n % 4 == 0 else "10.00") for n in range(12)]
    for n, request_id in enumerate(orders):
        scheduler.add(Watched(n, "order", request_id, "p"))

    await scheduler.run(until_final=True)

    assert all(item.final for item in scheduler.items)
    assert {key for key, _, final in recorder.changes if final} == set(range(12))
    assert [status for key, status, final in recorder.changes if final and key % 4 == 0] == ["Failed"] * 3
    assert recorder.overlaps == [] and recorder.most_at_once <= budget.concurrency
    starts = [at for at, _ in recorder.starts]
    # Every order looked at once at least (on a quiet machine most need more: a loaded one places the
    # twelve so slowly that they are final when first asked); twelve starts already test the bucket.
    assert len(starts) >= 12
    for first in range(len(starts)):
        for last in range(first, len(starts)):
            # A token bucket: any stretch of time T holds at most burst + rate * T requests.
            assert last - first + 1 <= budget.burst + budget.per_second * (starts[last] - starts[first]) + 1e-9


async def test_items_of_a_profile_that_is_not_active_wait(sim, client):
    time = VirtualTime()
    recorder = Recorder(client, time)
    scheduler = WatchScheduler(
        recorder.look,
        recorder.changed,
        backoff=Backoff(first=0.2, cap=1.0),
        clock=time.clock,
        sleep=time.sleep,
        active_profile="sandbox",
    )
    scheduler.add(Watched("mine", "order", place(sim), "sandbox"))
    scheduler.add(Watched("theirs", "order", place(sim), "production"))
    running = asyncio.create_task(scheduler.run())
    while not scheduler.items[0].final:
        await asyncio.sleep(0.05)
    assert {key for _, key in recorder.starts} == {"mine"}

    scheduler.set_active_profile("production")
    while not scheduler.items[1].final:
        await asyncio.sleep(0.05)
    scheduler.stop()
    await running
    assert recorder.starts[-1][1] == "theirs"
    assert [key for key, _, final in recorder.changes if final] == ["mine", "theirs"]


async def test_items_paused_by_a_rule_wait_until_it_is_lifted(sim, client):
    # A team giftdesk that does not lead holds the orders (another polls them) and looks up its payouts.
    time = VirtualTime()
    recorder = Recorder(client, time)
    scheduler = WatchScheduler(
        recorder.look, recorder.changed, backoff=Backoff(first=0.2, cap=1.0), clock=time.clock, sleep=time.sleep
    )
    scheduler.pause_by(lambda watched: watched.key == "held")
    scheduler.add(Watched("held", "order", place(sim), "sandbox"))
    scheduler.add(Watched("looked", "order", place(sim), "sandbox"))
    running = asyncio.create_task(scheduler.run())
    while not scheduler.items[1].final:
        await asyncio.sleep(0.05)
    assert {key for _, key in recorder.starts} == {"looked"}

    scheduler.pause_by(None)  # it leads now
    while not scheduler.items[0].final:
        await asyncio.sleep(0.05)
    scheduler.stop()
    await running
    assert [key for key, _, final in recorder.changes if final] == ["looked", "held"]


async def test_a_callback_ends_the_order_at_once_and_stops_its_polling(sim_factory, tmp_path):
    sim = sim_factory()
    async with ServiceClient(sim.base_url, CREDENTIAL.client_id, CREDENTIAL.client_secret) as client:
        inbox = lambda: SqliteInbox("p", tmp_path / "inbox.sqlite3", check_same_thread=False)  # noqa: E731
        with Receiver(inbox, callback_secret="watch-secret-1") as listener:
            await client.set_notifications(
                NotificationConfig(
                    notification_url=listener.url, notification_url_sandbox=listener.url, secret_key="watch-secret-1"
                )
            )
            recorder = Recorder(client)
            # After the first look, the next one would be a minute away: only the callback can end it.
            scheduler = WatchScheduler(recorder.look, recorder.changed, backoff=Backoff(first=60.0, cap=60.0))
            loop = asyncio.get_running_loop()

            def received(delivery) -> None:
                if delivery.accepted:
                    request_id, status = delivery.payload["requestId"], delivery.payload["status"]
                    loop.call_soon_threadsafe(lambda: scheduler.settle("order", request_id, status))

            listener.subscribe(received)
            request_id = place(sim)
            scheduler.add(Watched(1, "order", request_id, "p"))
            await asyncio.wait_for(scheduler.run(until_final=True), timeout=30)

    assert len(recorder.starts) == 1
    assert recorder.changes[-1] == (1, "succeeded", True)  # as the callback said it (DESIGN: lower case)


async def test_payouts_and_unknown_orders(sim, client):
    time = VirtualTime()
    recorder = Recorder(client, time)
    scheduler = WatchScheduler(
        recorder.look, recorder.changed, backoff=Backoff(first=0.2, cap=1.0), clock=time.clock, sleep=time.sleep
    )
    scheduler.add(Watched("returned", "payout", weblink_token(payout_code(sim, "returned@example.com")), "p"))
    scheduler.add(Watched("unknown", "order", "W-no-such-order", "p"))
    await scheduler.run(until_final=True)
    final = {key: status for key, status, done in recorder.changes if done}
    assert final == {"returned": "Unclaimed", "unknown": REFUSED}  # Unclaimed is final: nothing in flight
    assert all(ended_badly(status) for status in final.values())


def test_pasted_lines_are_classified():
    pasted = classify_lines(
        "REQ-1\n\n  https://pay.example.test/payout/abc123%3D  \n# a comment\nabcdEFGH1234==\nREQ-1\n"
    )
    assert [(p.kind, p.reference) for p in pasted] == [
        ("order", "REQ-1"),
        ("payout", "https://pay.example.test/payout/abc123%3D"),
        ("payout", "abcdEFGH1234=="),
    ]
    assert classify("  ") is None
    assert classify("5d0c3f4e-0c1a-4f7e-9d59-0d3b7c3c2a11").kind == "order"


def test_the_budget_keeps_get_orders_and_payout_statuss_limits_from_the_table():
    from tui.api.limits import DEFAULT_LIMITS, parse_overrides
    from tui.core.watching import DEFAULT_BUDGET, budget_for

    assert DEFAULT_BUDGET.per_second == 2.0 == DEFAULT_LIMITS["get_order"].per_second  # 120/min
    slower = budget_for({**DEFAULT_LIMITS, **parse_overrides({"payout_status": "30/min"})})
    assert slower.per_second == 0.5  # one budget for both kinds: never more than either endpoint allows
