"""`order show --json` hands out card codes and PINs only with --reveal, and never a card's that is not Sold
(issue 24, item 9; DESIGN "Command line contract")."""

from __future__ import annotations

import functools
import json

import httpx
import pytest
from click.testing import CliRunner

from tui.cli import main
from tui.commands import runner

REQUEST_ID = "6f1c0a55-0000-4000-8000-000000000009"
CARDS = {  # status -> (code, pin)
    "Sold": ("SOLD-CODE-1111", "4321"),
    "Paused": ("PAUSED-CODE-2222", "8765"),
    "Failed": ("FAILED-CODE-3333", "1357"),
}
ORDER = {
    "orderId": 9,
    "requestId": REQUEST_ID,
    "status": "PartialFailed",
    "createdDate": "2026-03-01T10:00:00.000",
    "total": 75,
    "errorMessage": "a card failed",
    "orderType": "Sandbox",
    "currency": "USD",
    "items": [
        {
            "productId": 501,
            "productFaceValue": 25,
            "quantity": 3,
            "countryCode": "GB",
            "currencyCode": "GBP",
            "brandCode": None,
            "pictureUrl": None,
            "cards": [
                {
                    "id": n,
                    "serialNumber": f"SN{n}",
                    "cardCode": code,
                    "pin": pin,
                    "expirationDate": "2027-03-01T00:00:00",
                    "status": status,
                }
                for n, (status, (code, pin)) in enumerate(CARDS.items(), start=1)
            ],
        }
    ],
}


def giftdesk(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(autouse=True)
def service(monkeypatch):
    monkeypatch.setenv("GIFTDESK_BASE_URL", "http://svc.test")
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", "client-1")
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", "secret-1")
    monkeypatch.setattr(
        runner,
        "build_client",
        functools.partial(
            runner.build_client, transport=httpx.MockTransport(lambda request: httpx.Response(200, json=ORDER))
        ),
    )


def cards_shown(*flags: str) -> dict[str, dict]:
    result = giftdesk("order", "show", REQUEST_ID, "--json", *flags)
    assert result.exit_code == 0, result.stderr
    return {card["status"]: card for card in json.loads(result.stdout)["items"][0]["cards"]}


@pytest.mark.parametrize("flags", [[], ["--watch", "--interval", "0.2"]])
def test_json_masks_every_code_and_pin_without_reveal(flags):
    result = giftdesk("order", "show", REQUEST_ID, "--json", *flags)
    for code, pin in CARDS.values():
        assert code not in result.stdout and f'"{pin}"' not in result.stdout
    assert {card["status"] for card in json.loads(result.stdout)["items"][0]["cards"]} == set(CARDS)


@pytest.mark.parametrize("flags", [[], ["--watch", "--interval", "0.2"]])
def test_reveal_releases_only_the_sold_card(flags):
    cards = cards_shown("--reveal", *flags)
    assert (cards["Sold"]["cardCode"], cards["Sold"]["pin"]) == CARDS["Sold"]
    for status in ("Paused", "Failed"):
        code, pin = CARDS[status]
        assert cards[status]["cardCode"] != code
        assert cards[status]["pin"] != pin
