"""Money actions whose outcome is unknown are listed at the next start until checked (issue 35, break 9;
DESIGN rule 12): a `payout redeem` or an `order place` killed outright (kill -9) in flight, then a new
start: `giftdesk audit pending` names each with the command that checks it, and running that command
settles it."""

from __future__ import annotations

import json
import uuid

from apps import app_on, rendered, until
from test_money_faults import (
    PLAIN_PRODUCT,
    giftdesk,
    payout_cards,
    slow_redeem_sim,  # noqa: F401  (a fixture shared with that module)
    start_command,
    use,
    wait_for_attempt,
)


async def top_bar_at_a_new_start(sim) -> str:
    app = app_on(sim)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: "unknown" in rendered(app.screen, "ContextBar"), timeout=15)
        return rendered(app.screen, "ContextBar")


def pending() -> list[dict]:
    listed = giftdesk("audit", "pending", "--json")
    assert listed.exit_code == 0, listed.output
    return json.loads(listed.output)


def test_a_redeem_killed_in_flight_is_pending_until_its_status_is_checked(slow_redeem_sim, tmp_path, monkeypatch):  # noqa: F811
    card = payout_cards(slow_redeem_sim, "acme-sandbox", 1001)[0]
    process = start_command(
        slow_redeem_sim, tmp_path, "payout", "redeem", card, "--wallet", "PayPal", "--email", "ann@example.com"
    )
    wait_for_attempt(tmp_path, process)
    process.kill()
    process.communicate(timeout=30)

    [entry] = pending()  # the next start
    assert entry["action"] == "redeem" and entry["outcome"].startswith("outcome unknown")
    assert entry["check"].startswith("giftdesk payout status")
    assert card.rsplit("/", 1)[1] not in json.dumps(entry)  # the token stays secret
    said = giftdesk("audit", "pending")
    assert "1 money action(s) with an unknown outcome" in said.output and "check: giftdesk payout status" in said.output

    use(monkeypatch, slow_redeem_sim, "acme-sandbox")
    giftdesk("payout", "status", card)  # the check it names: a payout, or none yet
    assert pending() == []
    assert "no money action with an unknown outcome" in giftdesk("audit", "pending").output


async def test_an_order_place_killed_in_flight_is_pending_until_order_show(sim_factory, tmp_path, monkeypatch):
    sim = sim_factory(faults="latency=3s")
    request_id = str(uuid.uuid4())
    place = ["order", "place", "--account", "1001", "--product", str(PLAIN_PRODUCT), "--value", "25"]
    process = start_command(sim, tmp_path, *place, "--request-id", request_id)
    wait_for_attempt(tmp_path, process)
    process.kill()
    process.communicate(timeout=30)

    [entry] = pending()
    assert entry["subject"] == request_id and entry["check"] == f"giftdesk order show {request_id}"
    assert "⚠ 1 outcome(s) unknown: giftdesk audit pending" in await top_bar_at_a_new_start(sim)

    use(monkeypatch, sim, "acme-sandbox")
    giftdesk("order", "show", request_id, "--json")  # found, or not there: either way it is checked
    assert pending() == []
