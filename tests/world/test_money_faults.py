"""The money rules under faults (issue 24, items 1-3; DESIGN rule 9), against the simulator over loopback:
a drop after sending, an environment that is not the profile's, signals and kill -9 in the middle of a write.

The command line runs in-process (click's runner) except where a signal is sent: there it is a real
`python -m tui` process, and the audit log is read afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from tui.cli import main
from tui.local.storage import ATTEMPT, AuditLog
from tui.simulator import TIMING_PRESETS, demo_credential
from tui.simulator.faults import fault_draws

CHECKOUT = b"/api/integration/v1.0/orders/checkout"
ACCOUNTS = b"/api/integration/v1.0/accounts"
PAYOUT_PRODUCT = 201
PLAIN_PRODUCT = 101  # Acme Books $25, fixed
REPO = Path(__file__).resolve().parents[2]


def giftdesk(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def use(monkeypatch, sim, credential: str, environment: str | None = None) -> None:
    """The environment's profile on `sim` as `credential`; GIFTDESK_ENVIRONMENT only when given (default: sandbox)."""
    cred = demo_credential(credential)
    monkeypatch.setenv("GIFTDESK_BASE_URL", sim.base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", cred.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", cred.client_secret)
    if environment is not None:
        monkeypatch.setenv("GIFTDESK_ENVIRONMENT", environment)


def audit_lines(tmp_path: Path) -> list[dict]:
    path = tmp_path / "data" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def seed_where_first_checkout_drops() -> int:
    """A seed under which, at drop=0.5, the first checkout is dropped after the service handled it,
    the next two are answered, and so are the first two Get accounts."""
    for seed in range(1000):
        checkouts = [fault_draws(seed, "POST", CHECKOUT, n)[2] for n in range(3)]
        accounts = [fault_draws(seed, "GET", ACCOUNTS, n)[2] for n in range(2)]
        if checkouts[0] < 0.5 <= min(checkouts[1:]) and min(accounts) >= 0.5:
            return seed
    raise AssertionError("no such seed")


# --- item 1: a retry that meets OrderAlreadyExists -------------------------------------


def test_a_retry_that_meets_order_already_exists_reports_the_order_it_placed(sim_factory, monkeypatch, tmp_path):
    sim = sim_factory(faults="drop=0.5", seed=seed_where_first_checkout_drops())
    use(monkeypatch, sim, "acme-sandbox")
    request_id = str(uuid.uuid4())
    args = [
        "order",
        "place",
        "--account",
        "1001",
        "--product",
        str(PLAIN_PRODUCT),
        "--value",
        "25",
        "--request-id",
        request_id,
    ]

    result = giftdesk(*args)

    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == request_id
    assert "new one" not in result.stderr and "No second order was made" in result.stderr
    lines = audit_lines(tmp_path)
    assert [line["outcome"].split(";")[0] for line in lines] == [ATTEMPT, "placed (found after a lost answer)"]
    assert all(line["environment"] == "sandbox" for line in lines)

    # The same command again (an operator unsure of the first): the order is reported as it is, never twice.
    again = giftdesk(*args)
    assert again.exit_code == 3
    assert "OrderAlreadyExists" in again.stderr.splitlines()
    assert "exists already" in again.stderr and f"giftdesk order show {request_id}" in again.stderr
    assert "new one" not in again.stderr
    assert audit_lines(tmp_path)[-1]["outcome"].startswith("already exists: placed before")


def test_already_exists_on_the_first_try_is_not_counted_as_this_command_s_order(sim, monkeypatch, tmp_path):
    use(monkeypatch, sim, "acme-sandbox")
    request_id = str(uuid.uuid4())
    args = [
        "order",
        "place",
        "--account",
        "1001",
        "--product",
        str(PLAIN_PRODUCT),
        "--value",
        "25",
        "--request-id",
        request_id,
    ]
    assert giftdesk(*args).exit_code == 0
    other_lines = [
        "order",
        "place",
        "--account",
        "1001",
        "--product",
        "102",
        "--value",
        "30",
        "--request-id",
        request_id,
    ]
    result = giftdesk(*other_lines)
    assert result.exit_code == 3 and "OrderAlreadyExists" in result.stderr.splitlines()
    assert "exists already (status " in result.stderr and "nothing new was placed" in result.stderr


# --- item 2: the accounts' environment against the profile's -------------------------


