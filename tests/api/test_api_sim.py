"""ServiceClient against the simulator over loopback: every endpoint, and the
redeem refusals a real server produces (the simulator is an independent
implementation of the spec, DESIGN rule 3)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from spec_cases import RECIPIENT_MISMATCH, REDEEM_FAILED, WEBLINK_DISABLED, WEBLINK_EXPIRED

from tui.api.client import ServiceClient
from tui.api.errors import AuthenticationError, RefusedError
from tui.api.models import CatalogQuery, NotificationConfig, OrderLine, PlaceOrder, RedeemRequest
from tui.api.statuses import card_code_releasable, is_order_final, is_payout_final
from tui.api.weblink import is_payout_url, weblink_token

PAYOUT_PRODUCT = 201


@pytest.fixture
async def client(sim, demo_credentials):
    credential = demo_credentials["acme-sandbox"]
    async with ServiceClient(sim.base_url, credential.client_id, credential.client_secret) as client:
        yield client


async def final_order(client: ServiceClient, value: float, product: int = PAYOUT_PRODUCT):
    request_id = await client.place_order(PlaceOrder(str(uuid.uuid4()), 1001, [OrderLine(product, 1, value)]))
    for _ in range(200):
        order = await client.get_order(request_id)
        if is_order_final(order.status):
            return order
        await asyncio.sleep(0.05)
    raise AssertionError(f"order {request_id} never became final")


async def test_accounts(client):
    accounts = await client.accounts()
    assert any(account.id == 1001 and account.sandbox_mode for account in accounts)


async def test_catalog_v2_filters_and_pages(client):
    page = await client.catalog(CatalogQuery(country_code="GB", page_size=3, page_index=1))
    assert (page.page_index, page.page_size) == (1, 3) and len(page.items) <= 3
    assert all(brand.country_code == "GB" for brand in page.items)
    one = await client.catalog(CatalogQuery(product_id=PAYOUT_PRODUCT))
    assert [p.id for brand in one.items for p in brand.products] == [PAYOUT_PRODUCT]


async def test_catalog_v1(client):
    brands = await client.catalog_v1()
    assert brands and brands[0].products


async def test_place_and_get_an_order_with_a_payout_card(client):
    order = await final_order(client, 30)
    [card] = order.cards
    assert order.status == "Succeeded" and card_code_releasable(card.status)
    assert is_payout_url(card.card_code)


async def test_redeem_and_status(client, sim):
    order = await final_order(client, 31)
    code = order.cards[0].card_code
    result = await client.redeem_payout(code, RedeemRequest("Venmo", recipient_handle="@ann_smith"))
    assert result.http_status == 202 and result.is_processing
    again = await client.redeem_payout(code, RedeemRequest("Venmo", recipient_handle="@ann_smith"))
    assert again.transaction_id == result.transaction_id  # spec rule 6
    assert len(sim.payouts_for(weblink_token(code))) == 1
    status = await client.payout_status(code)
    assert status.status in {"Pending", "Completed"}
    for _ in range(200):
        if is_payout_final(status.status):
            break
        await asyncio.sleep(0.05)
        status = await client.payout_status(code)
    assert status.status == "Completed"
    with pytest.raises(RefusedError, match=f"^{RECIPIENT_MISMATCH}$"):
        await client.redeem_payout(code, RedeemRequest("Venmo", recipient_handle="@bob_smith"))


@pytest.mark.parametrize("value, text", [(40.21, WEBLINK_DISABLED), (40.22, WEBLINK_EXPIRED)])
async def test_disabled_and_expired_weblinks(client, value, text):
    order = await final_order(client, value)
    with pytest.raises(RefusedError, match=f"^{text}$"):
        await client.redeem_payout(order.cards[0].card_code, RedeemRequest("PayPal", recipient_email="a@b.co"))


async def test_another_clients_weblink_fails_generically(client, sim, demo_credentials):
    order = await final_order(client, 32)
    other = demo_credentials["other-sandbox"]
    async with ServiceClient(sim.base_url, other.client_id, other.client_secret) as stranger:
        with pytest.raises(RefusedError, match=f"^{REDEEM_FAILED}$"):
            await stranger.redeem_payout(order.cards[0].card_code, RedeemRequest("PayPal", recipient_email="a@b.co"))


async def test_wrong_secret_is_an_authentication_error(sim, demo_credentials):
    credential = demo_credentials["acme-sandbox"]
    async with ServiceClient(sim.base_url, credential.client_id, "wrong-secret") as client:
        with pytest.raises(AuthenticationError):
            await client.accounts()


async def test_notifications_round_trip(sim_factory, demo_credentials):
    server = sim_factory()  # a private server: the shared one's configuration stays as it is
    credential = demo_credentials["acme-sandbox"]
    async with ServiceClient(server.base_url, credential.client_id, credential.client_secret) as client:
        wanted = NotificationConfig(
            notification_url="https://hooks.example.test/cb",
            notification_url_sandbox="http://127.0.0.1:9/cb",
            secret_key="cb-1",
        )
        echoed = await client.set_notifications(wanted)
        stored = await client.get_notifications()
    for config in (echoed, stored):
        assert (config.notification_url, config.notification_url_sandbox, config.secret_key) == (
            wanted.notification_url,
            wanted.notification_url_sandbox,
            wanted.secret_key,
        )
