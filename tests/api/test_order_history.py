"""Order history end to end: the simulator's endpoint and seeded past, the client, `giftdesk orders list`.

The documented shape (DESIGN.md, "Facts"): a JSON array, one element per
order line, with the fields listed in HISTORY_FIELDS. The client is checked
against the simulator over loopback and against MockTransport with the
documented example; the command against the simulator.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import uuid
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import httpx
import pytest
from click.testing import CliRunner

from tui.api.client import NO_RETRY, ServiceClient
from tui.api.errors import MalformedResponseError, RefusedError
from tui.api.models import OrderLine, PlaceOrder, to_wire
from tui.api.statuses import is_order_final
from tui.cli import main
from tui.core.dates import DayRange
from tui.local.config import ConfigError
from tui.local.profiles import make_profile, updated_profile

HISTORY = "/api/integration/v1.0/orders"
HISTORY_FIELDS = {
    "clientName",
    "orderNumber",
    "orderDate",
    "clientReferenceNumber",
    "channel",
    "productName",
    "denomination",
    "quantity",
    "unitPrice",
    "subTotal",
    "total",
    "accountCurrency",
    "status",
}
FIXED_PRODUCT, FIXED_VALUE = 101, 25  # showcase: Acme Books $25 (docs/simulator.md)
SEEDED = 60
# The SDK documentation's example element, as a service would send it (with a field we do not know).
DOCUMENTED_LINE = {
    "clientName": "Acme",
    "orderNumber": "O-06761537",
    "orderDate": "2026-11-02T10:15:00.123",
    "clientReferenceNumber": "req-history-1",
    "channel": "Sandbox",
    "productName": "Acme Books $25",
    "denomination": "USD 25",
    "quantity": 2,
    "unitPrice": 24.5,
    "subTotal": 49.0,
    "total": 49.0,
    "accountCurrency": "USD",
    "status": "Pending",
    "brandLogo": "https://img.example.test/a.png",
}


def utc_today() -> date:
    return datetime.now(UTC).date()


def last_30_days() -> dict[str, str]:
    return DayRange.last_days(31, today=utc_today()).to_wire()


@pytest.fixture(scope="module")
def seeded():
    """A simulator with a seeded past; tests here only read it."""
    from tui.simulator import SimulatorServer, SimulatorSettings

    with SimulatorServer(
        SimulatorSettings(seed=7, history=SEEDED, limits=None)
    ) as server:  # shared by the module: no limits (conftest, sim)
        yield server


def history(sim, credential, **params) -> httpx.Response:
    return httpx.get(sim.base_url + HISTORY, params=params or last_30_days(), auth=credential.auth)


# --- the simulator --------------------------------------------------------------------------


def test_seeded_history_has_the_documented_shape_and_a_realistic_mix(seeded, demo_credentials):
    response = history(seeded, demo_credentials["acme-sandbox"])
    assert response.status_code == 200
    lines = response.json()
    assert len({line["orderNumber"] for line in lines}) == SEEDED
    for line in lines:
        assert set(line) == HISTORY_FIELDS
        assert re.fullmatch(r"O-\d{8}", line["orderNumber"])
        assert re.fullmatch(r"[A-Z]{3} \d+(\.\d\d)?", line["denomination"])
        assert line["channel"] == "Sandbox" and line["accountCurrency"] in ("USD", "EUR")
        assert Decimal(str(line["subTotal"])) <= Decimal(str(line["total"]))
    oldest = datetime.now(UTC).replace(tzinfo=None) - timedelta(days=30)
    assert all(datetime.fromisoformat(line["orderDate"]) > oldest for line in lines)
    assert [line["orderDate"] for line in lines] == sorted(line["orderDate"] for line in lines)
    statuses = {line["status"] for line in lines}
    assert {"Succeeded", "Failed", "PartialFailed", "Pending"} <= statuses
    assert len({line["productName"] for line in lines}) > 3
    stuck = {line["orderNumber"] for line in lines if line["status"] == "Pending"}
    assert 1 <= len(stuck) <= 5  # a few


def test_seeded_orders_are_real_orders(seeded, demo_credentials):
    credential = demo_credentials["acme-sandbox"]
    lines = history(seeded, credential).json()
    by_order = {line["clientReferenceNumber"]: line for line in lines}
    for request_id, line in list(by_order.items())[:: max(1, len(by_order) // 8)]:
        order = httpx.get(f"{seeded.base_url}{HISTORY}/{request_id}", auth=credential.auth).json()
        assert order["status"] == line["status"] and order["total"] == line["total"]
        # The report dates the order (its day at midnight); Get order's createdDate times it.
        assert line["orderDate"] == order["createdDate"][:10] + "T00:00:00"
        assert is_order_final(order["status"]) or order["status"] == "Pending"


def test_seeded_orders_charged_their_accounts(seeded, demo_credentials):
    credential = demo_credentials["acme-sandbox"]
    spent: dict[str, Decimal] = defaultdict(Decimal)
    for line in {line["orderNumber"]: line for line in history(seeded, credential).json()}.values():
        spent[line["accountCurrency"]] += Decimal(str(line["total"]))
    accounts = httpx.get(seeded.base_url + "/api/integration/v1.0/accounts", auth=credential.auth).json()["accounts"]
    balance = {account["id"]: Decimal(str(account["balance"])) for account in accounts}
    assert balance[1001] == Decimal("100000.00") - spent["USD"]
    assert balance[1002] == Decimal("50000.00") - spent["EUR"]


def test_the_same_seed_gives_the_same_history(sim_factory, demo_credentials):
    credential = demo_credentials["acme-sandbox"]

    def shape(sim):
        return [
            (line["clientReferenceNumber"], line["productName"], line["denomination"], line["quantity"], line["status"])
            for line in history(sim, credential).json()
        ]

    first, again, other = (sim_factory(seed=seed, history=25, brands=60) for seed in (3, 3, 4))
    assert shape(first) == shape(again)
    assert shape(first) != shape(other)


def test_without_history_a_placed_order_is_listed_once_per_line(sim_factory, demo_credentials):
    sim = sim_factory()
    credential = demo_credentials["acme-sandbox"]
    assert history(sim, credential).json() == []
    request_id = str(uuid.uuid4())
    body = {
        "RequestId": request_id,
        "AccountId": 1002,
        "Products": [
            {"ProductId": FIXED_PRODUCT, "Quantity": 2, "Value": FIXED_VALUE},
            {"ProductId": FIXED_PRODUCT, "Quantity": 1, "Value": FIXED_VALUE},
        ],
    }
    httpx.post(sim.base_url + HISTORY + "/checkout", json=body, auth=credential.auth).raise_for_status()
    lines = history(sim, credential).json()
    assert [(line["clientReferenceNumber"], line["quantity"]) for line in lines] == [(request_id, 2), (request_id, 1)]
    assert lines[0]["orderNumber"] == lines[1]["orderNumber"]
    assert lines[0]["denomination"] == "USD 25" and lines[0]["accountCurrency"] == "EUR"
    assert history(sim, demo_credentials["other-sandbox"]).json() == []  # another client's orders are not listed
    yesterday = str(utc_today() - timedelta(days=1))
    assert history(sim, credential, startDate=yesterday, endDate=yesterday).json() == []


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"startDate": "2026-11-01"},
        {"startDate": "2026-11-01", "endDate": "30.11.2026"},
        {"startDate": "2026-11-30", "endDate": "2026-11-01"},
    ],
    ids=["none", "no-end", "not-a-date", "reversed"],
)
def test_a_range_the_service_cannot_read_is_refused(sim, demo_credentials, params):
    response = httpx.get(sim.base_url + HISTORY, params=params, auth=demo_credentials["acme-sandbox"].auth)
    assert response.status_code == 400
    assert "startDate" in response.json()["message"] or "endDate" in response.json()["message"]


# --- the client -----------------------------------------------------------------------------


async def test_client_reads_the_simulators_history(sim, demo_credentials):
    credential = demo_credentials["acme-production"]
    async with ServiceClient(sim.base_url, *credential.auth, retry=NO_RETRY) as client:
        request_id = await client.place_order(
            PlaceOrder(str(uuid.uuid4()), 2001, [OrderLine(FIXED_PRODUCT, 1, FIXED_VALUE)])
        )
        lines = await client.order_history(DayRange.last_days(1, today=utc_today()))
    mine = [line for line in lines if line.client_reference_number == request_id]
    assert len(mine) == 1
    assert mine[0].product_name == "Acme Books $25" and mine[0].quantity == 1 and mine[0].channel != "Sandbox"
    assert mine[0].account_currency == "USD" and mine[0].status


async def test_client_sends_the_days_and_keeps_unknown_fields():
    requests: list[httpx.Request] = []

    def service(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json=[DOCUMENTED_LINE])

    async with ServiceClient(
        "http://svc.test", "id", "history-test-Secr3t-9f3a", transport=httpx.MockTransport(service)
    ) as client:
        lines = await client.order_history(DayRange(date(2026, 11, 1), date(2026, 11, 30)))
    assert requests[0].method == "GET"
    assert requests[0].url.raw_path == b"/api/integration/v1.0/orders?startDate=2026-11-01&endDate=2026-11-30"
    (line,) = lines
    assert (line.order_number, line.client_reference_number, line.status) == ("O-06761537", "req-history-1", "Pending")
    assert (line.denomination, line.quantity, line.sub_total, line.account_currency) == ("USD 25", 2, 49.0, "USD")
    assert to_wire(line) == DOCUMENTED_LINE  # unknown fields kept, names as they came


@pytest.mark.parametrize(
    "answer", [{"orders": []}, [{"orderNumber": "O-1"}], "nope"], ids=["object", "no-status", "string"]
)
async def test_client_refuses_a_history_of_the_wrong_shape(answer):
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=answer))
    async with ServiceClient(
        "http://svc.test", "id", "history-test-Secr3t-9f3a", transport=transport, retry=NO_RETRY
    ) as client:
        with pytest.raises(MalformedResponseError):
            await client.order_history(DayRange(date(2026, 11, 1), date(2026, 11, 1)))


async def test_client_reports_the_services_refusal():
    transport = httpx.MockTransport(lambda request: httpx.Response(400, json="endDate is before startDate"))
    async with ServiceClient(
        "http://svc.test", "id", "history-test-Secr3t-9f3a", transport=transport, retry=NO_RETRY
    ) as client:
        with pytest.raises(RefusedError, match="endDate is before startDate"):
            await client.order_history(DayRange(date(2026, 11, 1), date(2026, 11, 1)))


# --- the command --------------------------------------------------------------------------------


@pytest.fixture
def on_seeded(monkeypatch, seeded, demo_credentials):
    credential = demo_credentials["acme-sandbox"]
    monkeypatch.setenv("GIFTDESK_BASE_URL", seeded.base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", credential.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", credential.client_secret)
    return credential


def orders_list(*args: str):
    return CliRunner().invoke(main, ["orders", "list", *args], catch_exceptions=False)


def test_orders_list_json_is_the_wire_json(on_seeded, seeded):
    result = orders_list("--from", "30d", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == history(seeded, on_seeded).json()


def test_orders_list_filters_by_status_in_any_case(on_seeded, seeded):
    result = orders_list("--from", "30d", "--status", "pending", "--status", "FAILED", "--json")
    assert result.exit_code == 0
    wanted = [line for line in history(seeded, on_seeded).json() if line["status"] in ("Pending", "Failed")]
    assert json.loads(result.stdout) == wanted and wanted


def test_orders_list_csv_has_every_wire_field_headed_as_the_table_is(on_seeded, seeded):
    result = orders_list("--from", "30d", "--to", "today", "--csv")
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    expected = history(seeded, on_seeded).json()
    assert len(rows[0]) == len(HISTORY_FIELDS) and len(rows) == len(expected)
    table_header = orders_list("--from", "30d", "--to", "today").stdout.splitlines()[0]
    assert "REQUEST ID" in table_header and "ORDER NUMBER" in table_header  # one name in both (the glossary)
    assert [row["REQUEST ID"] for row in rows] == [line["clientReferenceNumber"] for line in expected]
    assert [row["ORDER NUMBER"] for row in rows] == [line["orderNumber"] for line in expected]


def test_orders_list_table_shows_every_line(on_seeded, seeded):
    result = orders_list("--from", "30d")
    assert result.exit_code == 0
    expected = history(seeded, on_seeded).json()
    # The history dates orders, it does not time them: a day column, never a midnight "time".
    assert result.stdout.splitlines()[0].split()[:4] == ["DAY", "(UTC)", "ORDER", "NUMBER"]
    assert len(result.stdout.splitlines()) == len(expected) + 2
    assert "00:00" not in result.stdout
    assert all(line["clientReferenceNumber"] in result.stdout for line in expected)


def test_orders_list_with_nothing_says_so_on_stderr(on_seeded):
    result = orders_list("--from", "2001-01-01", "--to", "2001-01-02")
    assert result.exit_code == 0 and result.stdout == ""
    assert "No order lines from 2001-01-01 to 2001-01-02" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--from", "last week"],
        ["--from", "today", "--to", "7d"],
        ["--from", "today", "--json", "--csv"],
        [],
    ],
    ids=["not-a-day", "reversed", "json-and-csv", "no-from"],
)
def test_orders_list_bad_input_exits_2(on_seeded, args):
    assert orders_list(*args).exit_code == 2


def test_orders_list_help_has_examples():
    result = CliRunner().invoke(main, ["orders", "list", "--help"])
    assert "Examples:\n    giftdesk orders list --from today\n" in result.output


# --- the profile's stuck threshold --------------------------------------------------------------


def test_profile_stuck_threshold_is_optional_and_positive():
    profile = make_profile(
        name="p",
        environment="sandbox",
        base_url="https://api.example.test",
        client_id="id",
        secret={"kind": "env", "ref": "SECRET"},
    )
    assert profile.stuck_after_minutes is None
    assert updated_profile(profile, stuck_after_minutes=5).stuck_after_minutes == 5
    with pytest.raises(ConfigError):
        updated_profile(profile, stuck_after_minutes=0)


def test_demo_commands_have_a_seeded_past():
    from tui.simulator.settings import DEMO_HISTORY

    result = CliRunner().invoke(main, ["--demo", "orders", "list", "--from", "30d", "--json"], catch_exceptions=False)
    assert result.exit_code == 0
    lines = json.loads(result.stdout)
    assert len({line["orderNumber"] for line in lines}) == DEMO_HISTORY


def test_giftdesk_sim_seeds_the_history_it_is_given(demo_credentials):
    process = subprocess.Popen(
        [sys.executable, "-c", "from tui.commands.sim import command; command()", "--brands", "50", "--history", "7"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        base_url = process.stdout.readline().split(" on ")[1].split()[0]
        response = httpx.get(base_url + HISTORY, params=last_30_days(), auth=demo_credentials["acme-sandbox"].auth)
        assert len({line["orderNumber"] for line in response.json()}) == 7
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
