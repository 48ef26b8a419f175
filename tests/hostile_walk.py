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

import httpx
import pytest
from rich.console import Console

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


def drawn(app) -> str:
    """Every character the app's current screen draws (toasts included), without Textual's own controls."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False)


# --- the hostile service and what the walks look at (module fixtures) ---------------------


@pytest.fixture(scope="module")
def hostile_sim():
    with SimulatorServer(SimulatorSettings(hostile=True, brands=40, limits=None)) as server:  # shared by the walk: no limits (conftest, sim)
        yield server


def place(sim, product: int, value: float, quantity: int = 1) -> str:
    request_id = str(uuid.uuid4())
    body = {"RequestId": request_id, "AccountId": 1001, "Products": [{"ProductId": product, "Value": value, "Quantity": quantity}]}
    response = httpx.post(sim.base_url + "/api/integration/v1.0/orders/checkout", json=body, auth=demo_credential("acme-sandbox").auth)
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
    httpx.post(hostile_sim.base_url + NOTIFICATION_PATH, auth=auth,
               json={"notificationUrl": "https://callbacks.example.com/x", "notificationUrlSandbox": "", "secretKey": SECRET}).raise_for_status()
    failed = place(hostile_sim, 102, 10.13, 2)
    payout = place(hostile_sim, 201, 10.0)
    card_code = final_order(hostile_sim, payout)["items"][0]["cards"][0]["cardCode"]
    redeemed = httpx.post(hostile_sim.base_url + "/api/Integration/v2/payout/redeem/" + card_code.rsplit("/", 1)[-1],
                          json={"wallet": "PayPal", "recipientEmail": "walk@example.com"}, auth=auth)
    assert redeemed.status_code in (200, 202), redeemed.text
    final_order(hostile_sim, failed)
    return {"order": failed, "payout": card_code}
