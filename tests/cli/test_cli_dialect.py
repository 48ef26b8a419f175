"""The commands against a service that speaks the real provider's dialect (the simulator's default),
as a new user would meet it: the first contact of issue 25, command by command."""

from __future__ import annotations

import json
import uuid

import httpx
import test_cli
from dialect_cases import TRANSACTION

from tui.api import wire_json
from tui.api.errors import REASONS

giftdesk, use_sim, fake_service = test_cli.giftdesk, test_cli.use_sim, test_cli.fake_service  # the fixtures


def test_transactions_read_money_objects_and_the_csv_sums(giftdesk, use_sim):
    placed = giftdesk("order", "place", "--account", "1001", "--product", "501", "--value", "20")
    assert placed.exit_code == 0, placed.stderr
    result = giftdesk("transactions", "--from", "today", "--account", "1001", "--csv")
    assert result.exit_code == 0, result.stderr
    header, *rows = result.stdout.splitlines()
    assert header.startswith("DATE,TYPE,AMOUNT,BALANCE AFTER,CURRENCY")
    assert rows and all(row.split(",")[4] == "USD" for row in rows)
    float(rows[-1].split(",")[2])  # a plain number a spreadsheet sums


def test_catalog_v1_lists_brands_without_internal_id(giftdesk, use_sim):
    result = giftdesk("catalog", "--v1", "--json")
    assert result.exit_code == 0, result.stderr
    assert not any("internalId" in brand for brand in json.loads(result.stdout)["brands"])


def test_transactions_of_the_providers_documentation(giftdesk, fake_service):
    report = {
        "startDate": "2024-05-15",
        "endDate": "2024-05-15",
        "clients": [{"clientName": "acme", "transactions": [TRANSACTION]}],
    }
    fake_service(lambda request: httpx.Response(200, content=wire_json.dumps(report)))
    result = giftdesk("transactions", "--from", "2024-05-15", "--to", "2024-05-15", "--csv")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].split(",")[2:5] == ["-50.63", "99949.37", "USD"]


def test_notifications_get_reads_nulls(giftdesk, fake_service):
    fake_service(
        lambda request: httpx.Response(
            200, json={"notificationUrl": None, "notificationUrlSandbox": "https://x.test/sb", "secretKey": None}
        )
    )
    result = giftdesk("notifications", "get")
    assert result.exit_code == 0, result.stderr
    assert "https://x.test/sb" in result.stdout


def test_accounts_without_sandbox_mode_take_the_profiles_environment(giftdesk, fake_service):
    fake_service(
        lambda request: httpx.Response(
            200,
            json={
                "accounts": [
                    {"id": 7, "currency": "USD", "balance": {"value": 5.5, "currencyCode": "USD"}, "isActive": True}
                ]
            },
        )
    )
    result = giftdesk("accounts", "--csv")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1] == "7,USD,5.50,yes,sandbox"


def test_a_truly_malformed_answer_is_exit_5_naming_the_field(giftdesk, fake_service):
    fake_service(
        lambda request: httpx.Response(
            200, json={"accounts": [{"id": 7, "currency": "USD", "isActive": True, "balance": {"currencyCode": "USD"}}]}
        )
    )
    result = giftdesk("accounts")
    assert result.exit_code == 5 and "balance" in result.stderr


def test_a_request_id_that_is_not_a_guid_is_refused_before_sending(giftdesk, fake_service):
    sent = fake_service(lambda request: httpx.Response(200, json="not-a-guid"))
    result = giftdesk(
        "order",
        "place",
        "--account",
        "1001",
        "--product",
        "101",
        "--value",
        "25",
        "--request-id",
        "not-a-guid",
        "--yes",
    )
    assert result.exit_code == 2 and "must be a GUID" in result.stderr
    assert sent == []


def test_order_place_makes_a_guid(giftdesk, use_sim):
    result = giftdesk("order", "place", "--account", "1001", "--product", "101", "--value", "25")
    assert result.exit_code == 0, result.stderr
    assert str(uuid.UUID(result.stdout.strip())) == result.stdout.strip()


def test_an_unknown_order_is_no_order_in_the_environment(giftdesk, use_sim):
    result = giftdesk("order", "show", str(uuid.uuid4()))  # the simulator answers 400 OrderNotFound, as the provider
    assert result.exit_code == 3
    assert result.stderr.splitlines()[0] == "no order with this RequestId in sandbox"


def test_a_refusal_with_a_reason_code_says_what_happened_and_what_to_do(giftdesk, use_sim):
    result = giftdesk("order", "place", "--account", "1003", "--product", "102", "--value", "500")  # 25 GBP account
    assert result.exit_code == 3
    what, to_do = REASONS["InsufficientBalance"]
    assert f"{what} (InsufficientBalance)" in result.stderr and f"hint: {to_do}" in result.stderr


def test_403_is_exit_4_with_the_services_text(giftdesk, use_sim):
    use_sim("acme-catalog-only")
    result = giftdesk("accounts")
    assert result.exit_code == 4
    assert "no access to this resource (403): The client does not have access to this resource." in result.stderr
    assert giftdesk("catalog", "--page-size", "5").exit_code == 0  # what it may use still works


def test_the_services_403_text_is_shown_never_obeyed(giftdesk, fake_service):
    fake_service(lambda request: httpx.Response(403, json={"error": "denied \x1b]52;c;aGk=\x07"}))
    result = giftdesk("accounts")
    assert result.exit_code == 4 and "\x1b" not in result.stderr and "\x07" not in result.stderr
