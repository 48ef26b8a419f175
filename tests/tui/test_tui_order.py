"""The Order screen and the guarded test-order form against the simulator (issue 6).

Orders are placed over plain HTTP with the simulator's magic values
(docs/architecture.md): cents .13 make a Failed card, .14 a Paused one,
product 201 is a payout product, 102 an ordinary range product (5-500 USD).
Each test asserts the app's own state first; snapshots come last.
"""

from __future__ import annotations

import dataclasses
import re
import time
import uuid
from datetime import datetime

import httpx
import pytest
from apps import app_on, settle, until
from apps import notifications as notes
from apps import rendered as static_text

import tui.case_file as case_file
import tui.screens.order as order_screen
import tui.simulator.orders as sim_orders
from tui.api.client import RetryPolicy
from tui.api.statuses import is_order_final
from tui.core.polling import Backoff
from tui.local.storage import CARD_COPY, CARD_REVEAL, TEST_ORDER, AuditLog, RecentOrders
from tui.screens.new_order import NewOrderScreen
from tui.screens.order import OrderScreen
from tui.simulator import TIMING_PRESETS, demo_credential
from widgets.confirm import ConfirmScreen
from widgets.masked import MaskedValue
from widgets.textual_private import table_awaits_measuring

SIZE = (80, 24)
CHECKOUT = "/api/integration/v1.0/orders/checkout"
QUICK_RETRIES = {"retry": RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.01)}
SLOW_STEPS = TIMING_PRESETS["fast"].replace(
    step_seconds=2.5
)  # each state lasts long enough to be seen on a loaded machine
LONG_PAUSE = TIMING_PRESETS["fast"].replace(pause_seconds=120.0)
NOT_STARTED = TIMING_PRESETS["fast"].replace(step_seconds=120.0)


@pytest.fixture(autouse=True)
def private_dirs(tmp_path, monkeypatch):
    for name in ("CONFIG", "DATA_DIR", "LOG_DIR"):
        monkeypatch.setenv(f"GIFTDESK_{name}", str(tmp_path / name.lower()))


@pytest.fixture(autouse=True)
def quick_watch(monkeypatch):
    """Looks every 0.1-0.3 s, and "last checked" at a fixed time (snapshots)."""
    monkeypatch.setattr(OrderScreen, "backoff", Backoff(first=0.1, factor=1.5, cap=0.3))
    monkeypatch.setattr(order_screen, "clock", lambda: datetime(2025, 1, 2, 3, 4, 5))


class FrozenDatetime(datetime):
    @classmethod
    def now(cls, tz=None):
        return datetime(2025, 1, 2, 3, 0, 0, tzinfo=tz)


class FrozenCaseClock(datetime):
    @classmethod
    def now(cls, tz=None):
        return datetime(2025, 1, 2, 3, 20, 0, tzinfo=tz)  # 20 minutes after the frozen orders were created


@pytest.fixture
def frozen_sim_clock(monkeypatch):
    """The simulator's created and expiry dates, fixed, and the case's "now" 20 minutes later, so that snapshots
    do not depend on today (a Pending order's case said "not final 695 days after", 696 the next morning)."""
    monkeypatch.setattr(sim_orders, "datetime", FrozenDatetime)
    monkeypatch.setattr(case_file, "datetime", FrozenCaseClock)


# --- helpers ---------------------------------------------------------------------------


def place(
    sim,
    *lines: tuple[int, str, int],
    request_id: str | None = None,
    credential: str = "acme-sandbox",
    account: int = 1001,
) -> str:
    """Place an order over plain HTTP: lines are (product id, face value, quantity)."""
    request_id = request_id or str(uuid.uuid4())
    body = {
        "RequestId": request_id,
        "AccountId": account,
        "Products": [{"ProductId": p, "Value": float(v), "Quantity": q} for p, v, q in lines],
    }
    response = httpx.post(sim.base_url + CHECKOUT, json=body, auth=demo_credential(credential).auth)
    assert response.status_code == 200, response.text
    return request_id


