"""The one limiter (issue 27): the table, a sliding window per endpoint, holds from the service,
its waits through the client's single request path, and the SQLite store shared by processes."""

from __future__ import annotations

import itertools

import httpx
import pytest

from tui.api.client import NO_RETRY, RetryPolicy, ServiceClient
from tui.api.errors import RateLimitedError
from tui.api.limiter import Limiter, MemoryLimitStore
from tui.api.limits import DEFAULT_LIMITS, GET_ORDER, TRANSACTIONS, Limit, LimitSyntaxError, limits_table, parse_limit
from tui.local.limit_store import SqliteLimitStore

pytestmark = pytest.mark.usefixtures("provider_limits")  # DESIGN's table, as a user has it
ORDER = {
    "orderId": 9001,
    "requestId": "r",
    "status": "Succeeded",
    "createdDate": "2024-05-01T10:00:00",
    "total": 1,
    "currency": "USD",
    "items": [],
}


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_the_table_holds_designs_figures_and_profiles_override_them():
    assert str(DEFAULT_LIMITS["catalog_v2"]) == "1/s" and str(DEFAULT_LIMITS["catalog_v1"]) == "2/hour"
    assert str(DEFAULT_LIMITS["place_order"]) == "2/s" and str(DEFAULT_LIMITS["get_order"]) == "120/min"
    assert str(DEFAULT_LIMITS["exchange_rates"]) == "20/min" and str(DEFAULT_LIMITS["transactions"]) == "4/hour"
    table = limits_table({"transactions": "10/min", "catalog_v2": "5/2s"})
    assert table["transactions"] == Limit(10, 60.0) and table["catalog_v2"] == Limit(5, 2.0)
    assert table["get_order"] == DEFAULT_LIMITS["get_order"]
    assert parse_limit("4/hours") == Limit(4, 3600.0) and parse_limit(" 120 / minute ") == Limit(120, 60.0)


@pytest.mark.parametrize("text", ["", "4", "four/hour", "4/fortnight", "0/s", "4/0s", "-1/s"])
def test_a_limit_that_does_not_read_says_how_to_write_one(text):
    with pytest.raises(LimitSyntaxError, match=r"requests/period|at least 1"):
        parse_limit(text)


def test_an_override_of_an_unknown_endpoint_names_the_known_ones():
    with pytest.raises(LimitSyntaxError, match="get_order"):
        limits_table({"orders": "1/s"})


@pytest.mark.parametrize("store", [MemoryLimitStore, "sqlite"])
def test_a_window_admits_its_requests_then_books_the_next_turns_in_order(store, tmp_path):
    clock = Clock()
    store = SqliteLimitStore(tmp_path / "limits.sqlite3") if store == "sqlite" else store()
    limiter = Limiter({GET_ORDER: Limit(3, 10.0)}, store, clock=clock)
    turns = [limiter.turn(GET_ORDER) for _ in range(5)]
    assert [turn.wait for turn in turns] == pytest.approx([0, 0, 0, 10.1, 10.1])  # a window and its margin (1%)
    for turn in turns:
        limiter.answered(turn)
    clock.now += 10
    assert limiter.turn(GET_ORDER).wait == 0  # the first three left the window; the 4th and 5th are in it
    assert limiter.turn(GET_ORDER).wait == pytest.approx(10.1)
    assert limiter.turn("accounts").wait == 0  # an endpoint without a figure never waits for the table


@pytest.mark.parametrize("store", [MemoryLimitStore, "sqlite"])
def test_a_booking_counts_from_when_its_answer_came(store, tmp_path):
    clock = Clock()
    store = SqliteLimitStore(tmp_path / "limits.sqlite3") if store == "sqlite" else store()
    limiter = Limiter({GET_ORDER: Limit(1, 1.0)}, store, clock=clock)
    first = limiter.turn(GET_ORDER)
    clock.now += 0.7  # a slow answer: the service may have counted it only now
    limiter.answered(first)
    assert limiter.turn(GET_ORDER).wait == pytest.approx(1.05)  # 1 s from the answer, and the margin


