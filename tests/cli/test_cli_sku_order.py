"""`giftdesk order place --sku SKU`: checkout by SKU under the money rules (DESIGN rule 9), against the
simulator over loopback: the audit's attempt and outcome, no second order on a retry, production's question."""

from __future__ import annotations

import uuid

import pytest
from click.testing import CliRunner
from env_profile import use_credential

from tui.cli import main
from tui.local.storage import ATTEMPT, audit_log

SKU = "SIM-201"  # the showcase payout product (USD, 1-2000), by its SKU


def giftdesk(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


@pytest.fixture
def sandbox(monkeypatch, sim, demo_credentials) -> None:
    use_credential(monkeypatch, sim, demo_credentials["acme-sandbox"])


def test_an_order_by_sku_is_audited_before_and_after_and_get_order_finds_it(sandbox):
    request_id = str(uuid.uuid4())
    args = ["order", "place", "--account", "1001", "--sku", SKU, "--value", "7", "--request-id", request_id]
    placed = giftdesk(*args)
    assert placed.exit_code == 0 and placed.stdout.strip() == request_id, placed.stderr
    lines = [entry for entry in reversed(audit_log().entries()) if entry.subject == request_id]  # oldest first
    assert [line.outcome for line in lines] == [ATTEMPT, "placed"]
    assert f"SKU {SKU}" in (lines[0].detail or "")
    assert giftdesk("order", "show", request_id).exit_code == 0

    again = giftdesk(*args)  # the same RequestId: the order found, no second one made
    assert again.exit_code == 3 and "exists already" in again.stderr, again.stderr
    shown = giftdesk("order", "show", request_id, "--json")
    assert shown.stdout.count('"productId"') == 1


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--sku", SKU, "--product", "201"], "one of them"),
        ([], "one of them"),
        (["--sku", "SIM 201"], "is not a SKU"),
    ],
)
def test_sku_and_product_go_one_at_a_time(sandbox, args, said):
    result = giftdesk("order", "place", "--account", "1001", "--value", "5", *args)
    assert result.exit_code == 2 and said in result.stderr, result.stderr


def test_production_asks_for_the_total_naming_the_sku(monkeypatch, sim, demo_credentials):
    use_credential(monkeypatch, sim, demo_credentials["acme-production"])
    request_id = str(uuid.uuid4())
    args = ["order", "place", "--account", "2001", "--sku", SKU, "--value", "12.5", "--quantity", "2"]
    refused = giftdesk(*args, "--request-id", request_id, input="production\n")
    assert refused.exit_code == 2 and "not confirmed; nothing was sent" in refused.stderr
    assert f"{SKU} Giftdesk USD Payout" in refused.stderr and "12.50 USD x 2 = 25.00 USD" in refused.stderr
    assert giftdesk("order", "show", request_id).exit_code == 3
    confirmed = giftdesk(*args, "--request-id", request_id, input="25.00\n")
    assert confirmed.exit_code == 0 and confirmed.stdout.strip() == request_id, confirmed.stderr


def test_an_unknown_sku_in_production_is_bad_input_before_the_question(monkeypatch, sim, demo_credentials):
    use_credential(monkeypatch, sim, demo_credentials["acme-production"])
    result = giftdesk("order", "place", "--account", "2001", "--sku", "SIM-999999", "--value", "5")
    assert result.exit_code == 2 and "no product SIM-999999" in result.stderr and "Type" not in result.stderr


SKU_CHECKOUT = b"/api/integration/v2.0/orders/checkout"
ACCOUNTS = b"/api/integration/v1.0/accounts"


def seed_where_first_sku_checkout_drops() -> int:
    """A seed under which, at drop=0.5, the first checkout by SKU is dropped after the service handled it,
    the next two are answered, and so are the first two Get accounts."""
    from tui.simulator.faults import fault_draws

    for seed in range(1000):
        checkouts = [fault_draws(seed, "POST", SKU_CHECKOUT, n)[2] for n in range(3)]
        accounts = [fault_draws(seed, "GET", ACCOUNTS, n)[2] for n in range(2)]
        if checkouts[0] < 0.5 <= min(checkouts[1:]) and min(accounts) >= 0.5:
            return seed
    raise AssertionError("no such seed")


def test_a_retry_by_sku_after_a_lost_answer_finds_its_order_and_makes_no_second(sim_factory, monkeypatch):
    sim = sim_factory(faults="drop=0.5", seed=seed_where_first_sku_checkout_drops())
    from tui.simulator import demo_credential

    use_credential(monkeypatch, sim, demo_credential("acme-sandbox"))
    request_id = str(uuid.uuid4())
    result = giftdesk("order", "place", "--account", "1001", "--sku", SKU, "--value", "9", "--request-id", request_id)
    assert result.exit_code == 0 and result.stdout.strip() == request_id, result.stderr
    assert "No second order was made" in result.stderr
    lines = [entry for entry in reversed(audit_log().entries()) if entry.subject == request_id]
    assert [line.outcome.split(";")[0] for line in lines] == [ATTEMPT, "placed (found after a lost answer)"]