def sim_status(sim, request_id: str, credential: str = "acme-sandbox") -> str:
    response = httpx.get(
        f"{sim.base_url}/api/integration/v1.0/orders/{request_id}", auth=demo_credential(credential).auth
    )
    return response.json()["status"]


def wait_final(sim, request_id: str) -> None:
    deadline = time.monotonic() + 10
    while not is_order_final(sim_status(sim, request_id)):
        assert time.monotonic() < deadline, "the simulator's order never became final"
        time.sleep(0.1)


async def open_order(pilot, request_id: str, status: str | None = None) -> OrderScreen:
    """Open an order on its screen and wait until it shows (with `status`, if given)."""
    await pilot.app.navigate("order", request_id)
    screen = pilot.app.screen
    await until(pilot, lambda: screen.order is not None and (status is None or screen.order.status == status))
    # Its case (issue 38) comes a moment after the order: its verdict, or why it is not known, is on screen.
    await until(pilot, lambda: screen.case is not None or static_text(screen, "#order-verdict").strip())
    # Its products' names too: they refill the items table, which measures them when it is next idle.
    items = screen.query_one("#order-items")
    await until(pilot, lambda: not naming_products(pilot.app) and not table_awaits_measuring(items))
    await pilot.pause()
    return screen


def naming_products(app) -> bool:
    return any(worker.group == "order-product-names" and not worker.is_finished for worker in app.workers)


def cell_texts(screen, table_id: str) -> list[list[str]]:
    table = screen.query_one(table_id)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def select_card(pilot, screen, status: str) -> None:
    table = screen.query_one("#order-cards")
    row = next(i for i, cells in enumerate(cell_texts(screen, "#order-cards")) if cells[2] == status)
    table.focus()
    table.move_cursor(row=row)
    await pilot.pause()


# --- every order status -------------------------------------------------------------------


async def test_partial_failure_is_impossible_to_miss(sim):
    request_id = place(sim, (102, "10.00", 3), (102, "10.13", 1))
    wait_final(sim, request_id)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_order(pilot, request_id, "PartialFailed")
        head = static_text(screen, "#order-head")
        assert "PartialFailed final" in head and "At least one card succeeded and at least one failed" in head
        assert "Error: 1 of 4 cards failed to be issued." in head
        assert "· Sandbox" in head and "USD" in head
        assert re.search(r"Order O-\d{8} · Created", head)  # the order number as the orders report says it
        summary = screen.query_one("#order-summary")
        assert static_text(screen, "#order-summary") == "3 of 4 cards sold, 1 failed"
        assert summary.has_class("-attention")
        cards = cell_texts(screen, "#order-cards")
        assert [row[0] for row in cards if row[2] == "Failed"] == ["!"]
        assert [row[0] for row in cards if row[2] == "Sold"] == ["", "", ""]
        await settle(pilot)  # the products' names, asked of the catalog
        items = cell_texts(screen, "#order-items")
        named = "102 Acme Books eGift"  # by name, as the board says it (the glossary)
        assert items == [["1", named, "10.00", "3", "US", "USD"], ["2", named, "10.13", "1", "US", "USD"]]
        assert screen._timer is None  # final: no more looks
        assert RecentOrders().entries("demo-sandbox")[0].status == "PartialFailed"


@pytest.mark.parametrize(
    ("lines", "status", "summary", "meaning"),
    [
        ([(102, "10.00", 2)], "Succeeded", "2 of 2 cards sold", "All requested cards fulfilled"),
        ([(102, "10.13", 2)], "Failed", "0 of 2 cards sold, 2 failed", "Order did not complete"),
    ],
)
async def test_final_statuses(sim, lines, status, summary, meaning):
    request_id = place(sim, *lines)
    wait_final(sim, request_id)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_order(pilot, request_id, status)
        assert f"{status} final — {meaning}" in static_text(screen, "#order-head")
        assert static_text(screen, "#order-summary") == summary
        assert static_text(screen, "#order-checked") == "Final. Last checked 03:04:05."


