"""Place order pacing: at least 500 ms between calls, at most 6 orders of a product a minute.

The client's rule (windows of its limiter, tui/api/limits.py) and the simulator's (tui/simulator/pacing.py)
are separate implementations of the same documented limits (DESIGN.md, "Facts"):
each is checked on a clock we move by hand, then both together over loopback.
"""

from __future__ import annotations

import itertools
import uuid

import httpx
import pytest

from tui.api.client import NO_RETRY, ServiceClient
from tui.api.errors import RateLimitedError
from tui.api.limiter import Limiter, MemoryLimitStore
from tui.api.limits import DEFAULT_LIMITS, PLACE_ORDER, PLACE_ORDER_PRODUCT, PLACE_ORDER_SPACING, Limit
from tui.api.models import OrderLine, PlaceOrder
from tui.simulator.pacing import PlaceOrderLimits

CHECKOUT = "/api/integration/v1.0/orders/checkout"
FIXED_PRODUCT, OTHER_PRODUCT, VALUE = 101, 102, 25


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def body(*products: int) -> dict:
    return {
        "RequestId": str(uuid.uuid4()),
        "AccountId": 1001,
        "Products": [{"ProductId": p, "Quantity": 1, "Value": VALUE} for p in products],
    }


# --- the client's rule ----------------------------------------------------------------------

PLACE = (PLACE_ORDER_SPACING,)


def paced(clock: Clock, table: dict[str, Limit] = DEFAULT_LIMITS) -> Limiter:
    return Limiter(table, MemoryLimitStore(), clock=clock)


def place_turn(limiter: Limiter, *products: int) -> float:
    """Seconds to wait before a Place order of these products; the turn is booked (and answered at once)."""
    turn = limiter.turn(PLACE_ORDER, also=(*PLACE, *(f"{PLACE_ORDER_PRODUCT} {p}" for p in sorted(set(products)))))
    limiter.answered(turn)
    return turn.wait


def test_pacer_keeps_half_a_second_between_calls():
    clock = Clock()
    limiter = paced(clock)
    assert place_turn(limiter, FIXED_PRODUCT) == 0
    assert place_turn(limiter, OTHER_PRODUCT) == pytest.approx(0.55)  # booked at once: side by side calls queue up
    assert place_turn(limiter, OTHER_PRODUCT + 1) == pytest.approx(1.1)
    clock.now += 10
    assert place_turn(limiter, FIXED_PRODUCT) == 0


def test_pacer_counts_a_call_from_when_its_answer_came():
    clock = Clock()
    limiter = paced(clock)
    first = limiter.turn(PLACE_ORDER, also=PLACE)
    clock.now += 3  # the answer took 3 s
    limiter.answered(first)
    assert place_turn(limiter, OTHER_PRODUCT) == pytest.approx(0.55)


def test_pacer_allows_six_orders_of_a_product_a_minute():
    clock = Clock()
    limiter = paced(clock)
    first = clock.now
    for _ in range(6):
        clock.now += place_turn(limiter, FIXED_PRODUCT)
    assert place_turn(limiter, FIXED_PRODUCT) == pytest.approx(first + 60.6 - clock.now)  # a minute after the first
    assert place_turn(limiter, OTHER_PRODUCT) == pytest.approx(first + 60.6 + 0.55 - clock.now)  # and after it


def test_pacer_counts_every_product_of_an_order_once():
    clock = Clock()
    limiter = paced(
        clock, {**DEFAULT_LIMITS, PLACE_ORDER_SPACING: Limit(1000, 1.0), PLACE_ORDER_PRODUCT: Limit(2, 60.0)}
    )
    assert place_turn(limiter, FIXED_PRODUCT, FIXED_PRODUCT, OTHER_PRODUCT) == 0
    assert place_turn(limiter, OTHER_PRODUCT) == 0
    assert place_turn(limiter, OTHER_PRODUCT) == pytest.approx(60.6)
    # Its own product's window has room: it goes at Place order's 2/s, not behind the other product's minute.
    assert place_turn(limiter, FIXED_PRODUCT) == pytest.approx(1.05)


