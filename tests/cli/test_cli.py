"""The scriptable commands end to end: against the simulator over loopback, and
against a MockTransport where a failure must be precise. Exit codes as DESIGN says."""

from __future__ import annotations

import functools
import json
import re
import uuid

import httpx
import pytest
from click.testing import CliRunner
from spec_cases import PAYOUT_CASES, RECIPIENT_MISMATCH

from tui.api.client import RetryPolicy
from tui.cli import COMMANDS, main
from tui.commands import runner

real_build_client = runner.build_client

PAYOUT_PRODUCT = 201  # the simulator's showcase payout product (USD, 1-2000)
SANDBOX_ACCOUNT = 1001


@pytest.fixture
def giftdesk():
    """giftdesk(*args, input=None) -> click Result, with no stored profiles and no GIFTDESK_* set."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(main, list(args), input=input, catch_exceptions=False)

    return invoke


@pytest.fixture
def use_sim(monkeypatch, sim, demo_credentials):
    """Point the environment profile at the shared simulator as one of its demo clients."""

    def use(name: str = "acme-sandbox"):
        credential = demo_credentials[name]
        monkeypatch.setenv("GIFTDESK_BASE_URL", sim.base_url)
        monkeypatch.setenv("GIFTDESK_CLIENT_ID", credential.client_id)
        monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", credential.client_secret)
        monkeypatch.setenv("GIFTDESK_ENVIRONMENT", credential.environment)
        return credential

    use()
    return use


@pytest.fixture
def fake_service(monkeypatch):
    """fake_service(handler): commands talk to a MockTransport, retrying without waiting."""
    monkeypatch.setenv("GIFTDESK_BASE_URL", "http://svc.test")
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", "client-1")
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", "secret-1")
    requests: list[httpx.Request] = []

    def install(handler):
        def recording(request):
            requests.append(request)
            return handler(request)

        async def no_wait(_seconds):
            pass

        monkeypatch.setattr(
            runner,
            "build_client",
            functools.partial(
                real_build_client,
                sleep=no_wait,
                retry=RetryPolicy(attempts=3),
                transport=httpx.MockTransport(recording),
            ),
        )
        return requests

    return install


def place_order(giftdesk, product=PAYOUT_PRODUCT, value="50", *extra) -> str:
    result = giftdesk(
        "order", "place", "--account", str(SANDBOX_ACCOUNT), "--product", str(product), "--value", value, *extra
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


def order_json(giftdesk, request_id: str, *extra) -> dict:
    result = giftdesk("order", "show", request_id, "--json", *extra)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


# --- reads ----------------------------------------------------------------------------


def test_accounts_json_is_the_service_data(giftdesk, use_sim, sim, demo_credentials):
    result = giftdesk("accounts", "--json")
    assert result.exit_code == 0, result.stderr
    raw = httpx.get(f"{sim.base_url}/api/integration/v1.0/accounts", auth=demo_credentials["acme-sandbox"].auth)
    assert json.loads(result.stdout) == raw.json()


def test_accounts_table(giftdesk, use_sim):
    result = giftdesk("accounts")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].split() == ["ID", "CURRENCY", "BALANCE", "ACTIVE", "ENVIRONMENT"]
    assert re.search(r"^1001\s+USD\s+[\d,]+\.\d\d\s+yes\s+sandbox$", result.stdout, re.MULTILINE)


def test_money_has_the_currency_s_own_decimals(giftdesk, use_sim):
    use_sim("acme-production")
    result = giftdesk("accounts")
    assert re.search(r"^2004\s+JPY\s+500,000\s+no\s+production$", result.stdout, re.MULTILINE)  # no ".00" for yen


def test_catalog_flags_become_the_wire_parameters(giftdesk, fake_service):
    requests = fake_service(
        lambda request: httpx.Response(200, json={"pageIndex": 2, "pageSize": 5, "count": 0, "items": []})
    )
    result = giftdesk(
        "catalog",
        "--country",
        "GB",
        "--currency",
        "GBP",
        "--name",
        "Tea",
        "--brand-id",
        "4",
        "--product-id",
        "501",
        "--modified-since",
        "2024-01-31",
        "--target-currency",
        "EUR",
        "--page",
        "2",
        "--page-size",
        "5",
    )
    assert result.exit_code == 0, result.stderr
    assert dict(requests[0].url.params) == {
        "CountryCode": "GB",
        "CurrencyCode": "GBP",
        "Name": "Tea",
        "BrandId": "4",
        "ProductId": "501",
        "ModifiedDate": "2024-01-31",
        "TargetCurrency": "EUR",
        "PageIndex": "2",
        "PageSize": "5",
    }


def test_catalog_all_walks_every_page(giftdesk, use_sim):
    first = json.loads(giftdesk("catalog", "--json", "--page-size", "40").stdout)
    result = giftdesk("catalog", "--all", "--json", "--page-size", "40")
    assert result.exit_code == 0, result.stderr
    everything = json.loads(result.stdout)
    assert everything["count"] == first["count"] == len(everything["items"]) > 40
    assert len({brand["internalId"] for brand in everything["items"]}) == first["count"]


def test_catalog_v1(giftdesk, use_sim):
    result = giftdesk("catalog", "--v1", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["brands"]
    assert giftdesk("catalog", "--v1", "--country", "GB").exit_code == 2


def test_catalog_table_shows_stock(giftdesk, use_sim):
    result = giftdesk("catalog", "--country", "GB")
    assert result.exit_code == 0
    assert "STOCK" in result.stdout and "brands match" in result.stderr


# --- orders ---------------------------------------------------------------------------


def test_place_then_watch_an_order_until_final(giftdesk, use_sim):
    request_id = place_order(giftdesk, 201, "50", "--quantity", "2")
    uuid.UUID(request_id)  # a generated RequestId
    result = giftdesk("order", "show", request_id, "--watch", "--interval", "0.2", "--json")
    assert result.exit_code == 0, result.stderr
    order = json.loads(result.stdout)
    assert order["requestId"] == request_id and order["status"] == "Succeeded"
    assert sum(len(item["cards"]) for item in order["items"]) == 2


def test_order_table_masks_codes_unless_revealed(giftdesk, use_sim):
    request_id = place_order(giftdesk)
    order = order_json(giftdesk, request_id, "--watch", "--interval", "0.2", "--reveal")
    code = order["items"][0]["cards"][0]["cardCode"]
    masked = giftdesk("order", "show", request_id)
    assert code not in masked.stdout and "(payout)" in masked.stdout
    assert code in giftdesk("order", "show", request_id, "--reveal").stdout


def test_a_reused_request_id_is_refused(giftdesk, use_sim):
    request_id = str(uuid.uuid4())
    place_order(giftdesk, 201, "20", "--request-id", request_id)
    result = giftdesk(
        "order", "place", "--account", "1001", "--product", "201", "--value", "20", "--request-id", request_id
    )
    assert result.exit_code == 3
    assert "OrderAlreadyExists" in result.stderr


def test_unknown_order_is_refused(giftdesk, use_sim):
    result = giftdesk("order", "show", f"missing-{uuid.uuid4()}")
    assert result.exit_code == 3 and result.stderr


# --- payouts --------------------------------------------------------------------------


def _check_args(body: dict) -> list[str]:
    args = ["--wallet", body["wallet"]] if body.get("wallet") is not None else []
    for field, option in (
        ("recipientEmail", "--email"),
        ("recipientPhone", "--phone"),
        ("recipientHandle", "--handle"),
    ):
        if body.get(field) is not None:
            args += [option, body[field]]
    return args


@pytest.mark.parametrize("case", [case for case in PAYOUT_CASES if case.body is not None], ids=lambda c: c.name)
def test_payout_check_answers_with_the_spec_text(giftdesk, case):
    result = giftdesk("payout", "check", *_check_args(case.body))
    if case.error is None:
        assert result.exit_code == 0 and result.stdout.startswith("valid")
    else:
        assert result.exit_code == 2
        assert result.stderr.splitlines()[0] == case.error


def test_redeem_then_status_and_a_second_recipient_is_refused(giftdesk, use_sim, sim):
    order = order_json(giftdesk, place_order(giftdesk), "--watch", "--interval", "0.2", "--reveal")
    code = order["items"][0]["cards"][0]["cardCode"]
    redeemed = giftdesk("payout", "redeem", code, "--wallet", "PayPal", "--email", "ann@example.com", "--json")
    assert redeemed.exit_code == 0, redeemed.stderr
    result = json.loads(redeemed.stdout)
    assert set(result) >= {"transactionId", "payoutBatchId", "isProcessing"}

    status = giftdesk("payout", "status", code, "--watch", "--interval", "0.2", "--json")
    assert status.exit_code == 0, status.stderr
    assert json.loads(status.stdout)["status"] == "Completed"

    again = giftdesk("payout", "redeem", code, "--wallet", "PayPal", "--email", "ann@example.com", "--json")
    assert json.loads(again.stdout)["transactionId"] == result["transactionId"]  # spec rule 6
    other = giftdesk("payout", "redeem", code, "--wallet", "PayPal", "--email", "bob@example.com")
    assert other.exit_code == 3 and other.stderr.splitlines()[0] == RECIPIENT_MISMATCH
    assert code.rsplit("/", 1)[1] not in other.stderr


def test_redeem_validates_locally_before_sending(giftdesk, fake_service):
    requests = fake_service(lambda request: httpx.Response(500))
    result = giftdesk("payout", "redeem", "tok%3D", "--wallet", "Venmo", "--phone", "12")
    assert result.exit_code == 2 and result.stderr.splitlines()[0] == "Invalid recipient phone number."
    assert requests == []


SANDBOX_ACCOUNTS = {"accounts": [{"id": 1, "currency": "USD", "balance": 10, "isActive": True, "sandboxMode": True}]}


def test_redeem_sends_the_token_exactly(giftdesk, fake_service):
    requests = fake_service(
        lambda request: (
            httpx.Response(200, json=SANDBOX_ACCOUNTS)
            if request.method == "GET"
            else httpx.Response(200, json={"transactionId": "t", "payoutBatchId": "b", "isProcessing": False})
        )
    )
    result = giftdesk(
        "payout", "redeem", "https://pay.example.test/payout/abc12==", "--wallet", "Venmo", "--handle", "@ann_smith"
    )
    assert result.exit_code == 0, result.stderr
    assert [request.method for request in requests] == ["GET", "POST"]  # the accounts' environment first
    assert requests[1].url.raw_path == b"/api/Integration/v2/payout/redeem/abc12%3D%3D"
    assert "HTTP 200: completed" in result.stdout


# --- notifications --------------------------------------------------------------------


def test_notifications_set_and_read_back(giftdesk, use_sim, monkeypatch):
    use_sim("other-sandbox")  # a client of its own: the shared simulator's acme stays untouched
    monkeypatch.setenv("CB_SECRET", "cb-secret-123")
    result = giftdesk(
        "notifications",
        "set",
        "--url",
        "https://hooks.example.test/cb",
        "--sandbox-url",
        "http://127.0.0.1:9/cb",
        "--secret-env",
        "CB_SECRET",
    )
    assert result.exit_code == 0, result.stderr
    assert "cb-secret-123" not in result.stdout
    stored = json.loads(giftdesk("notifications", "get", "--json").stdout)
    assert stored == {
        "notificationUrl": "https://hooks.example.test/cb",
        "notificationUrlSandbox": "http://127.0.0.1:9/cb",
        "secretKey": "cb-secret-123",
    }


@pytest.mark.parametrize(
    "args",
    [
        ["--url", "http://hooks.example.test/cb"],
        ["--sandbox-url", "ftp://x"],
        ["--secret-env", "GIFTDESK_TEST_UNSET_VARIABLE"],
    ],
)
def test_notifications_set_checks_its_input_first(giftdesk, fake_service, args):
    requests = fake_service(lambda request: httpx.Response(500))
    result = giftdesk("notifications", "set", *args)
    assert result.exit_code == 2 and requests == []


def test_notifications_read_back_mismatch_is_an_error(giftdesk, fake_service):
    stale = {"notificationUrl": "", "notificationUrlSandbox": "", "secretKey": ""}
    fake_service(lambda request: httpx.Response(200, json=stale))
    result = giftdesk("notifications", "set", "--url", "https://hooks.example.test/cb")
    assert result.exit_code == 5 and "different" in result.stderr


# --- guarded writes -------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["order", "place", "--account", "1001", "--product", "201", "--value", "10"],
        ["payout", "redeem", "tok%3D", "--wallet", "PayPal", "--email", "ann@example.com"],
        ["notifications", "set", "--url", ""],
    ],
)
def test_writes_are_refused_under_readonly(giftdesk, fake_service, args):
    requests = fake_service(
        lambda request: httpx.Response(200, json={"notificationUrl": "", "notificationUrlSandbox": "", "secretKey": ""})
    )
    for flags in (["--readonly", *args], [*args, "--readonly"]):
        result = giftdesk(*flags)
        assert result.exit_code == 2 and "read-only" in result.stderr
    assert all(request.method == "GET" for request in requests)


def test_production_writes_need_a_typed_confirmation(giftdesk, use_sim):
    use_sim("acme-production")
    accounts = json.loads(giftdesk("accounts", "--json").stdout)["accounts"]
    account = next(a["id"] for a in accounts if a["isActive"] and not a["sandboxMode"])
    args = ["order", "place", "--account", str(account), "--product", "201", "--value", "10"]

    declined = giftdesk(*args, input="yes\n")
    assert declined.exit_code == 2 and "not confirmed" in declined.stderr and declined.stdout == ""
    confirmed = giftdesk(*args, input="10.00\n")  # the total face value, as the TUI asks
    assert confirmed.exit_code == 0, confirmed.stderr
    assert giftdesk(*args, "--yes").exit_code == 0


# --- exit codes for failures ----------------------------------------------------------


def test_wrong_credentials_exit_4(giftdesk, use_sim, monkeypatch):
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", "not-the-secret")
    result = giftdesk("accounts")
    assert result.exit_code == 4 and "not-the-secret" not in result.stderr


@pytest.mark.parametrize("answer", [httpx.Response(503), httpx.Response(429), httpx.ConnectError("refused")])
def test_unreachable_or_failing_service_exits_5_after_retries(giftdesk, fake_service, answer):
    def handler(request):
        if isinstance(answer, Exception):
            raise answer
        return answer

    requests = fake_service(handler)
    result = giftdesk("order", "show", "req-1")
    assert result.exit_code == 5 and len(requests) == 3
    assert "retrying" in result.stderr


def test_no_profile_is_a_clear_usage_error(giftdesk):
    result = giftdesk("accounts")
    assert result.exit_code == 2 and "--demo" in result.stderr


def test_demo_and_profile_together_is_a_usage_error(giftdesk):
    assert giftdesk("accounts", "--demo", "--profile", "x").exit_code == 2


def test_demo_runs_its_own_simulator(giftdesk):
    result = giftdesk("--demo", "accounts", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["accounts"]


# --- help -----------------------------------------------------------------------------


def test_root_help_lists_every_command_and_the_exit_codes(giftdesk):
    result = giftdesk("--help")
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.stdout
    assert "Exit codes" in result.stdout


@pytest.mark.parametrize(
    "args, options",
    [
        (["accounts"], ["--profile", "--demo", "--json", "--debug"]),
        (
            ["catalog"],
            [
                "--country",
                "--currency",
                "--name",
                "--brand-id",
                "--product-id",
                "--modified-since",
                "--target-currency",
                "--page",
                "--page-size",
                "--all",
                "--v1",
                "--json",
            ],
        ),
        (["order", "show"], ["--watch", "--json", "--reveal"]),
        (["order", "place"], ["--account", "--product", "--value", "--quantity", "--request-id", "--yes"]),
        (["payout", "check"], ["--wallet", "--email", "--phone", "--handle"]),
        (["payout", "redeem"], ["--wallet", "--email", "--phone", "--handle", "--yes", "--json"]),
        (["payout", "status"], ["--watch", "--json"]),
        (["notifications", "get"], ["--json"]),
        (["notifications", "set"], ["--url", "--sandbox-url", "--secret-env", "--yes"]),
    ],
)
def test_each_command_help_names_its_options(giftdesk, args, options):
    result = giftdesk(*args, "--help")
    assert result.exit_code == 0
    for option in options:
        assert option in result.stdout


def test_writes_are_audited_with_masked_values(giftdesk, use_sim, tmp_path):
    from tui.local.storage import AuditLog

    order = order_json(giftdesk, place_order(giftdesk), "--watch", "--interval", "0.2", "--reveal")
    code = order["items"][0]["cards"][0]["cardCode"]
    giftdesk("payout", "redeem", code, "--wallet", "PayPal", "--email", "carol@example.com")
    entries = AuditLog(tmp_path / "data" / "audit.jsonl").entries()
    assert [(entry.action, entry.outcome) for entry in entries] == [
        ("redeem", "completed"),
        ("redeem", "attempt"),
        ("place-order", "placed"),
        ("place-order", "attempt"),
    ]
    assert all(entry.profile == "env" and entry.environment == "sandbox" for entry in entries)
    stored = (tmp_path / "data" / "audit.jsonl").read_text()
    assert code.rsplit("/", 1)[1] not in stored and "carol@example.com" not in stored