async def test_created_order_not_started_keeps_being_watched(sim_factory):
    sim = sim_factory(timing=NOT_STARTED)
    request_id = place(sim, (102, "10.00", 1))
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_order(pilot, request_id, "Created")
        assert "Created not final — Accepted; fulfillment not started" in static_text(screen, "#order-head")
        assert static_text(screen, "#order-summary") == "0 of 1 card sold, 1 in progress"
        await until(pilot, lambda: screen._unchanged_looks >= 2)  # it looked again, with growing waits
        assert static_text(screen, "#order-checked").startswith("Not final. Last checked 03:04:05; next check in")


async def test_order_moves_from_created_to_succeeded_on_screen(sim_factory):
    sim = sim_factory(timing=SLOW_STEPS)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        request_id = place(sim, (102, "10.00", 2))  # placed once the app is up: it is seen Created
        screen = await open_order(pilot, request_id, "Created")
        seen = ["Created"]

        def note_status() -> bool:
            if screen.order.status != seen[-1]:
                seen.append(screen.order.status)
            return screen.order.status == "Succeeded"

        await until(pilot, note_status)
        assert seen == ["Created", "Processing", "Succeeded"]
        assert f"Order {request_id} is final: Succeeded." in notes(app)
        assert screen._timer is None
        assert RecentOrders().entries("demo-sandbox")[0].status == "Succeeded"


async def test_watch_pauses_while_the_screen_is_hidden(sim_factory):
    sim = sim_factory(timing=NOT_STARTED)
    request_id = place(sim, (102, "10.00", 1))
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_order(pilot, request_id, "Created")
        await pilot.press("question_mark")  # Help goes on top
        await pilot.pause(0.1)
        looks = screen._unchanged_looks
        await pilot.pause(0.8)  # several backoff periods
        assert screen._timer is None and screen._unchanged_looks == looks
        await pilot.press("escape")
        await until(pilot, lambda: screen._unchanged_looks > looks)  # back: it looks at once


# --- masking, reveal and copy ---------------------------------------------------------------


async def test_codes_are_masked_until_revealed_and_audited_without_the_code(sim):
    request_id = place(sim, (502, "20.00", 1))  # Tea & Co: cards with a PIN
    wait_final(sim, request_id)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_order(pilot, request_id, "Succeeded")
        card = screen.order.cards[0]
        code, pin = screen.query_one("#card-code", MaskedValue), screen.query_one("#card-pin", MaskedValue)
        assert card.card_code not in str(code.render()) and "****" in str(code.render())
        assert str(pin.render()) == "****"
        assert card.card_code not in str(cell_texts(screen, "#order-cards"))

        await pilot.press("v")
        assert code.revealed and str(code.render()) == card.card_code
        assert str(pin.render()) == card.pin
        await pilot.press("v")  # again: hidden
        assert not code.revealed and card.card_code not in str(code.render())

        await pilot.press("c")
        assert app.clipboard == card.card_code
        await pilot.press("n")
        assert app.clipboard == card.pin
        assert f"The code of card {card.serial_number} is on the clipboard. It is cleared from it in 30 s." in notes(
            app
        )

        entries = AuditLog().entries()
        assert [e.action for e in entries] == [CARD_COPY, CARD_COPY, CARD_REVEAL]
        assert {e.subject for e in entries} == {request_id}
        assert all(e.detail == f"card {card.serial_number}" for e in entries)
        # The chain's hashes are hex and the times digits: a four-digit PIN may appear in them by chance, so the
        # entries' other fields are read, for the PIN as a number of its own.
        stored = str([entry.model_dump(exclude={"time"}) for entry in AuditLog().entries()])
        assert card.card_code not in stored and not re.search(rf"(?<![0-9A-Za-z]){card.pin}(?![0-9A-Za-z])", stored), (
            stored
        )