def test_live_credentials_with_the_environment_unset_place_nothing(sim, monkeypatch, tmp_path):
    use(monkeypatch, sim, "acme-production")  # GIFTDESK_ENVIRONMENT unset: sandbox assumed
    request_id = str(uuid.uuid4())
    result = giftdesk(
        "order",
        "place",
        "--account",
        "2001",
        "--product",
        str(PLAIN_PRODUCT),
        "--value",
        "25",
        "--request-id",
        request_id,
    )

    assert result.exit_code == 2
    assert "sandbox" in result.stderr.splitlines()[0] and "production" in result.stderr.splitlines()[0]
    assert "nothing was sent" in result.stderr
    order = httpx.get(
        f"{sim.base_url}/api/integration/v1.0/orders/{request_id}", auth=demo_credential("acme-production").auth
    )
    assert (order.status_code != 200 and "OrderNotFound" in order.text) or order.status_code == 404  # never placed
    [line] = audit_lines(tmp_path)
    assert line["environment"] == "production" and line["outcome"].startswith("refused before sending")


def test_live_credentials_with_the_environment_unset_redeem_nothing(sim, monkeypatch, tmp_path):
    cards = payout_cards(sim, "acme-production", 2001)
    use(monkeypatch, sim, "acme-production")
    result = giftdesk("payout", "redeem", cards[0], "--wallet", "PayPal", "--email", "ann@example.com")

    assert result.exit_code == 2
    assert "sandbox" in result.stderr and "production" in result.stderr
    assert sim.payouts_for(cards[0].rsplit("/", 1)[1]) == []
    [line] = audit_lines(tmp_path)
    assert line["environment"] == "production" and line["action"] == "redeem"


def test_an_account_of_the_other_environment_is_refused_by_name(sim, monkeypatch):
    use(monkeypatch, sim, "acme-sandbox", "sandbox")
    result = giftdesk("order", "place", "--account", "1090", "--product", str(PLAIN_PRODUCT), "--value", "25")
    assert result.exit_code == 2
    assert "account 1090 is production" in result.stderr and "'env' is sandbox" in result.stderr


def test_an_account_without_sandbox_mode_takes_the_profile_s_environment(monkeypatch, tmp_path):
    from functools import partial

    from tui.commands import runner

    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/accounts"):
            return httpx.Response(
                200, json={"accounts": [{"id": 7, "currency": "USD", "balance": 10, "isActive": True}]}
            )
        return httpx.Response(200, json=json.loads(request.content)["RequestId"])

    monkeypatch.setenv("GIFTDESK_BASE_URL", "http://svc.test")
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", "c")
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", "s")
    monkeypatch.setattr(runner, "build_client", partial(runner.build_client, transport=httpx.MockTransport(service)))
    result = giftdesk("order", "place", "--account", "7", "--product", "1", "--value", "5")
    assert result.exit_code == 0, result.stderr
    assert [line["outcome"] for line in audit_lines(tmp_path)] == [ATTEMPT, "placed"]


# --- item 3: signals and kill -9 while a write waits -------------------------------------


def payout_cards(sim, credential: str, account: int) -> list[str]:
    """A Sold payout card's code, placed over plain HTTP."""
    auth = demo_credential(credential).auth
    request_id = str(uuid.uuid4())
    body = {
        "RequestId": request_id,
        "AccountId": account,
        "Products": [{"ProductId": PAYOUT_PRODUCT, "Quantity": 1, "Value": 10}],
    }
    with httpx.Client(base_url=sim.base_url, auth=auth, timeout=30) as http:
        assert http.post("/api/integration/v1.0/orders/checkout", json=body).status_code == 200
        for _ in range(300):
            cards = http.get(f"/api/integration/v1.0/orders/{request_id}").json()["items"][0]["cards"]
            if cards and all(card["status"] == "Sold" for card in cards):
                return [card["cardCode"] for card in cards]
            time.sleep(0.05)
    raise AssertionError("the payout order did not reach Sold")


