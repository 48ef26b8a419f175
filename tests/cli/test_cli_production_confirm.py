"""The command line guards production as the TUI does (DESIGN rule 7): the typed confirmation asks the same
thing (an order's total face value, a redeem's recipient's last four), names the product and total, and
Ctrl-C at the question exits 130 with nothing sent. Against the real simulator over loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
from click.testing import CliRunner

from tui.cli import main

PAYOUT_PRODUCT = 201  # the simulator's showcase payout product (USD, 1-2000)


@pytest.fixture
def production_env(sim, demo_credentials, monkeypatch) -> dict[str, str]:
    credential = demo_credentials["acme-production"]
    env = {
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": credential.client_id,
        "GIFTDESK_CLIENT_SECRET": credential.client_secret,
        "GIFTDESK_ENVIRONMENT": "production",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def giftdesk(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def production_account() -> int:
    accounts = json.loads(giftdesk("accounts", "--json").stdout)["accounts"]
    return next(a["id"] for a in accounts if a["isActive"] and not a["sandboxMode"] and a["currency"] == "USD")


def place_args(account: int, request_id: str) -> list[str]:
    return [
        "order", "place", "--account", str(account), "--product", str(PAYOUT_PRODUCT),
        "--value", "12.5", "--quantity", "4", "--request-id", request_id,
    ]  # fmt: skip


def test_an_order_asks_for_its_total_and_names_the_product(production_env):
    account = production_account()
    request_id = str(uuid.uuid4())

    typed_production = giftdesk(*place_args(account, request_id), input="production\n")
    assert typed_production.exit_code == 2 and "not confirmed; nothing was sent" in typed_production.stderr
    assert "the total face value (the number only)" in typed_production.stderr
    assert "12.50 USD x 4 = 50.00 USD" in typed_production.stderr
    product_name = json.loads(giftdesk("catalog", "--product-id", str(PAYOUT_PRODUCT), "--json").stdout)["items"][0][
        "products"
    ][0]["name"]
    assert product_name in typed_production.stderr
    assert "RequestId:" not in typed_production.stderr  # nothing was sent, so no RequestId to keep
    assert giftdesk("order", "show", request_id).exit_code == 3

    confirmed = giftdesk(*place_args(account, request_id), input="50.00\n")
    assert confirmed.exit_code == 0, confirmed.stderr
    assert f"RequestId: {request_id}" in confirmed.stderr and confirmed.stdout.strip() == request_id


def test_an_unknown_product_is_bad_input_before_the_question(production_env):
    result = giftdesk("order", "place", "--account", str(production_account()), "--product", "999999", "--value", "5")
    assert result.exit_code == 2 and "no product 999999" in result.stderr and "Type" not in result.stderr


def sold_card_code(request_id: str) -> str:
    """The first card's code once the order is final (the simulator takes a moment)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        order = json.loads(giftdesk("order", "show", request_id, "--json", "--reveal").stdout)
        code = order["items"][0]["cards"][0].get("cardCode") if order["items"][0]["cards"] else None
        if code:
            return code
        time.sleep(0.2)
    raise AssertionError(f"order {request_id} never had a Sold card")


def test_a_redeem_asks_for_the_recipient_s_last_four(production_env):
    account = production_account()
    request_id = str(uuid.uuid4())
    assert giftdesk(*place_args(account, request_id), "--yes").exit_code == 0
    weblink = sold_card_code(request_id)
    args = ["payout", "redeem", weblink, "--wallet", "Venmo", "--handle", "@jane_doe"]

    typed_production = giftdesk(*args, input="production\n")
    assert typed_production.exit_code == 2 and "not confirmed; nothing was sent" in typed_production.stderr
    assert "the last four characters of the recipient's handle" in typed_production.stderr
    assert "jane_doe" not in typed_production.stderr  # the recipient stays masked (rule 6)

    confirmed = giftdesk(*args, input="_doe\n")
    assert confirmed.exit_code == 0, confirmed.stderr


def test_ctrl_c_at_the_question_exits_130_and_sends_nothing(production_env):
    account = production_account()
    request_id = str(uuid.uuid4())
    env = {**os.environ, **production_env}
    with subprocess.Popen(
        [sys.executable, "-m", "tui", *place_args(account, request_id)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stderr is not None
        asked = ""
        deadline = time.monotonic() + 60
        while "to go ahead" not in asked and time.monotonic() < deadline:
            asked += child.stderr.read(1)
        assert "to go ahead" in asked
        child.send_signal(signal.SIGINT)
        _, stderr = child.communicate(timeout=30)
    assert child.returncode == 130, stderr
    assert "interrupted" in stderr and "RequestId:" not in asked + stderr
    assert giftdesk("order", "show", request_id).exit_code == 3  # nothing was sent


def test_request_id_is_said_only_when_the_order_is_sent(sim, demo_credentials, monkeypatch):
    from tui.local.fileio import data_dir
    from tui.local.storage import AUDIT_FILE

    credential = demo_credentials["acme-sandbox"]
    monkeypatch.setenv("GIFTDESK_BASE_URL", sim.base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", credential.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", credential.client_secret)
    (data_dir() / AUDIT_FILE).mkdir(parents=True)  # the audit log cannot be written: the write is refused
    request_id = str(uuid.uuid4())
    args = ["order", "place", "--account", "1001", "--product", "102", "--value", "5", "--request-id", request_id]
    refused = giftdesk(*args)
    assert refused.exit_code != 0 and "nothing was sent" in refused.stderr
    assert "RequestId:" not in refused.stderr
    assert giftdesk("order", "show", request_id).exit_code == 3


def test_production_callbacks_ask_what_the_tui_asks(production_env):
    args = ["notifications", "set", "--sandbox-url", "https://hooks.example.com/sandbox"]
    refused = giftdesk(*args, input="production\n")
    assert refused.exit_code == 2 and "Type 'change production callbacks' to go ahead" in refused.stderr
    assert giftdesk(*args, input="change production callbacks\n").exit_code == 0