async def test_a_paused_card_cannot_be_revealed_or_copied(sim_factory):
    sim = sim_factory(timing=LONG_PAUSE)
    request_id = place(sim, (102, "10.00", 1), (102, "10.14", 1))
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_order(pilot, request_id)
        await until(pilot, lambda: "Paused" in [c.status for c in screen.order.cards])
        assert screen.order.status == "Pending"
        assert static_text(screen, "#order-summary") == "1 of 2 cards sold, 1 paused"
        assert screen.query_one("#order-summary").has_class("-attention")
        await select_card(pilot, screen, "Paused")
        paused = next(c for c in screen.order.cards if c.status == "Paused")
        assert paused.card_code  # the service sent it, and the screen still withholds it
        assert "withheld until the card is Sold" in static_text(screen, "#card-code")

        await pilot.press("v", "c")
        assert not screen.query_one("#card-code", MaskedValue).revealed
        assert app.clipboard != paused.card_code
        assert any("is Paused: codes and PINs are released only for Sold cards" in n for n in notes(app))
        assert AuditLog().entries() == []


async def test_leaving_the_screen_masks_again(sim):
    request_id = place(sim, (102, "10.00", 1))
    wait_final(sim, request_id)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_order(pilot, request_id, "Succeeded")
        await pilot.press("v")
        await pilot.press("question_mark", "escape")
        await pilot.pause()
        assert not screen.query_one("#card-code", MaskedValue).revealed


# --- payout cards -----------------------------------------------------------------------


async def test_payout_card_opens_on_the_payout_screen_and_esc_comes_back(sim):
    request_id = place(sim, (201, "25.00", 1))
    wait_final(sim, request_id)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")  # a Payout screen open below the order: y brings it over the order
        screen = await open_order(pilot, request_id, "Succeeded")
        card = screen.order.cards[0]
        assert cell_texts(screen, "#order-cards")[0][3].startswith("payout ****")
        assert "payout card: y for Redeem / Payout status" in static_text(screen, "#card-title")
        await pilot.press("y")
        await until(pilot, lambda: app.screen.destination == "payout")
        assert app.screen.query_one("#weblink").value == card.card_code
        await pilot.press("escape")
        assert app.screen is screen
        await pilot.press("escape")
        assert app.screen.destination == "catalog"


async def test_an_ordinary_card_is_not_sent_to_payout(sim):
    request_id = place(sim, (102, "10.00", 1))
    wait_final(sim, request_id)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_order(pilot, request_id, "Succeeded")
        await pilot.press("y")
        assert app.screen is screen
        assert any("is not a payout card" in n for n in notes(app))


# --- opening, recent orders, errors --------------------------------------------------------


async def test_order_opens_from_the_command_line_and_from_a_typed_id(sim):
    first, second = place(sim, (102, "10.00", 1)), place(sim, (102, "11.00", 1))
    app = app_on(sim, order=first)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: getattr(app.screen, "order", None) is not None)
        assert app.screen.order.request_id == first
        await pilot.press("i", "ctrl+a", "ctrl+k", *second, "enter")
        await until(pilot, lambda: app.screen.order is not None and app.screen.order.request_id == second)


async def test_jump_to_order(sim):
    request_id = place(sim, (102, "10.00", 1))
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *f"order {request_id}", "enter")
        await until(pilot, lambda: getattr(app.screen, "order", None) is not None)
        assert app.screen.order.request_id == request_id


async def test_recent_orders_survive_a_restart_and_reopen_with_one_key(sim):
    older, newer = place(sim, (102, "10.00", 1)), place(sim, (102, "10.13", 1))
    wait_final(sim, older), wait_final(sim, newer)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await open_order(pilot, older, "Succeeded")
        await open_order(pilot, newer, "Failed")

    restarted = app_on(sim)  # same data dir, a new app
    async with restarted.run_test(size=SIZE) as pilot:
        await restarted.navigate("order")
        screen = restarted.screen
        assert [row[:2] for row in cell_texts(screen, "#recent-orders")] == [[newer, "Failed"], [older, "Succeeded"]]
        screen.query_one("#recent-orders").focus()
        await pilot.press("down", "enter")
        await until(pilot, lambda: screen.order is not None)
        assert screen.order.request_id == older
        await pilot.press("r")
        assert screen.query_one("#order-views").current == "recent-orders"
        await pilot.press("r")
        assert screen.query_one("#order-views").current == "order-view"