def start_command(sim, tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    cred = demo_credential("acme-sandbox")
    env = {
        **os.environ,
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": cred.client_id,
        "GIFTDESK_CLIENT_SECRET": cred.client_secret,
        "GIFTDESK_ENVIRONMENT": "sandbox",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tui", *args], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def wait_for_attempt(tmp_path: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(line["outcome"] == ATTEMPT for line in audit_lines(tmp_path)):
            time.sleep(0.3)  # the request is on its way
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError("no attempt line")


@pytest.fixture
def slow_redeem_sim(sim_factory):
    return sim_factory(timing=TIMING_PRESETS["fast"].replace(redeem_hold_seconds=4.0))


@pytest.mark.parametrize(
    "sent, code, words", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]
)
def test_a_redeem_ended_by_a_signal_leaves_outcome_unknown_and_the_check(slow_redeem_sim, tmp_path, sent, code, words):
    card = payout_cards(slow_redeem_sim, "acme-sandbox", 1001)[0]
    process = start_command(
        slow_redeem_sim, tmp_path, "payout", "redeem", card, "--wallet", "PayPal", "--email", "ann@example.com"
    )
    wait_for_attempt(tmp_path, process)
    process.send_signal(sent)
    _, stderr = process.communicate(timeout=30)

    assert process.returncode == code, stderr
    assert b"Traceback" not in stderr
    attempt, ending = audit_lines(tmp_path)
    assert attempt["outcome"] == ATTEMPT and "giftdesk payout status" in attempt["detail"]
    assert (
        ending["outcome"].startswith(f"outcome unknown: {words}")
        and "check: giftdesk payout status" in ending["outcome"]
    )
    assert card.rsplit("/", 1)[1] not in json.dumps([attempt, ending])  # the token stays secret


def test_a_place_order_ended_by_sigterm_leaves_outcome_unknown(sim_factory, tmp_path):
    sim = sim_factory(faults="latency=2s")
    request_id = str(uuid.uuid4())
    process = start_command(
        sim,
        tmp_path,
        "order",
        "place",
        "--account",
        "1001",
        "--product",
        str(PLAIN_PRODUCT),
        "--value",
        "25",
        "--request-id",
        request_id,
    )
    wait_for_attempt(tmp_path, process)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=30)

    assert process.returncode == 143
    ending = audit_lines(tmp_path)[-1]
    assert ending["outcome"] == f"outcome unknown: terminated (SIGTERM); check: giftdesk order show {request_id}"


def test_a_redeem_killed_outright_reads_back_as_outcome_unknown(slow_redeem_sim, tmp_path):
    card = payout_cards(slow_redeem_sim, "acme-sandbox", 1001)[0]
    process = start_command(
        slow_redeem_sim, tmp_path, "payout", "redeem", card, "--wallet", "PayPal", "--email", "ann@example.com"
    )
    wait_for_attempt(tmp_path, process)
    process.kill()
    process.communicate(timeout=30)

    [entry] = AuditLog(tmp_path / "data" / "audit.jsonl").entries()
    assert entry.outcome.startswith("outcome unknown") and "check: giftdesk payout status" in (entry.detail or "")


def test_accounts_that_cannot_be_read_stop_the_write_before_it_is_sent(monkeypatch, tmp_path):
    from functools import partial

    from tui.api.client import RetryPolicy
    from tui.commands import runner

    sent: list[str] = []

    def service(request: httpx.Request) -> httpx.Response:
        sent.append(request.method)
        return httpx.Response(503, json="down")

    async def no_wait(_seconds: float) -> None:
        pass

    monkeypatch.setenv("GIFTDESK_BASE_URL", "http://svc.test")
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", "c")
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", "s")
    monkeypatch.setattr(
        runner,
        "build_client",
        partial(
            runner.build_client, transport=httpx.MockTransport(service), sleep=no_wait, retry=RetryPolicy(attempts=2)
        ),
    )
    result = giftdesk("payout", "redeem", "tok123", "--wallet", "PayPal", "--email", "ann@example.com")
    assert result.exit_code == 5 and "nothing was sent" in result.stderr
    assert sent == ["GET", "GET"] and audit_lines(tmp_path) == []


@pytest.mark.parametrize(
    "body",
    [{"message": "OrderAlreadyExists"}, "OrderAlreadyExists", {"Message": " OrderAlreadyExists "}],
    ids=["object", "json-string", "spaced"],
)
def test_order_already_exists_is_recognised_in_every_body_shape(monkeypatch, tmp_path, body):
    from functools import partial

    from tui.commands import runner

    request_id = str(uuid.uuid4())
    checkouts: list[int] = []
    order = {
        "orderId": 1,
        "requestId": request_id,
        "status": "Succeeded",
        "total": 25,
        "currency": "USD",
        "items": [{"productId": 101, "productFaceValue": 25, "quantity": 1, "cards": []}],
    }

    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/accounts"):
            return httpx.Response(
                200,
                json={
                    "accounts": [{"id": 1001, "currency": "USD", "balance": 100, "isActive": True, "sandboxMode": True}]
                },
            )
        if request.method == "POST":
            checkouts.append(1)
            if len(checkouts) == 1:  # handled, then the connection dropped before the answer
                raise httpx.RemoteProtocolError("Server disconnected without sending a response.", request=request)
            return httpx.Response(400, json=body)
        return httpx.Response(200, json=order)

    async def no_wait(_seconds: float) -> None:
        pass

    monkeypatch.setenv("GIFTDESK_BASE_URL", "http://svc.test")
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", "c")
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", "s")
    monkeypatch.setattr(
        runner, "build_client", partial(runner.build_client, transport=httpx.MockTransport(service), sleep=no_wait)
    )
    result = giftdesk(
        "order", "place", "--account", "1001", "--product", "101", "--value", "25", "--request-id", request_id
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == request_id and len(checkouts) == 2
    assert audit_lines(tmp_path)[-1]["outcome"] == "placed (found after a lost answer); status Succeeded"