@pytest.mark.parametrize("store", [MemoryLimitStore, "sqlite"])
def test_a_request_still_in_flight_counts_as_arriving_now(store, tmp_path):
    """Booked at t but still queued for a connection at t + 5: the service may count it only now."""
    clock = Clock()
    store = SqliteLimitStore(tmp_path / "limits.sqlite3") if store == "sqlite" else store()
    limiter = Limiter({GET_ORDER: Limit(1, 1.0)}, store, clock=clock)
    limiter.turn(GET_ORDER)
    clock.now += 5
    assert limiter.turn(GET_ORDER).wait == pytest.approx(1.05)


@pytest.mark.parametrize("store", [MemoryLimitStore, "sqlite"])
def test_a_hold_overrides_the_table_and_is_never_shortened(store, tmp_path):
    clock = Clock()
    store = SqliteLimitStore(tmp_path / "limits.sqlite3") if store == "sqlite" else store()
    limiter = Limiter(DEFAULT_LIMITS, store, clock=clock)
    limiter.hold(GET_ORDER, 30)
    limiter.hold(GET_ORDER, 5)
    assert limiter.turn(GET_ORDER).wait == pytest.approx(30)
    refused = limiter.turn(GET_ORDER, max_wait=10)
    assert refused.booking is None and refused.wait == pytest.approx(30)


def test_two_limiters_on_one_database_share_one_budget(tmp_path):
    """Two processes of a profile: each opens the database; the bookings are one."""
    clock = Clock()
    path = tmp_path / "limits.sqlite3"
    one, two = (
        Limiter({TRANSACTIONS: Limit(4, 3600.0)}, SqliteLimitStore(path), key="client-1", clock=clock) for _ in range(2)
    )
    other_credential = Limiter({TRANSACTIONS: Limit(4, 3600.0)}, SqliteLimitStore(path), key="client-2", clock=clock)
    waits = [limiter.turn(TRANSACTIONS).wait for limiter in (one, two, one, two, one)]
    assert waits == [0, 0, 0, 0, pytest.approx(3602)]  # an hour, and the margin (2 s at most)
    assert other_credential.turn(TRANSACTIONS).wait == 0


# --- through the client's one request path -----------------------------------------------------


@pytest.fixture
def client_on():
    clients = []

    def build(
        *answers: httpx.Response,
        limits=DEFAULT_LIMITS,
        store=None,
        clock=None,
        before_answer=None,
        during_sleep=None,
        **options,
    ):
        """`before_answer`, `during_sleep`: awaited while a request travels, and while the client sleeps."""
        clock = clock or Clock()
        sleeps, sent = [], []
        replies = itertools.chain(answers, itertools.repeat(httpx.Response(200, json=ORDER)))

        async def service(request: httpx.Request) -> httpx.Response:
            sent.append((clock.now, request.url.path))
            if before_answer is not None:
                await before_answer()
            return next(replies)

        async def sleep(seconds: float) -> None:
            sleeps.append(seconds)
            if during_sleep is not None:
                await during_sleep()
            clock.now += seconds

        client = ServiceClient(
            "http://svc.test",
            "id",
            "limiter-test-Secr3t-77aa",
            transport=httpx.MockTransport(service),
            sleep=sleep,
            limiter=Limiter(limits, store, clock=clock),
            **options,
        )
        clients.append(client)
        return client, sleeps, sent

    return build


async def test_every_request_waits_for_its_turn_and_a_long_wait_is_told(client_on):
    told = []
    client, sleeps, sent = client_on(
        limits={GET_ORDER: Limit(2, 10.0)},
        on_wait=lambda endpoint, seconds, limit: told.append((endpoint, round(seconds), str(limit))),
    )
    for _ in range(5):
        await client.get_order("r")
    times = [at for at, _ in sent]
    assert all(later - earlier >= 10 for earlier, later in zip(times, times[2:], strict=False))  # never 3 in 10 s
    assert told == [("get_order", 10, "2/10s")] * 2 and sleeps == [pytest.approx(10.1)] * 2