async def test_recent_orders_are_per_profile(sim):
    request_id = place(sim, (102, "10.00", 1))
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await open_order(pilot, request_id)
    assert [r.request_id for r in RecentOrders().entries("demo-sandbox")] == [request_id]
    assert RecentOrders().entries("demo-production") == []


async def test_unknown_request_id_is_said_clearly_and_the_screen_stays_usable(sim):
    known = place(sim, (102, "10.00", 1))
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("order", "NO-SUCH-ORDER")
        screen = app.screen
        await until(pilot, lambda: "No order with RequestId NO-SUCH-ORDER" in static_text(screen, "#order-message"))
        assert "demo-sandbox (sandbox)" in static_text(screen, "#order-message")
        assert screen._timer is None  # nothing to watch
        await open_order(pilot, known)
        assert not screen.query_one("#order-message").display


async def test_401_names_the_profile_to_check(sim):
    from tui.local.config import SecretSource

    app = app_on(sim, client_options=QUICK_RETRIES)
    app.session.profile = dataclasses.replace(app.session.profile, secret=SecretSource.inline_demo("wrong"))
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("order", "ANY")
        screen = app.screen
        await until(pilot, lambda: "Authentication failed (401)" in static_text(screen, "#order-message"))
        assert "profile demo-sandbox's client id and secret" in static_text(screen, "#order-message")
        assert screen._timer is None


async def test_unreachable_is_said_and_retried(sim, sim_factory):
    gone = sim_factory()
    base_url = gone.base_url
    gone.stop()
    app = app_on(sim, client_options=QUICK_RETRIES)
    app.session.profile = dataclasses.replace(app.session.profile, base_url=base_url)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("order", "ANY")
        screen = app.screen
        await until(pilot, lambda: "Could not check the order" in static_text(screen, "#order-message"))
        assert "Trying again in" in static_text(screen, "#order-message")
        await until(pilot, lambda: screen._unchanged_looks >= 2)  # it keeps trying, with backoff
        await pilot.press("i", "ctrl+a", "ctrl+k", *"OTHER")  # and the screen still takes input
        assert screen.query_one("#request-id").value == "OTHER"


# --- the guarded test-order form ------------------------------------------------------------


def product_102():
    from tui.api.models import Product

    return Product(
        id=102,
        name="Acme Books eGift",
        min_face_value=5,
        max_face_value=500,
        count=None,
        price={"min": 5, "max": 500, "currencyCode": "USD"},
    )


async def open_form(pilot, product=None, request_id="FORM-0001") -> NewOrderScreen:
    form = NewOrderScreen(product, request_id=request_id)
    await pilot.app.push_screen(form)
    await until(pilot, lambda: form.accounts)  # accounts loaded
    await pilot.pause()
    return form


async def fill(pilot, form, **fields: str) -> None:
    for name, value in fields.items():
        form.query_one(f"#{name.replace('_', '-')}").value = value
    await pilot.pause()


async def press_place(pilot) -> None:
    await pilot.click("#place")
    await pilot.pause(0.2)


def placed(sim, request_id, credential="acme-sandbox") -> bool:
    response = httpx.get(
        f"{sim.base_url}/api/integration/v1.0/orders/{request_id}", auth=demo_credential(credential).auth
    )
    return response.status_code == 200


async def test_form_offers_only_active_accounts_of_the_environment(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, product_102())
        assert list(form.accounts) == [1001, 1002, 1003]  # not 1004 (inactive), not 1090 (production)
        assert form.query_one("#account").value == 1001
        assert str(form.query_one("#new-order-request-id").render()) == "FORM-0001"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"face_value": "4.99"}, "Face value must be between 5 and 500 for Acme Books eGift."),
        ({"face_value": "ten"}, "Face value must be a number"),
        ({"face_value": "10", "quantity": "0"}, "Quantity must be between 1 and 500."),
        ({"face_value": "10", "product_id": "999999"}, "No product 999999 in this profile's catalog."),
    ],
)
async def test_form_validation_stops_before_anything_is_sent(sim, fields, problem):
    app = app_on(sim)
    request_id = str(uuid.uuid4())
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, product_102(), request_id=request_id)
        await fill(pilot, form, **fields)
        await press_place(pilot)
        await until(pilot, lambda: problem in str(form.query_one("#new-order-problem").render()))
        assert app.screen is form  # no confirmation
    assert not placed(sim, request_id)
    assert AuditLog().entries() == []


