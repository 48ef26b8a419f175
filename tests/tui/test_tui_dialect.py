"""The TUI against the real provider's dialect: reason codes and 403 said in place, in words;
a product the provider lists as deleted or inactive is not offered for ordering (issue 25)."""

from __future__ import annotations

import uuid

from apps import app_on, demo_profiles, notifications, settle, until
from test_tui_order import open_form, placed, press_place

from tui.api.errors import REASONS
from tui.api.models import Product
from tui.app import AppSettings, build_app
from tui.local.profiles import demo_profile
from tui.simulator.credentials import demo_credential

SIZE = (100, 30)


def product_102(**fields) -> Product:
    return Product(
        id=102,
        name="Acme Books eGift",
        min_face_value=5,
        max_face_value=500,
        count=None,
        price={"min": 5, "max": 500, "currencyCode": "USD"},
        **fields,
    )


async def test_a_refused_test_order_says_what_happened_and_what_to_do(sim):
    app = app_on(sim)
    request_id = str(uuid.uuid4())
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, product_102(), request_id=request_id)
        form.query_one("#account").value = 1003  # 25 GBP: too little for 500 USD
        form.query_one("#face-value").value = "500"
        await pilot.pause()
        await press_place(pilot)
        await pilot.click("#confirm")  # the confirmation (sandbox: no typed phrase)
        what, to_do = REASONS["InsufficientBalance"]
        await until(pilot, lambda: "Refused" in str(form.query_one("#new-order-problem").render()))
        shown = str(form.query_one("#new-order-problem").render())
        assert f"{what} (InsufficientBalance)" in shown and to_do in shown
    assert not placed(sim, request_id)


async def test_a_deleted_or_inactive_product_is_not_ordered(sim):
    app = app_on(sim)
    request_id = str(uuid.uuid4())
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, product_102(status="Inactive"), request_id=request_id)
        form.query_one("#face-value").value = "10"
        await pilot.pause()
        await press_place(pilot)
        await until(pilot, lambda: "cannot be ordered" in str(form.query_one("#new-order-problem").render()))
        assert app.screen is form  # no confirmation
    assert not placed(sim, request_id)


async def test_403_says_the_credentials_lack_access_with_the_services_text(sim):
    credential = demo_credential("acme-catalog-only")
    profiles = {
        **demo_profiles(sim.base_url),
        "demo-catalog-only": demo_profile(
            "demo-catalog-only", "sandbox", sim.base_url, credential.client_id, credential.client_secret
        ),
    }
    app = build_app(AppSettings(profiles=profiles, profile_name="demo-catalog-only"))
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("accounts")
        await settle(pilot)
        await until(pilot, lambda: any("403" in str(message) for message in notifications(app)))
        said = " ".join(str(message) for message in notifications(app))
        assert "no access to this resource (403): The client does not have access to this resource." in said
        assert "Authentication failed" not in said
