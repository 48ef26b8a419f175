"""What the hostile walk tests share: the hostile strings as they must be shown, and checks.

The simulator's hostile mode (tui/simulator/hostile.py) puts one of
`HOSTILE_STRINGS` in front of every free-text field. Shown literally, each
appears in its visible form (`tui.core.safe_text.visible`); parsed as markup
or obeyed as a control, it would not.
"""

from __future__ import annotations

import io
import time
import unicodedata
import uuid

import click
import httpx
import pytest
from rich.console import Console

from tui.cli import COMMANDS, main
from tui.core.safe_text import visible
from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential
from tui.simulator.hostile import HOSTILE_STRINGS, LONG_RUN

NOTIFICATION_PATH = "/api/Integration/v1/notification"
SECRET = "hostile-walk-secret-0123"
# The start of each hostile string as it must be shown: long enough to tell a
# parsed tag (gone) or an obeyed control (gone) from a literal one.
SHOWN_MARKERS: tuple[str, ...] = tuple(visible(text)[:9] for text in HOSTILE_STRINGS if text != LONG_RUN)


def raw_controls(text: str) -> list[str]:
    """Characters in `text` that would act on a terminal (or hide) rather than be drawn."""
    return sorted({repr(char) for char in text if char != "\n" and unicodedata.category(char) in ("Cc", "Cf")})


def markers_in(text: str) -> set[str]:
    return {marker for marker in SHOWN_MARKERS if marker in text}


# --- the walk of the command line: every command of tui/cli.py COMMANDS ---------------------

# Serve until Ctrl-C: not runnable here (their output goes through the same `say`/`visible`).
SERVING = {"sim", "listen"}


def runs(walk: dict[str, str]) -> dict[str, list[tuple[list[str], bool]]]:
    """Command -> (arguments, whether the service's free text is in the output)."""
    return {
        "accounts": [(["accounts"], False), (["accounts", "--json"], False)],
        "catalog": [
            (["catalog", "--page-size", "20"], True),
            (["catalog", "--json", "--page-size", "5"], True),
            (["catalog", "--v1"], True),
            (["catalog", "--all", "--page-size", "10"], True),
        ],
        "order": [
            (["order", "show", walk["order"]], True),
            (["order", "show", walk["order"], "--json"], True),
            (["order", "show", HOSTILE_STRINGS[7]], False),
            (["order", "place", "--account", "1001", "--product", "102", "--value", "10", "--yes"], False),
        ],
        "payout": [
            (["payout", "status", walk["payout"]], True),
            (["payout", "status", walk["payout"], "--json"], True),
            (["payout", "check", "--wallet", "PayPal", "--email", "a@example.com"], False),
        ],
        "notifications": [(["notifications", "get"], True), (["notifications", "get", "--json"], True)],
        "profiles": [(["profiles", "list"], False), (["profiles", "show"], False)],
        "completion": [(["completion", "bash"], False)],
        "orders": [
            (["orders", "list", "--from", "1d"], True),
            (["orders", "list", "--from", "1d", "--json"], True),
            (["orders", "list", "--from", "1d", "--csv"], True),
        ],
        "transactions": [(["transactions", "--from", "1d"], False), (["transactions", "--from", "1d", "--json"], True)],
        "rates": [(["rates"], False), (["rates", "--base", "EUR", "--json"], False)],
        "watch": [(["watch", walk["order"]], False), (["watch", walk["order"], "--json"], False)],
    }


def fallback_runs(name: str) -> list[tuple[list[str], bool]]:
    command = main.get_command(click.Context(main), name)
    if isinstance(command, click.Group):
        return [([name, sub], False) for sub in command.list_commands(click.Context(command))]
    return [([name], False)]


def all_runs(walk: dict[str, str]) -> list[tuple[list[str], bool]]:
    known = runs(walk)
    return [run for name in COMMANDS if name not in SERVING for run in known.get(name) or fallback_runs(name)]


def drawn(app) -> str:
    """Every character the app's current screen draws (toasts included), without Textual's own controls."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False)


# --- the hostile service and what the walks look at (module fixtures) ---------------------


@pytest.fixture(scope="module")
def hostile_sim():
    with SimulatorServer(
        SimulatorSettings(hostile=True, brands=40, limits=None)
    ) as server:  # shared by the walk: no limits (conftest, sim)
        yield server


def place(sim, product: int, value: float, quantity: int = 1) -> str:
    request_id = str(uuid.uuid4())
    body = {
        "RequestId": request_id,
        "AccountId": 1001,
        "Products": [{"ProductId": product, "Value": value, "Quantity": quantity}],
    }
    response = httpx.post(
        sim.base_url + "/api/integration/v1.0/orders/checkout", json=body, auth=demo_credential("acme-sandbox").auth
    )
    assert response.status_code == 200, response.text
    return request_id


def final_order(sim, request_id: str) -> dict:
    with httpx.Client(base_url=sim.base_url, auth=demo_credential("acme-sandbox").auth) as http:
        for _ in range(400):  # 20 s at most; the simulator takes 0.6 s
            order = http.get(f"/api/integration/v1.0/orders/{request_id}").json()
            if order["status"] in ("Succeeded", "Failed", "PartialFailed"):
                return order
            time.sleep(0.05)
    raise AssertionError("the order did not end")


@pytest.fixture(scope="module")
def walk_data(hostile_sim):
    """An order with a failed card (errorMessage), a redeemed payout card, a callback configuration."""
    auth = demo_credential("acme-sandbox").auth
    httpx.post(
        hostile_sim.base_url + NOTIFICATION_PATH,
        auth=auth,
        json={"notificationUrl": "https://callbacks.example.com/x", "notificationUrlSandbox": "", "secretKey": SECRET},
    ).raise_for_status()
    failed = place(hostile_sim, 102, 10.13, 2)
    payout = place(hostile_sim, 201, 10.0)
    card_code = final_order(hostile_sim, payout)["items"][0]["cards"][0]["cardCode"]
    redeemed = httpx.post(
        hostile_sim.base_url + "/api/Integration/v2/payout/redeem/" + card_code.rsplit("/", 1)[-1],
        json={"wallet": "PayPal", "recipientEmail": "walk@example.com"},
        auth=auth,
    )
    assert redeemed.status_code in (200, 202), redeemed.text
    final_order(hostile_sim, failed)
    return {"order": failed, "payout": card_code}