async def test_sandbox_test_order_is_confirmed_placed_audited_and_followed(sim):
    app = app_on(sim)
    request_id = str(uuid.uuid4())
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, request_id=request_id)
        await fill(pilot, form, product_id="102", face_value="12.50", quantity="2")
        await press_place(pilot)
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        summary = app.screen.summary_text()
        for fact in ("SANDBOX", "1001 (", "102 Acme Books eGift", "Face value:  12.50 USD × 2 = 25.00 USD", request_id):
            assert fact in summary
        assert app.screen.typed_phrase is None
        await pilot.click("#confirm")
        await until(pilot, lambda: isinstance(app.screen, OrderScreen) and app.screen.order is not None)
        screen = app.screen
        await until(pilot, lambda: screen.order.status == "Succeeded")
        assert screen.order.request_id == request_id
        entry, attempt = AuditLog().entries(action=TEST_ORDER)
        assert (entry.subject, entry.outcome, entry.environment) == (request_id, "placed", "sandbox")
        assert entry.detail == "account 1001, product 102, value 12.5 x 2"
        assert (
            attempt.outcome == "attempt"
            and attempt.detail == f"{entry.detail}; check: giftdesk order show {request_id}"
        )


async def test_production_needs_the_typed_phrase_and_nothing_is_placed_without_it(sim):
    app = app_on(sim, profile="demo-production")
    request_id = str(uuid.uuid4())
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, product_102(), request_id=request_id)
        assert form.has_class("-production") and list(form.accounts) == [2001, 2002, 2003]
        await fill(pilot, form, face_value="10")
        await press_place(pilot)
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        confirm = app.screen
        assert confirm.typed_phrase == "10.00"  # the total face value: 10 × 1
        summary = confirm.summary_text()
        assert "PRODUCTION" in summary and "10.00 USD × 1 = 10.00 USD" in summary
        assert confirm.title_text == "Place this production order?"
        await pilot.press(*"10", "enter")  # not the phrase
        assert app.screen is confirm and confirm.query_one("#confirm").disabled
        assert "That is not the total face value" in str(confirm.query_one("#phrase-problem").render())
        await pilot.press("escape")
        await pilot.pause(0.2)
        assert app.screen is form
        assert not placed(sim, request_id, "acme-production")

        await press_place(pilot)
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press(*"10.00", "enter")
        await until(pilot, lambda: isinstance(app.screen, OrderScreen))
    assert placed(sim, request_id, "acme-production")


async def test_readonly_offers_no_test_order(sim):
    app = app_on(sim, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("order")
        screen = app.screen
        assert screen.check_action("new_test_order", ()) is False  # not offered: hidden
        app.open_new_order(product_102())  # e.g. from the catalog: refused on arrival
        await pilot.pause(0.2)
        assert app.screen is screen
        assert "Read-only: test orders are not offered." in notes(app)


async def test_a_network_failure_keeps_the_request_id_and_the_retry_resends_it(sim, monkeypatch):
    from tui.api.client import ServiceClient
    from tui.api.errors import UnreachableError

    sent = []
    real_place = ServiceClient.place_order

    async def flaky_place(self, order):
        sent.append(order.request_id)
        if len(sent) == 1:  # the request reached the service, the answer was lost
            await real_place(self, order)
            raise UnreachableError("POST /api/integration/v1.0/orders/checkout: timed out")
        return await real_place(self, order)

    monkeypatch.setattr(ServiceClient, "place_order", flaky_place)
    app = app_on(sim)
    request_id = str(uuid.uuid4())
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, product_102(), request_id=request_id)
        await fill(pilot, form, face_value="10")
        for attempt in (1, 2):
            await press_place(pilot)
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.click("#confirm")
            if attempt == 1:
                await until(pilot, lambda: "Not confirmed" in str(form.query_one("#new-order-problem").render()))
                assert app.screen is form and form.request_id == request_id
        # The re-send met its own first attempt (OrderAlreadyExists): that order opens.
        await until(pilot, lambda: isinstance(app.screen, OrderScreen) and app.screen.order is not None)
        assert app.screen.order.request_id == request_id
    assert sent == [request_id, request_id]
    outcomes = [e.outcome for e in AuditLog().entries(action=TEST_ORDER)]
    assert [outcome.split(";")[0].split(":")[0] for outcome in outcomes] == [
        "placed (found after a lost answer)",
        "attempt",
        "outcome unknown",
        "attempt",
    ]


