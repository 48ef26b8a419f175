"""Exports exact, --json everywhere, and wrong input said to be wrong (issue 26, exports and CLI)."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

import httpx
import pytest
from click.testing import CliRunner

from tui.cli import main


def test_accounts_csv_has_every_balance_with_its_minor_units(giftdesk, sim, demo_credentials):
    result = giftdesk("accounts", "--csv")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    wire = httpx.get(f"{sim.base_url}/api/integration/v1.0/accounts", auth=demo_credentials["acme-sandbox"].auth).json()
    balances = {str(account["id"]): account for account in wire["accounts"]}
    assert rows and len(rows) == len(balances)
    for row in rows:
        places = 0 if row["CURRENCY"] == "JPY" else 2
        whole, _, minor = row["BALANCE"].partition(".")
        assert len(minor) == places and "," not in whole, row
        assert Decimal(row["BALANCE"]) == Decimal(str(balances[row["ID"]]["balance"]))


def test_payout_check_takes_json(giftdesk):
    valid = giftdesk("payout", "check", "--wallet", "PayPal", "--email", "ann@example.com", "--json")
    assert valid.exit_code == 0, valid.stderr
    verdict = json.loads(valid.stdout)
    assert verdict["valid"] is True and verdict["wallet"] == "PayPal"
    assert "ann@example.com" not in valid.stdout  # the recipient stays masked (rule 6)
    invalid = giftdesk("payout", "check", "--wallet", "PayPal", "--phone", "+15551234567", "--json")
    assert invalid.exit_code == 2
    assert json.loads(invalid.stdout) == {
        "valid": False,
        "problem": "PayPal payouts support only a recipient email.",  # the spec's text, then the rule in words
        "rule": "With PayPal give an email; a phone or a handle needs Venmo.",
    }


def test_watch_help_describes_its_ndjson():
    result = CliRunner().invoke(main, ["watch", "--help"])
    text = " ".join(result.stdout.split())
    assert "service's data as JSON" not in text
    assert "NDJSON" in text and '"kind"' in text and '"final"' in text


def test_orders_list_refuses_a_status_that_is_none(giftdesk):
    result = giftdesk("orders", "list", "--from", "today", "--status", "Bogus")
    assert result.exit_code == 2
    assert "Bogus" in result.stderr and "Succeeded" in result.stderr
    assert giftdesk("orders", "list", "--from", "today", "--status", "succeeded").exit_code == 0


@pytest.mark.parametrize(
    ("option", "value"), [("--country", "GBR"), ("--currency", "GB"), ("--target-currency", "EURO")]
)
def test_catalog_refuses_a_code_of_the_wrong_length(giftdesk, option, value):
    result = giftdesk("catalog", option, value)
    assert result.exit_code == 2
    assert value in result.stderr and "letter ISO code" in result.stderr


def test_catalog_page_past_the_end_names_the_last_page(giftdesk):
    first = giftdesk("catalog", "--json", "--page-size", "100")
    page = json.loads(first.stdout)
    last = -(-page["count"] // 100) - 1
    assert giftdesk("catalog", "--page", str(last), "--page-size", "100").exit_code == 0
    result = giftdesk("catalog", "--page", "99", "--page-size", "100")
    assert result.exit_code == 2
    assert f"the last page is --page {last}" in result.stderr
