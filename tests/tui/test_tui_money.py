"""The money rules on the Payout screen (issue 24, items 2-3): an environment the accounts contradict is
refused and said in place, nothing sent; a redeem cut off by giftdesk quitting leaves "outcome unknown"."""

from __future__ import annotations

import json

from apps import until
from test_tui_payout import (  # noqa: F401  (quick_polls: an autouse fixture shared with that module)
    fill,
    open_payout,
    payout_cards,
    quick_polls,
    redeem,
    token_of,
)

from tui.app import AppSettings, build_app
from tui.core.payout_flow import Phase
from tui.local.fileio import data_dir
from tui.local.profiles import demo_profile
from tui.simulator import TIMING_PRESETS, demo_credential

SIZE = (80, 24)


def audit_lines() -> list[dict]:
    path = data_dir() / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_live_credentials_in_a_sandbox_profile_redeem_nothing_and_say_why(sim):
    card = payout_cards(sim, credential="acme-production")[0]
    live = demo_credential("acme-production")
    profile = demo_profile("assumed-sandbox", "sandbox", sim.base_url, live.client_id, live.client_secret)
    app = build_app(AppSettings(profiles={profile.name: profile}, profile_name=profile.name))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, "PayPal", "email", "ann@example.com")
        await redeem(pilot, app)
        await until(pilot, lambda: "Nothing was sent" in str(screen.query_one("#payout-status").render()))
        advice = str(screen.query_one("#payout-advice").render())
        assert "sandbox" in advice and "production" in advice
        assert screen.flow.phase is Phase.EDITING  # not in doubt: nothing left
    assert sim.payouts_for(token_of(card)) == []
    [line] = audit_lines()
    assert line["environment"] == "production" and line["outcome"].startswith("refused before sending")


async def test_quitting_while_a_redeem_waits_leaves_outcome_unknown(sim_factory):
    sim = sim_factory(timing=TIMING_PRESETS["fast"].replace(redeem_hold_seconds=5.0))
    card = payout_cards(sim)[0]
    sandbox = demo_credential("acme-sandbox")
    profile = demo_profile("demo-sandbox", "sandbox", sim.base_url, sandbox.client_id, sandbox.client_secret)
    app = build_app(AppSettings(profiles={profile.name: profile}, profile_name=profile.name))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, "PayPal", "email", "ann@example.com")
        await redeem(pilot, app)
        await until(pilot, lambda: any(line["outcome"] == "attempt" for line in audit_lines()))
        await app.action_quit()
    attempt, ending = audit_lines()
    assert attempt["outcome"] == "attempt"
    assert (
        ending["outcome"].startswith("outcome unknown: cancelled")
        and "check: giftdesk payout status" in ending["outcome"]
    )