# --- snapshots ------------------------------------------------------------------------------
# A fresh simulator per snapshot (ids and balances start afresh), its clock frozen,
# fixed RequestIds and a fixed "last checked": nothing on screen depends on today.


def showing(request_id: str, status: str):
    async def run_before(pilot) -> None:
        await open_order(pilot, request_id, status)
        await pilot.pause(0.2)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot_partial_failure(snap_compare, sim_factory, frozen_sim_clock, size):
    sim = sim_factory()
    request_id = place(sim, (102, "10.00", 3), (502, "5.13", 1), request_id="5a0b0000-0000-4000-8000-000000000001")
    wait_final(sim, request_id)
    assert snap_compare(app_on(sim), terminal_size=size, run_before=showing(request_id, "PartialFailed"))


def test_snapshot_pending_with_a_paused_card(snap_compare, sim_factory, frozen_sim_clock):
    sim = sim_factory(timing=LONG_PAUSE)
    request_id = place(sim, (102, "10.00", 1), (102, "10.14", 1), request_id="5a0b0000-0000-4000-8000-000000000002")

    async def run_before(pilot) -> None:
        screen = await open_order(pilot, request_id)
        await until(pilot, lambda: "Paused" in [c.status for c in screen.order.cards])
        await select_card(pilot, screen, "Paused")

    assert snap_compare(app_on(sim), terminal_size=SIZE, run_before=run_before)


def test_snapshot_payout_card(snap_compare, sim_factory, frozen_sim_clock):
    sim = sim_factory()
    request_id = place(sim, (201, "25.00", 1), request_id="5a0b0000-0000-4000-8000-000000000003")
    wait_final(sim, request_id)
    assert snap_compare(app_on(sim), terminal_size=SIZE, run_before=showing(request_id, "Succeeded"))


def test_snapshot_unknown_request_id(snap_compare, sim):
    async def run_before(pilot) -> None:
        await pilot.app.navigate("order", "NO-SUCH-ORDER")
        # The message and its toast both arrive before the toast is cleared (it would cover the screen).
        await until(
            pilot,
            lambda: "No order" in static_text(pilot.app.screen, "#order-message") and len(pilot.app._notifications) > 0,
        )
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app_on(sim), terminal_size=SIZE, run_before=run_before)


def test_snapshot_production_confirmation(snap_compare, sim_factory):
    async def run_before(pilot) -> None:
        form = await open_form(pilot, product_102(), request_id="SNAP-PROD-0001")
        await fill(pilot, form, face_value="25", quantity="2")
        await press_place(pilot)
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))

    assert snap_compare(app_on(sim_factory(), profile="demo-production"), terminal_size=SIZE, run_before=run_before)


def test_snapshot_test_order_form(snap_compare, sim_factory):
    async def run_before(pilot) -> None:
        form = await open_form(pilot, product_102(), request_id="SNAP-FORM-0001")
        await fill(pilot, form, face_value="4")
        await press_place(pilot)
        await until(pilot, lambda: "between 5 and 500" in str(form.query_one("#new-order-problem").render()))

    assert snap_compare(app_on(sim_factory()), terminal_size=SIZE, run_before=run_before)
