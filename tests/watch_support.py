"""Orders and payouts placed on a simulator over plain HTTP, for the watch list's tests."""

from __future__ import annotations

import time
import uuid

import httpx

from tui.simulator import DEMO_CREDENTIALS

CHECKOUT = "/api/integration/v1.0/orders/checkout"
PAYOUT_PRODUCT = 201  # "Giftdesk USD Payout", USD, face value 1 to 2000 (docs/simulator.md)
SANDBOX_ACCOUNT = 1001
CREDENTIAL = next(c for c in DEMO_CREDENTIALS if c.name == "acme-sandbox")


def place(sim, value: str = "10.00", *, quantity: int = 1) -> str:
    """A new order's RequestId: value .13 ends Failed, .14 stays Pending a while, else Succeeded."""
    request_id = str(uuid.uuid4())
    body = {
        "RequestId": request_id,
        "AccountId": SANDBOX_ACCOUNT,
        "Products": [{"ProductId": PAYOUT_PRODUCT, "Value": float(value), "Quantity": quantity}],
    }
    response = httpx.post(sim.base_url + CHECKOUT, json=body, auth=CREDENTIAL.auth)
    assert response.status_code == 200, response.text
    return request_id


def payout_code(sim, email: str) -> str:
    """A payout card's code (its payout URL), redeemed to `email` (its local part picks the flow)."""
    request_id = place(sim, "10.00")
    deadline = time.monotonic() + 10
    with httpx.Client(base_url=sim.base_url, auth=CREDENTIAL.auth) as http:
        while True:
            cards = http.get(f"/api/integration/v1.0/orders/{request_id}").json()["items"][0]["cards"]
            if cards and cards[0]["status"] == "Sold":
                break
            assert time.monotonic() < deadline, "the payout card was never Sold"
            time.sleep(0.05)
        code = cards[0]["cardCode"]
        token = code.rsplit("/", 1)[1]
        redeemed = http.post(
            f"/api/Integration/v2/payout/redeem/{token}", json={"wallet": "PayPal", "recipientEmail": email}
        )
        assert redeemed.status_code in (200, 202), redeemed.text
    return code
