"""A payout watched before it is redeemed (issue 35, break 3), the natural move right after selling a
payout card: `giftdesk watch --payout` says "Issued, not redeemed", not final, and moves on when the
redeem makes the payout known; it never ends as "Refused, final: Payout not found"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from test_money_faults import payout_cards

from tui.core.watching import NOT_REDEEMED
from tui.simulator import demo_credential

GIFTDESK = str(Path(sys.executable).parent / "giftdesk")


def test_a_payout_watched_before_its_redeem_is_issued_not_redeemed_then_moves_on(sim):
    card = payout_cards(sim, "acme-sandbox", 1001)[0]
    credential = demo_credential("acme-sandbox")
    env = {
        **os.environ,
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": credential.client_id,
        "GIFTDESK_CLIENT_SECRET": credential.client_secret,
    }
    watch = subprocess.Popen(
        [GIFTDESK, "watch", "--payout", card, "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert watch.stdout is not None
        first = json.loads(watch.stdout.readline())
        assert first["status"] == NOT_REDEEMED and first["final"] is False, first

        redeem = [GIFTDESK, "payout", "redeem", card, "--wallet", "PayPal", "--email", "ann@example.com", "--yes"]
        redeemed = subprocess.run(redeem, env=env, capture_output=True, text=True, timeout=60)
        assert redeemed.returncode == 0, redeemed.stderr

        moved = json.loads(watch.stdout.readline())  # the slow look comes within its first wait (5 s)
        assert moved["status"] not in (NOT_REDEEMED, "Refused"), moved
        assert "transactionId" in moved
    finally:
        watch.kill()
        watch.communicate(timeout=30)
