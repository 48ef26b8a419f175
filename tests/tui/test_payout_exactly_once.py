"""Exactly one payout per weblink, whatever the network does (issue 7).

The simulator drops connections after handling requests and throttles with
429s at random (seeded); the screen's retries, the client's retries and
concurrent repeats must still leave one payout per weblink (`payouts_for`).
"""

from __future__ import annotations

import asyncio

import pytest
from apps import app_on
from apps import until as wait_until
from spec_cases import PAYPAL, VENMO
from test_tui_payout import (  # noqa: F401  (quick_polls: an autouse fixture shared with that module)
    fill,
    fresh_form,
    payout_cards,
    quick_polls,
    redeem,
    token_of,
)

from tui.api.client import RetryPolicy, ServiceClient
from tui.api.errors import ServiceError
from tui.api.models import RedeemRequest
from tui.core.payout_flow import Phase
from tui.simulator import demo_credential

FAULTS = "drop=0.2,429=0.2"
QUICK_RETRY = RetryPolicy(attempts=4, base_delay=0.05, max_delay=0.2)


# One card a test (three faulty runs with their own seeds): as one test it was the suite's longest.
@pytest.mark.parametrize(("seed", "wallet"), [(7, VENMO), (8, PAYPAL), (9, VENMO)])
async def test_the_screen_records_one_payout_per_weblink_through_faults(sim_factory, seed, wallet):
    sim = sim_factory(faults=FAULTS, seed=seed)
    (card,) = payout_cards(sim)
    app = app_on(sim, client_options={"retry": QUICK_RETRY})
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await fresh_form(app, pilot, card)
        await fill(pilot, screen, wallet, "email", "ann@example.com")
        for _ in range(3):  # the first redeem, then repeats: none may add a payout
            await redeem(pilot, app)
            for _ in range(20):  # settle whatever the faults left in doubt, the screen's way
                await wait_until(pilot, lambda: screen.flow.phase not in (Phase.SUBMITTING, Phase.CHECKING), timeout=20)
                if screen.flow.phase is Phase.RETRY_OFFERED:
                    await redeem(pilot, app)
                elif screen.flow.phase is Phase.UNKNOWN:
                    await pilot.press("s")
                    await pilot.pause(0.2)
                else:
                    break
    assert len(sim.payouts_for(token_of(card))) == 1


async def test_concurrent_and_retried_redeems_make_one_payout(sim_factory):
    sim = sim_factory(faults=FAULTS, seed=11)
    cards = payout_cards(sim, 3)
    cred = demo_credential("acme-sandbox")
    request = RedeemRequest(VENMO, recipient_handle="@ann_smith")
    async with ServiceClient(sim.base_url, cred.client_id, cred.client_secret, retry=QUICK_RETRY) as client:
        for card in cards:
            results = await asyncio.gather(
                *(client.redeem_payout(card, request) for _ in range(5)), return_exceptions=True
            )
            answered = [r for r in results if not isinstance(r, BaseException)]
            assert all(isinstance(r, ServiceError) for r in results if isinstance(r, BaseException))
            (payout,) = sim.payouts_for(token_of(card))
            assert {r.transaction_id for r in answered} <= {payout["transactionId"]}