async def test_a_turn_beyond_the_longest_wait_fails_saying_when(client_on):
    client, sleeps, sent = client_on(limits={TRANSACTIONS: Limit(1, 3600.0)}, max_wait=60)
    from datetime import date

    await client.transactions(date(2026, 1, 1), date(2026, 1, 1))
    with pytest.raises(
        RateLimitedError, match=r"allows 1/hour here\); the next request is possible at \d\d:\d\d:\d\d \(in 60 min\)"
    ):
        await client.transactions(date(2026, 1, 1), date(2026, 1, 1))
    assert len(sent) == 1 and sleeps == []


async def test_retry_after_holds_the_endpoint_for_every_client_of_the_store(client_on):
    """A 429's Retry-After overrides the table: the retry, and another process's request, wait it out."""
    clock, store = Clock(), MemoryLimitStore()
    client, sleeps, sent = client_on(httpx.Response(429, headers={"Retry-After": "20"}), clock=clock, store=store)
    other, other_sleeps, _ = client_on(clock=clock, store=store)
    await client.get_order("r")
    assert [at - sent[0][0] for at, _ in sent] == [0, pytest.approx(20)] and sleeps == [pytest.approx(20)]
    clock.now -= 20  # the other process asks right after the 429
    await other.get_order("r")
    assert other_sleeps == [pytest.approx(20)]


async def test_a_429_without_retry_after_holds_for_the_limits_spacing(client_on):
    client, sleeps, sent = client_on(
        httpx.Response(429), limits={GET_ORDER: Limit(120, 60.0)}, retry=RetryPolicy(jitter=0, base_delay=0.5)
    )
    await client.get_order("r")
    assert len(sent) == 2 and sleeps == [pytest.approx(0.5)]


async def test_rate_limit_headers_saying_none_left_hold_until_the_reset(client_on):
    exhausted = httpx.Response(200, json=ORDER, headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "7"})
    client, sleeps, _ = client_on(exhausted)
    await client.get_order("r")
    await client.get_order("r")
    assert sleeps == [pytest.approx(7)]


async def test_a_429_beyond_the_longest_retry_after_fails_and_keeps_the_hold(client_on):
    client, _, sent = client_on(httpx.Response(429, headers={"Retry-After": "900"}), retry=NO_RETRY)
    with pytest.raises(RateLimitedError):
        await client.get_order("r")
    with pytest.raises(RateLimitedError, match=r"the next request is possible at .* \(in 15 min\)"):
        await client.get_order("r")
    assert len(sent) == 1


@pytest.mark.parametrize("processes", [1, 2])
async def test_turns_booked_before_a_429_move_after_its_retry_after(client_on, tmp_path, processes):
    """One request is in flight; another is booked for the next window; the first is answered 429 with
    Retry-After 30. When the booked turn comes, the hold (set after it was booked) moves it after the 30 s,
    in the same process and in another process of the profile (its own connection to the database)."""
    import asyncio

    clock, path = Clock(), tmp_path / "limits.sqlite3"
    store = MemoryLimitStore() if processes == 1 else SqliteLimitStore(path)
    booked, refused = asyncio.Event(), asyncio.Event()

    async def second_is_booked() -> None:
        booked.set()
        await refused.wait()

    limits = {GET_ORDER: Limit(1, 10.0)}
    first, _, _ = client_on(
        httpx.Response(429, headers={"Retry-After": "30"}),
        limits=limits,
        clock=clock,
        store=store,
        retry=NO_RETRY,
        before_answer=booked.wait,
    )
    second, second_sleeps, second_sent = client_on(
        limits=limits,
        clock=clock,
        during_sleep=second_is_booked,
        store=store if processes == 1 else SqliteLimitStore(path),
    )
    started = clock.now

    async def first_request() -> None:
        with pytest.raises(RateLimitedError):
            await first.get_order("r")
        refused.set()

    await asyncio.gather(first_request(), second.get_order("r"))
    assert second_sleeps[0] == pytest.approx(10.1)  # booked a window after the request in flight
    assert [at - started for at, _ in second_sent] == [pytest.approx(30)]  # not at 10.1: after the Retry-After
