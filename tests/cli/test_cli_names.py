"""One name for one thing (docs/decisions.md, "Glossary"), in the command line's text and JSON alike."""

from __future__ import annotations

import json
import re
import time
import uuid

import pytest
from click.testing import CliRunner

from tui.cli import main


def giftdesk(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def sandbox(sim, demo_credentials, monkeypatch) -> None:
    credential = demo_credentials["acme-sandbox"]
    monkeypatch.setenv("GIFTDESK_BASE_URL", sim.base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", credential.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", credential.client_secret)


def final_order(value: str) -> dict:
    request_id = str(uuid.uuid4())
    placed = giftdesk(
        "order", "place", "--account", "1001", "--product", "102", "--value", value, "--request-id", request_id
    )
    assert placed.exit_code == 0, placed.stderr
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        order = json.loads(giftdesk("order", "show", request_id, "--json").stdout)
        if order["status"] in ("Succeeded", "Failed", "PartialFailed"):
            return order
        time.sleep(0.2)
    raise AssertionError("the order never ended")


def test_a_failed_card_s_code_is_not_released_in_json_as_in_the_table(sandbox):
    order = final_order("10.13")  # .13: the card ends Failed (docs/simulator.md)
    (card,) = order["items"][0]["cards"]
    assert card["status"] == "Failed" and card["cardCode"] == "(not released)"
    table = giftdesk("order", "show", order["requestId"]).stdout
    assert "(not released)" in table and "****" not in table


def test_the_order_number_is_said_as_the_orders_report_says_it(sandbox):
    order = final_order("10")
    shown = giftdesk("order", "show", order["requestId"]).stdout
    number = f"O-{order['orderId']:08d}"
    assert re.search(rf"^Order number:\s+{number}$", shown, re.MULTILINE)
    report = json.loads(giftdesk("orders", "list", "--from", "today", "--json").stdout)
    assert number in {line["orderNumber"] for line in report if line["clientReferenceNumber"] == order["requestId"]}
    assert "Order ID" not in shown
