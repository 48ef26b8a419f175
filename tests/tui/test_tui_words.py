"""Money actions confirm what matters; words that do not mislead (issue 26), at 80x24 as they were seen."""

from __future__ import annotations

import time
import uuid

import httpx
import pytest
from apps import app_on, until
from textual.widgets import Input, RadioSet

from tui.api.models import RedeemRequest
from tui.core.payout_flow import Attempt
from tui.screens.new_order import NewOrderScreen
from tui.screens.order import OrderScreen
from tui.screens.payout import PayoutScreen
from tui.simulator import demo_credential
from widgets.confirm import ConfirmScreen
from widgets.date_range import DateRangeDialog
from widgets.pager import PageState
from widgets.private import masked_for_screenshot

SIZE = (80, 24)
PAYOUT_PRODUCT = 201  # "Giftdesk USD Payout", USD, face value 1 to 2000 (docs/simulator.md)
ACCOUNTS = {"acme-sandbox": 1001, "acme-production": 2001}


def payout_order(sim, credential: str, value: float) -> tuple[str, str]:
    """(RequestId, card code) of a new one-card payout order, once Sold."""
    request_id = str(uuid.uuid4())
    body = {
        "RequestId": request_id,
        "AccountId": ACCOUNTS[credential],
        "Products": [{"ProductId": PAYOUT_PRODUCT, "Quantity": 1, "Value": value}],
    }
    with httpx.Client(base_url=sim.base_url, auth=demo_credential(credential).auth, timeout=5) as http:
        assert http.post("/api/integration/v1.0/orders/checkout", json=body).status_code == 200
        for _ in range(200):
            cards = http.get(f"/api/integration/v1.0/orders/{request_id}").json()["items"][0]["cards"]
            if cards and cards[0]["status"] == "Sold":
                return request_id, cards[0]["cardCode"]
            time.sleep(0.05)
    raise AssertionError("the payout order did not reach Sold")


async def payout_form_from_its_order(pilot, request_id: str, card_code: str, recipient: str) -> PayoutScreen:
    """The order seen first (as `y` on its card does), then the payout form filled: PayPal, email."""
    app = pilot.app
    await app.navigate("order", request_id)
    await until(
        pilot,
        lambda: (
            isinstance(app.screen, OrderScreen) and app.screen.order is not None and app.screen.order.items[0].cards
        ),
    )
    await app.navigate("payout", card_code)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, PayoutScreen)
    await pilot.click("#wallet-PayPal")
    screen.query_one("#recipient", Input).value = recipient
    await pilot.pause()
    return screen


async def test_production_redeem_confirmation_shows_the_recipient_and_value_and_asks_for_attention(sim):
    request_id, card = payout_order(sim, "acme-production", 10)
    app = app_on(sim, profile="demo-production")
    async with app.run_test(size=SIZE) as pilot:
        screen = await payout_form_from_its_order(pilot, request_id, card, "ann.smith@example.com")
        await pilot.click("#redeem")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        confirm = app.screen
        summary = confirm.summary_text()
        for words in (
            "Recipient    ann.smith@example.com",
            "Wallet       PayPal",
            "Face value   10.00 USD",
            "PRODUCTION",
        ):
            assert words in summary
        # The phrase is asked for, not shown: the last four of the name before the @, never ".com".
        assert confirm.typed_phrase == "mith"
        asking = " ".join(str(label.render()) for label in confirm.query("Label"))
        assert "last four characters of the recipient's name before the @" in asking and "mith" not in asking
        # Shown to the person, masked in a screenshot (rule 6), shown again after.
        restore = masked_for_screenshot(app.screen_stack)
        picture = app.export_screenshot()
        restore()
        assert "ann.smith@example.com" not in picture.replace("&#160;", " ")
        assert "ann.smith@example.com" in confirm.summary_text()

        await pilot.press(*".com", "enter")
        assert app.screen is confirm and confirm.query_one("#confirm").disabled
        assert "That is not the last four characters" in str(confirm.query_one("#phrase-problem").render())
        confirm.query_one("#phrase", Input).value = ""
        await pilot.press(*"mith", "enter")
        await until(pilot, lambda: screen.payout is not None and screen.payout.status == "Completed")
        # After the redeem the form no longer says it is ready to redeem.
        problem = str(screen.query_one("#problem").render())
        assert "Ready to redeem" not in problem and "Redeemed" in problem


@pytest.mark.parametrize(
    ("request_fields", "phrase"),
    [
        ({"recipient_email": "ann@example.com"}, "ann"),
        ({"recipient_email": "j.doe-smith@example.com"}, "mith"),
        ({"recipient_phone": "+1 555 123 4567"}, "4567"),
        ({"recipient_handle": "@ann_smith"}, "mith"),
    ],
)
def test_the_redeem_phrase_is_never_the_domain(request_fields, phrase):
    assert Attempt("token", RedeemRequest("Venmo", **request_fields)).confirmation_phrase()[0] == phrase


async def test_a_pasted_weblink_says_its_value_is_not_known_here(sim):
    _, card = payout_order(sim, "acme-sandbox", 10)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("payout", card)
        await pilot.click("#wallet-PayPal")
        app.screen.query_one("#recipient", Input).value = "ann@example.com"
        await pilot.pause()
        await pilot.click("#redeem")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "Face value   not known here" in app.screen.summary_text()


async def test_a_stray_r_on_the_payout_form_redeems_nothing(sim):
    _, card = payout_order(sim, "acme-sandbox", 10)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("payout", card)
        await pilot.click("#wallet-PayPal")
        app.screen.query_one("#recipient", Input).value = "ann@example.com"
        app.screen.query_one("#wallet", RadioSet).focus()  # outside the recipient field
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, PayoutScreen)
        await pilot.press("ctrl+r")  # the redeem key is a chord
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))


async def test_the_production_order_form_says_production_and_asks_for_the_total(sim):
    app = app_on(sim, profile="demo-production")
    async with app.run_test(size=SIZE) as pilot:
        form = NewOrderScreen()
        await app.push_screen(form)
        await until(pilot, lambda: form.accounts)
        assert str(form.query_one(".title").render()) == "New production order"


async def test_the_top_bar_names_the_account_an_order_was_placed_on(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        assert app.session.account_id is None and app.context.account is None  # nothing chosen yet
        form = NewOrderScreen(request_id=str(uuid.uuid4()))
        await app.push_screen(form)
        await until(pilot, lambda: form.accounts)
        for name, value in (("product-id", "102"), ("face-value", "10"), ("quantity", "1")):
            form.query_one(f"#{name}", Input).value = value
        await pilot.click("#place")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.click("#confirm")
        await until(pilot, lambda: isinstance(app.screen, OrderScreen))
        assert app.context.account == "1001 USD"


async def test_the_date_dialog_speaks_of_its_fields_not_of_cli_options(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("orders")
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, DateRangeDialog))
        app.screen.query_one("#range-from", Input).value = "today"
        app.screen.query_one("#range-to", Input).value = "3d"
        await pilot.click("#show")
        said = str(app.screen.query_one("#range-error").render())
        assert "swap the two days" in said and "--" not in said


def test_counts_are_said_in_the_singular_for_one():
    assert PageState(count=1).describe("brand") == "page 1 of 1 · 1 brand"
    assert PageState(count=1200).describe("brand") == "page 1 of 24 · 1,200 brands"
