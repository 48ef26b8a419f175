"""The provider's recorded answers (tests/fixtures/provider, sources in its README), read and shown right by
every command that reads them (issue 34): served over httpx's MockTransport exactly as recorded."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from tui.api.client import RetryPolicy
from tui.cli import main
from tui.commands import runner

RECORDINGS = Path(__file__).resolve().parents[1] / "fixtures" / "provider"
real_build_client = runner.build_client


def recording(name: str) -> bytes:
    return (RECORDINGS / name).read_bytes()


@pytest.fixture
def serve(monkeypatch):
    """serve({path suffix: body}): the commands talk to a MockTransport answering each path as recorded."""
    monkeypatch.setenv("GIFTDESK_BASE_URL", "http://svc.test")
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", "client-1")
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", "secret-1")

    def install(answers: dict[str, bytes]) -> None:
        def handler(request: httpx.Request) -> httpx.Response:
            for suffix, body in answers.items():
                if request.url.path.lower().endswith(suffix):
                    return httpx.Response(200, content=body, headers={"content-type": "application/json"})
            return httpx.Response(404, json={"message": "not recorded"})

        async def no_wait(_seconds):
            pass

        monkeypatch.setattr(
            runner,
            "build_client",
            functools.partial(
                real_build_client, sleep=no_wait, retry=RetryPolicy(attempts=1), transport=httpx.MockTransport(handler)
            ),
        )

    return install


def giftdesk(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_the_recorded_day_adds_up_from_the_right_opening_balance(serve):
    serve({"/transactions": recording("transactions_sandbox_day.json")})
    result = giftdesk("transactions", "--from", "2024-05-15", "--to", "2024-05-15", "--fresh")
    assert result.exit_code == 0, result.stderr
    assert "every balance change matches its amount" in result.stderr
    assert "1,000.00 USD → 971.59 USD" in result.stderr  # the opening balance derived with the right direction
    amounts = [line.split()[3] for line in result.stdout.splitlines()[2:]]
    assert amounts == ["-9.47", "-18.94"]  # debits, as the balance moved, though both came positive


def test_transactions_json_is_the_answer_as_it_came(serve):
    body = recording("transactions_sandbox_day.json")
    serve({"/transactions": body})
    result = giftdesk("transactions", "--from", "2024-05-15", "--to", "2024-05-15", "--json", "--fresh")
    assert result.exit_code == 0, result.stderr
    printed, recorded = json.loads(result.stdout), json.loads(body)
    assert (printed["startDate"], printed["endDate"]) == (recorded["startDate"], recorded["endDate"])
    assert printed == recorded


@pytest.mark.parametrize("currency", ["absent", None], ids=["no currency", "currency null"])
def test_order_show_reads_a_get_order_without_currency(serve, currency):
    wire = json.loads(recording("get_order_staging_no_currency.json"))
    if currency is None:
        wire["currency"] = None
    request_id = wire["requestId"]
    serve({f"/orders/{request_id}": json.dumps(wire).encode()})
    shown = giftdesk("order", "show", request_id)
    assert shown.exit_code == 0, shown.stderr
    assert "Processing" in shown.stdout and "9.47" in shown.stdout
    as_json = giftdesk("order", "show", request_id, "--json")
    assert as_json.exit_code == 0 and json.loads(as_json.stdout)["requestId"] == request_id
    ended = {
        **wire,
        "status": "Failed",
        "items": [{**wire["items"][0], "cards": [{**wire["items"][0]["cards"][0], "status": "Failed"}]}],
    }
    serve({f"/orders/{request_id}": json.dumps(ended).encode()})
    watched = giftdesk("order", "show", request_id, "--watch", "--interval", "0.2")
    assert watched.exit_code == 0, watched.stderr
    assert "Failed" in watched.stdout and "9.47" in watched.stdout


def test_a_rate_of_zero_is_not_stated_never_a_rate_of_zero(serve):
    # The provider sends 0 for a rate it does not state (DESIGN.md): unknown, not zero.
    answer = {
        "baseCurrencyCode": "USD",
        "rates": [{"currencyCode": "EUR", "value": 0.871483}, {"currencyCode": "XAU", "value": 0}],
    }
    serve({"/exchange-rates": json.dumps(answer).encode()})
    table = giftdesk("rates", "--fresh")
    assert table.exit_code == 0, table.stderr
    assert [line.split()[1:] for line in table.stdout.splitlines()[2:]] == [
        ["EUR", "0.871483"],
        ["XAU", "not", "stated"],
    ]
    csv = giftdesk("rates", "--csv", "--fresh")
    assert csv.stdout.splitlines()[1:] == ["USD,EUR,0.871483", "USD,XAU,"]
    as_json = giftdesk("rates", "--json", "--fresh")
    assert json.loads(as_json.stdout)["rates"][1]["value"] == 0  # --json: as it came


def test_the_sdk_documentations_example_adds_up(serve):
    # The provider's own example (README: found): +9.47 then +18.9401 while the balance falls 100828.4848 ->
    # 100809.5447, and clientTotal 18.94 against 18.9401 charged.
    serve({"/transactions": recording("transactions_sdk_example.json")})
    result = giftdesk("transactions", "--from", "2024-05-15", "--to", "2024-05-16", "--fresh")
    assert result.exit_code == 0, result.stderr
    assert "every balance change matches its amount" in result.stderr and "do not add up" not in result.stderr
    assert "100,837.95 USD" in result.stderr  # the opening balance: 100828.4848 + 9.47
    assert [line.split()[3] for line in result.stdout.splitlines()[2:]] == ["-9.47", "-18.94"]
