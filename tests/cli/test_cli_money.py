"""giftdesk transactions, giftdesk rates, and --csv on accounts and catalog, end to end
against the simulator (and MockTransport where the wire's exact digits matter)."""

from __future__ import annotations

import csv
import io
import json
import uuid
from datetime import date

import httpx
import pytest
from click.testing import CliRunner
from money_cases import TRANSACTIONS_ANSWER

from tui.cli import main
from tui.commands import runner

real_build_client = runner.build_client


@pytest.fixture
def giftdesk():
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, list(args), catch_exceptions=False)

    return invoke


def point_at(monkeypatch, base_url: str, client_id: str, secret: str) -> None:
    monkeypatch.setenv("GIFTDESK_BASE_URL", base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", secret)


@pytest.fixture
def own_sim(monkeypatch, sim_factory, demo_credentials):
    """A simulator of the test's own (balances as seeded), as acme sandbox."""
    sim = sim_factory()
    credential = demo_credentials["acme-sandbox"]
    point_at(monkeypatch, sim.base_url, credential.client_id, credential.client_secret)
    return sim


def place(giftdesk, account: int, product: int, value: str, quantity: int = 1) -> str:
    request_id = str(uuid.uuid4())
    result = giftdesk(
        "order",
        "place",
        "--account",
        str(account),
        "--product",
        str(product),
        "--value",
        value,
        "--quantity",
        str(quantity),
        "--request-id",
        request_id,
    )
    assert result.exit_code == 0, result.stderr
    return request_id


def test_transactions_table_with_balance_after_and_reconciliation(giftdesk, own_sim):
    first = place(giftdesk, 1001, 101, "25", 2)
    second = place(giftdesk, 1001, 501, "20")  # GBP 20 on the USD account: 25.32 USD
    place(giftdesk, 1002, 601, "10")
    result = giftdesk("transactions", "--from", "today", "--account", "1001")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "DATE",
        "TYPE",
        "AMOUNT",
        "BALANCE",
        "AFTER",
        "CURRENCY",
        "ORDER",
        "REQUEST",
        "ID",
        "TRANSACTION",
    ]
    assert [[*line.split()[3:6], line.split()[9]] for line in lines[2:]] == [  # the date is two words
        ["-50.00", "USD", "99,950.00", first],
        ["-25.32", "USD", "99,924.68", second],
    ]
    assert (
        "USD: 2 transactions, balance 100,000.00 USD → 99,924.68 USD (−75.32 USD): every balance change matches"
        in result.stderr
    )


def test_transactions_csv_is_exact_and_parses(giftdesk, own_sim):
    request_id = place(giftdesk, 1002, 501, "20", 3)  # GBP on the EUR account
    result = giftdesk("transactions", "--from", "7d", "--to", "today", "--csv")
    assert result.exit_code == 0, result.stderr
    [header, row] = list(csv.reader(io.StringIO(result.stdout)))
    record = dict(zip(header, row, strict=True))
    assert record["AMOUNT"] == "-69.87" and record["BALANCE AFTER"] == "49930.13"  # 60 × 1.164557 = 69.87342
    assert record["CURRENCY"] == "EUR" and record["REQUEST ID"] == request_id
    assert record["TRANSACTION"] == record["TRANSACTION"].strip()


def test_transactions_json_is_the_wire_answer_exactly(giftdesk, monkeypatch):
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=TRANSACTIONS_ANSWER.encode())

    point_at(monkeypatch, "http://svc.test", "client-1", "secret-1")
    monkeypatch.setattr(
        runner, "build_client", lambda profile, **kw: real_build_client(profile, transport=httpx.MockTransport(answer))
    )
    result = giftdesk("transactions", "--from", "2026-11-01", "--to", "2026-11-02", "--json")
    assert result.exit_code == 0, result.stderr
    assert dict(seen[0].url.params) == {"startDate": "2026-11-01", "endDate": "2026-11-02"}
    assert json.loads(result.stdout) == json.loads(TRANSACTIONS_ANSWER)
    assert '"value": 1000.10' in result.stdout and '"transactionId": "T123456   "' in result.stdout


def test_an_unknown_account_and_bad_days_are_bad_input(giftdesk, own_sim):
    unknown = giftdesk("transactions", "--from", "today", "--account", "4242")
    assert unknown.exit_code == 2 and "no account 4242" in unknown.stderr
    swapped = giftdesk("transactions", "--from", "today", "--to", "3d")
    assert swapped.exit_code == 2 and "swap --from and --to" in swapped.stderr
    both = giftdesk("transactions", "--from", "today", "--json", "--csv")
    assert both.exit_code == 2 and "either --json or --csv" in both.stderr


def test_no_transactions_says_so(giftdesk, own_sim):
    result = giftdesk("transactions", "--from", "yesterday", "--to", "yesterday")
    assert result.exit_code == 0 and result.stdout == ""
    yesterday = date.fromordinal(date.today().toordinal() - 1)
    assert f"no transactions from {yesterday} to {yesterday}" in result.stderr


def test_rates_three_ways(giftdesk, own_sim):
    every = giftdesk("rates")
    assert every.exit_code == 0 and "USD   EUR       0.92" in every.stdout
    one = giftdesk("rates", "--base", "gbp", "--currency", "usd", "--json")
    assert json.loads(one.stdout) == {"baseCurrencyCode": "GBP", "rates": [{"currencyCode": "USD", "value": 1.265823}]}
    based = giftdesk("rates", "--base", "EUR", "--csv")
    rows = list(csv.reader(io.StringIO(based.stdout)))
    assert rows[0] == ["BASE", "CURRENCY", "RATE"] and ["EUR", "USD", "1.086957"] in rows
    refused = giftdesk("rates", "--base", "XYZ")
    assert refused.exit_code == 3 and "Unsupported currency" in refused.stderr


def test_accounts_and_catalog_csv(giftdesk, own_sim):
    accounts = list(csv.reader(io.StringIO(giftdesk("accounts", "--csv").stdout)))
    assert accounts[0] == ["ID", "CURRENCY", "BALANCE", "ACTIVE", "ENVIRONMENT"]
    assert ["1001", "USD", "100000.00", "yes", "sandbox"] in accounts  # exact, in the currency's minor units (issue 26)
    result = giftdesk("catalog", "--csv", "--brand-id", "5")
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0][:4] == ["BRAND", "COUNTRY", "PRODUCT", "NAME"]
    # Amounts exact in the currency's minor units and stock a number, as accounts --csv (issue 26: it printed 20.0).
    assert [
        "Tea & Co",
        "GB",
        "501",
        "Tea & Co £20",
        "20.00",
        "20.00",
        "GBP",
        "20.00",
        "20.00",
        "GBP",
        "unrestricted",
    ] in rows
    scarce = list(csv.reader(io.StringIO(giftdesk("catalog", "--csv", "--brand-id", "4").stdout)))
    assert [scarce[1][i] for i in (2, 3, 4, 5, 6, 10)] == ["401", "Scarce Sneakers $50", "50.00", "50.00", "USD", "0"]


def test_help_has_examples(giftdesk):
    for command in ("transactions", "rates"):
        text = giftdesk(command, "--help").stdout
        assert f"  Examples:\n    giftdesk {command}" in text