async def test_client_waits_before_sending_a_call_too_soon():
    clock, sent, sleeps = Clock(), [], []

    def service(request: httpx.Request) -> httpx.Response:
        sent.append(clock.now)
        return httpx.Response(200, json="r")

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock.now += seconds

    async with ServiceClient(
        "http://svc.test",
        "id",
        "pacing-test-Secr3t-2c1d",
        transport=httpx.MockTransport(service),
        sleep=sleep,
        limiter=paced(clock),
    ) as client:
        for _ in range(7):
            await client.place_order(PlaceOrder(str(uuid.uuid4()), 1001, [OrderLine(FIXED_PRODUCT, 1, VALUE)]))
    assert sleeps[:5] == [pytest.approx(0.55)] * 5  # 500 ms and the limiter's margin
    assert all(later - earlier >= 0.5 for earlier, later in itertools.pairwise(sent))
    assert sent[6] - sent[0] >= 60


# --- the simulator's rule ---------------------------------------------------------------------


def test_simulator_limits_refuse_a_call_too_soon_and_a_seventh_order_of_a_product():
    clock = Clock()
    limits = PlaceOrderLimits(clock=clock)
    assert limits.admit("acme-sandbox", body(FIXED_PRODUCT)) is None
    clock.now += 0.2
    assert limits.admit("acme-sandbox", body(OTHER_PRODUCT)) == pytest.approx(0.3)
    assert limits.admit("other-sandbox", body(FIXED_PRODUCT)) is None  # per credential
    for _ in range(5):
        clock.now += 0.5
        assert limits.admit("acme-sandbox", body(FIXED_PRODUCT)) is None
    clock.now += 0.5
    assert limits.admit("acme-sandbox", body(FIXED_PRODUCT)) == pytest.approx(1000 + 60 - clock.now)
    assert limits.admit("acme-sandbox", body(OTHER_PRODUCT)) is None  # the refused call was not counted
    clock.now = 1000 + 60.5
    assert limits.admit("acme-sandbox", body(FIXED_PRODUCT)) is None


def test_simulator_answers_429_with_retry_after(sim_factory, demo_credentials):
    sim = sim_factory(place_limits=True)
    with httpx.Client(base_url=sim.base_url, auth=demo_credentials["acme-sandbox"].auth) as http:
        assert http.post(CHECKOUT, json=body(FIXED_PRODUCT)).status_code == 200
        refused = http.post(CHECKOUT, json=body(OTHER_PRODUCT))
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"


async def test_a_paced_client_never_trips_the_simulator(sim_factory, demo_credentials):
    sim = sim_factory(place_limits=True)
    credential = demo_credentials["acme-sandbox"]
    async with ServiceClient(sim.base_url, *credential.auth, retry=NO_RETRY, limiter=Limiter(DEFAULT_LIMITS)) as client:
        for product in (FIXED_PRODUCT, OTHER_PRODUCT, FIXED_PRODUCT):
            await client.place_order(PlaceOrder(str(uuid.uuid4()), 1001, [OrderLine(product, 1, VALUE)]))
    # The same burst without pacing is refused: the limit is real.
    unpaced = Limiter({**DEFAULT_LIMITS, PLACE_ORDER: Limit(100, 1.0), PLACE_ORDER_SPACING: Limit(100, 0.5)})
    async with ServiceClient(sim.base_url, *credential.auth, retry=NO_RETRY, limiter=unpaced) as client:
        with pytest.raises(RateLimitedError):
            for product in (FIXED_PRODUCT, OTHER_PRODUCT):
                await client.place_order(PlaceOrder(str(uuid.uuid4()), 1001, [OrderLine(product, 1, VALUE)]))
