"""The payout screen against the simulator (issue 7): validation as typed, every
payout flow, refusals, 429, the idempotent repeat, status-first recovery,
read-only and production guards, and snapshots of the key states."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from apps import app_on
from apps import rendered as text
from apps import until as wait_until
from spec_cases import PAYOUT_CASES, PAYPAL, VENMO, PayoutCase
from textual.widgets import Button, Input
from textual.widgets.input import Selection

from tui.api.client import NO_RETRY
from tui.core.payout_flow import Phase
from tui.core.polling import Backoff
from tui.screens.payout import PayoutScreen
from tui.simulator import TIMING_PRESETS, demo_credential
from widgets.confirm import ConfirmScreen

SIZE = (80, 24)
PAYOUT_PRODUCT = 201  # "Giftdesk USD Payout", USD, face value 1 to 2000 (docs/simulator.md)
ACCOUNTS = {"acme-sandbox": 1001, "acme-production": 2001, "other-sandbox": 3001}
FIELDS = {"recipientEmail": "email", "recipientPhone": "phone", "recipientHandle": "handle"}


@pytest.fixture
def private_dirs(tmp_path: Path) -> Path:
    """The data dir (audit log) that conftest's isolated_dirs points giftdesk at."""
    return tmp_path / "data"


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    # The real schedule (1 s doubling to 30 s) is pinned in test_poll_schedule; tests poll faster.
    monkeypatch.setattr(PayoutScreen, "backoff", Backoff(first=0.25, cap=1.0))


class FrozenClock:
    def monotonic(self) -> float:
        return 1000.0

    def wall(self) -> str:
        return "12:00:00"


# --- payout cards, placed over plain HTTP ----------------------------------------------


def payout_cards(sim, count: int = 1, *, value: float = 10.0, credential: str = "acme-sandbox") -> list[str]:
    """Card codes (payout URLs) of a new payout order, once Sold. Tolerates injected faults."""
    cred = demo_credential(credential)
    request_id = str(uuid.uuid4())
    body = {
        "RequestId": request_id,
        "AccountId": ACCOUNTS[credential],
        "Products": [{"ProductId": PAYOUT_PRODUCT, "Quantity": count, "Value": value}],
    }
    with httpx.Client(base_url=sim.base_url, auth=cred.auth, timeout=5) as http:
        for _ in range(50):
            try:
                placed = http.post("/api/integration/v1.0/orders/checkout", json=body)
            except httpx.TransportError:
                continue
            # A dropped answer may hide a placed order: the repeat then says it exists.
            if placed.status_code == 200 or "OrderAlreadyExists" in placed.text:
                break
        for _ in range(200):
            try:
                order = http.get(f"/api/integration/v1.0/orders/{request_id}")
            except httpx.TransportError:
                continue
            cards = order.json()["items"][0]["cards"] if order.status_code == 200 else []
            if cards and all(card["status"] == "Sold" for card in cards):
                return [card["cardCode"] for card in cards]
            time.sleep(0.05)
    raise AssertionError("the payout order did not reach Sold")


def token_of(card_code: str) -> str:
    return card_code.rsplit("/", 1)[-1]


# --- driving the screen --------------------------------------------------------------


async def open_payout(app, pilot, card_code: str | None = None) -> PayoutScreen:
    await app.navigate("payout", card_code)
    await pilot.pause()
    assert isinstance(app.screen, PayoutScreen)
    return app.screen


async def fill(
    pilot, screen: PayoutScreen, wallet: str | None, kind: str = "email", value: str = "", *, typed: bool = False
) -> None:
    if wallet is not None:
        await pilot.click(f"#wallet-{wallet}")
    await pilot.click(f"#kind-{kind}")
    recipient = screen.query_one("#recipient", Input)
    if typed and value:
        # The last keystroke typed for real (typing every character is slow under load).
        recipient.focus()
        await pilot.pause()
        recipient.value = value[:-1]
        recipient.selection = Selection.cursor(len(recipient.value))  # focus selected the old text
        await pilot.press(value[-1])
    else:
        recipient.value = value
    await pilot.pause()


async def redeem(pilot, app, *, phrase: str | None = None) -> None:
    """Press Redeem and confirm (typing the phrase in production)."""
    await pilot.click("#redeem")
    await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
    if phrase is not None:
        app.screen.query_one("#phrase", Input).value = phrase
        await pilot.pause()
    await pilot.click("#confirm")
    await pilot.pause()


def shown_status(screen: PayoutScreen) -> str | None:
    return screen.payout.status if screen.payout else None


async def redeem_to_final(pilot, app, screen: PayoutScreen, wallet: str, kind: str, value: str, expected: str) -> None:
    """Redeem, then follow the payout until `expected` (checking again past an earlier final status)."""
    await fill(pilot, screen, wallet, kind, value)
    await redeem(pilot, app)
    deadline = time.monotonic() + 20  # generous: a loaded machine is slow, not wrong
    while shown_status(screen) != expected:
        assert time.monotonic() < deadline, f"stuck at {shown_status(screen)}"
        if screen.live_token is None and shown_status(screen) not in (None, "Pending"):
            await pilot.press("s")  # Unclaimed/Completed are final for the watcher; the payout may move on
        await pilot.pause(0.1)


def audit_lines(data_dir: Path) -> list[dict]:
    """The outcome lines: each redeem's "attempt" line before it is sent is left out (tests/world/test_money_faults.py)."""
    path = data_dir / "audit.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [line for line in lines if line["outcome"] != "attempt"]


# --- local validation ------------------------------------------------------------------


def form_input(case: PayoutCase) -> tuple[str | None, str, str] | None:
    """(wallet, kind, value) for a spec case the form can express, else None.

    The form cannot send a lower-case or unknown wallet, two recipients, or a
    kind the wallet does not take (not offered); an empty input means no recipient.
    """
    if case.body is None:
        return None
    wallet = case.body.get("wallet")
    given = [(FIELDS[name], value) for name, value in case.body.items() if name in FIELDS and value is not None]
    if wallet not in (None, PAYPAL, VENMO) or len(given) > 1:
        return None
    kind, value = given[0] if given else ("email", "")
    if (wallet != VENMO and kind != "email") or (given and value == ""):
        return None
    return wallet, kind, value


FORM_CASES = [case for case in PAYOUT_CASES if form_input(case) is not None]
FORM_PARTS = 4  # the cases in four tests: one took 40 s, the whole suite's longest pole


def test_form_covers_every_message_it_can_show():
    reachable = {case.error for case in FORM_CASES}
    assert reachable >= {
        "A valid wallet (PayPal or Venmo) is required.",
        "Provide exactly one of recipient email, phone, or handle.",
        "Invalid recipient email address.",
        "Invalid recipient phone number.",
        "Invalid recipient user handle.",
        None,
    }


async def fresh_form(app, pilot, card: str) -> PayoutScreen:
    """A new payout screen with the weblink pasted (radio sets cannot be unpressed)."""
    if isinstance(app.screen, PayoutScreen):
        await app.pop_screen()
    screen = await open_payout(app, pilot)
    screen.query_one("#weblink", Input).value = card
    await pilot.pause()
    return screen


async def shows_within(pilot, screen: PayoutScreen, selector: str, expected: str, first_line: bool = False) -> None:
    """Waits a little for `selector` to show `expected` (or begin with it as a line): a loaded machine may take more
    than a frame."""

    def shown() -> bool:
        said = text(screen, selector)
        return (said.splitlines() or [""])[0] == expected if first_line else said == expected

    with contextlib.suppress(AssertionError):
        await wait_until(pilot, shown, timeout=5)


@pytest.mark.parametrize("part", range(FORM_PARTS))
async def test_every_validation_message_as_typed(sim, private_dirs, part):
    (card,) = payout_cards(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        for case in FORM_CASES[part::FORM_PARTS]:
            screen = await fresh_form(app, pilot, card)
            wallet, kind, value = form_input(case)
            await fill(pilot, screen, wallet, kind, value, typed=True)
            expected = case.error or "✓ Ready to redeem"
            await shows_within(pilot, screen, "#problem", expected, first_line=True)
            said = text(screen, "#problem").splitlines()
            assert said[0] == expected, case.name  # the spec's own text, then its rule in words
            assert len(said) == (2 if case.error else 1), case.name  # a rule follows each error
            assert screen.query_one("#redeem", Button).disabled is (case.error is not None), case.name
        # An invalid form opens no confirmation and sends nothing.
        await fill(pilot, screen, VENMO, "phone", "+1 555")
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
    assert sim.payouts_for(token_of(card)) == []
    assert audit_lines(private_dirs) == []


async def test_paypal_offers_email_only_and_venmo_all_three(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot)
        await fill(pilot, screen, VENMO, "handle", "@ann_smith")
        assert [b.id for b in screen.query("#kind RadioButton")] == ["kind-email", "kind-phone", "kind-handle"]
        await pilot.click("#wallet-PayPal")
        await pilot.pause()
        assert [b.id for b in screen.query("#kind RadioButton")] == ["kind-email"]
        assert screen._pressed("#kind") == "email"
        assert text(screen, "#problem").splitlines()[0] == "Invalid recipient email address."


async def test_weblink_is_masked_and_the_token_kept_exactly(sim):
    (card,) = payout_cards(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot)
        field = screen.query_one("#weblink", Input)
        field.value = token_of(card)  # a bare token works as well as the URL
        await pilot.pause()
        assert field.password
        shown = text(screen, "#weblink-shown")
        assert token_of(card) not in shown and "****" in shown
        assert screen.form.token() == token_of(card) and "%3D" in token_of(card)


# --- outcomes --------------------------------------------------------------------------


async def test_paypal_completes_at_once_with_copyable_ids(sim, private_dirs):
    (card,) = payout_cards(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: shown_status(screen) == "Completed")
        assert screen.live_token is None  # 200: nothing to poll
        (payout,) = sim.payouts_for(token_of(card))
        assert payout["transactionId"] in text(screen, "#payout-ids")
        assert "Funds delivered" in text(screen, "#payout-status")
        screen.query_one("#redeem", Button).focus()
        await pilot.press("c")
        assert app.clipboard == f"transactionId {payout['transactionId']} payoutBatchId {payout['payoutBatchId']}"
    (entry,) = audit_lines(private_dirs)
    assert entry["action"] == "redeem" and entry["outcome"] == "completed"
    assert entry["profile"] == "demo-sandbox" and entry["environment"] == "sandbox" and entry["wallet"] == PAYPAL
    raw = (private_dirs / "audit.jsonl").read_text()
    assert "ann@example.com" not in raw and token_of(card) not in raw and "****" in entry["subject"]


async def test_venmo_202_then_completed_while_on_screen(sim_factory):
    # Pending lasts a few seconds here: at the fast preset's 0.5 s, a loaded machine can miss it.
    sim = sim_factory(timing=TIMING_PRESETS["fast"].replace(payout_step_seconds=3.0))
    (card,) = payout_cards(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, VENMO, "handle", "@ann_smith")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: shown_status(screen) == "Pending")
        assert screen.live_token == token_of(card)
        assert "Live · elapsed" in text(screen, "#payout-timing")
        await wait_until(pilot, lambda: shown_status(screen) == "Completed")
        assert screen.live_token is None
        assert "last check" in text(screen, "#payout-timing")


@pytest.mark.parametrize(
    ("wallet", "kind", "recipient", "final", "words"),
    [
        (PAYPAL, "email", "unclaimed@example.com", "Unclaimed", "30 days"),
        (VENMO, "phone", "+15550000002", "Failed", "invalid account"),
        (PAYPAL, "email", "returned@example.com", "Returned", "claim window expired"),
        (VENMO, "handle", "@reversed_ann", "Reversed", "reversed or refunded"),
    ],
)
async def test_payout_flows_reach_their_status_with_its_meaning(sim, wallet, kind, recipient, final, words):
    (card,) = payout_cards(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await redeem_to_final(pilot, app, screen, wallet, kind, recipient, final)
        assert words in text(screen, "#payout-status") + text(screen, "#payout-advice")


async def test_unclaimed_explains_the_claim_window(sim):
    (card,) = payout_cards(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await redeem_to_final(pilot, app, screen, VENMO, "email", "unclaimed@example.com", "Unclaimed")
        assert "about 30 days" in text(screen, "#payout-advice") and "Venmo account" in text(screen, "#payout-advice")


# --- refusals --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message", "advice"),
    [
        (10.21, "Weblink is disabled", "disabled by the provider"),
        (10.22, "Payout weblink expired", "past its expiration date"),
    ],
)
async def test_disabled_and_expired_weblinks_show_the_service_text(sim, private_dirs, value, message, advice):
    (card,) = payout_cards(sim, value=value)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: "Refused" in text(screen, "#payout-status"))
        assert text(screen, "#payout-status") == f"Refused: {message}"
        assert advice in text(screen, "#payout-advice")
        assert screen.flow.phase is Phase.EDITING  # nothing in doubt: the form is open again
    assert audit_lines(private_dirs)[0]["outcome"] == f"refused: {message}"


async def test_another_clients_weblink_is_a_generic_failure(sim):
    (card,) = payout_cards(sim)  # acme's card
    app = app_on(sim, profile="demo-other")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        assert "No payout found" in text(screen, "#payout-status")  # the lookup reveals nothing either
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: "Refused" in text(screen, "#payout-status"))
        assert text(screen, "#payout-status") == "Refused: Failed to redeem weblink"
        assert "another client" in text(screen, "#payout-advice")
    assert sim.payouts_for(token_of(card)) == []


async def test_recipient_mismatch_says_to_use_the_earlier_recipient(sim):
    (card,) = payout_cards(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: shown_status(screen) == "Completed")
        await fill(pilot, screen, PAYPAL, "email", "bob@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: "Refused" in text(screen, "#payout-status"))
        assert text(screen, "#payout-status") == "Refused: Recipient ID does not match"
        assert "earlier attempt used a different recipient" in text(screen, "#payout-advice")
    assert len(sim.payouts_for(token_of(card))) == 1


async def test_authentication_failure_names_the_profile(sim):
    (card,) = payout_cards(sim)
    app = app_on(sim)
    broken = app.profiles["demo-sandbox"]
    app.session.profile = dataclasses.replace(broken, client_id="nobody")
    async with app.run_test(size=SIZE) as pilot:
        screen = await fresh_form(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: "401" in text(screen, "#payout-status"))
        assert "demo-sandbox" in text(screen, "#payout-advice")


# --- repeats, 429 and failures on the way ------------------------------------------------------


async def test_a_repeat_shows_the_existing_payout(sim, private_dirs):
    (card,) = payout_cards(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: shown_status(screen) == "Completed")
        first = screen.payout.transaction_id
        await redeem(pilot, app)
        await wait_until(pilot, lambda: "redeemed before" in text(screen, "#payout-advice"))
        assert screen.payout.transaction_id == first
    assert len(sim.payouts_for(token_of(card))) == 1
    assert [entry["outcome"] for entry in audit_lines(private_dirs)] == ["completed", "completed (existing payout)"]


async def test_429_waits_and_retries_visibly_then_succeeds(sim_factory):
    # Held long enough that ours meets it on a loaded machine too, and shorter than the client's
    # retries of a 429 (at least 1.75 s from the first to the fourth and last): the last one gets through.
    sim = sim_factory(timing=TIMING_PRESETS["fast"].replace(redeem_hold_seconds=1.5))
    (card,) = payout_cards(sim)
    cred = demo_credential("acme-sandbox")

    def redeem_elsewhere() -> None:  # another session holds the weblink meanwhile
        httpx.post(
            f"{sim.base_url}/api/Integration/v2/payout/redeem/{token_of(card)}",
            json={"wallet": PAYPAL, "recipientEmail": "ann@example.com"},
            auth=cred.auth,
            timeout=5,
        )

    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await pilot.click("#redeem")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        other = threading.Thread(target=redeem_elsewhere)
        other.start()
        await wait_until(pilot, lambda: token_of(card) in sim.state.payouts.in_flight)  # the other is held now
        await pilot.click("#confirm")
        # Said on the screen's status line, in place (issue 35), not a toast per retry.
        await wait_until(pilot, lambda: "rate limited" in str(screen.status_line.render()))
        await wait_until(pilot, lambda: shown_status(screen) == "Completed")
        other.join()
    assert len(sim.payouts_for(token_of(card))) == 1


class FailingRedeem(httpx.AsyncHTTPTransport):
    """Fails the first redeem POST: before it reaches the service, or after (answer lost)."""

    def __init__(self, *, after_sending: bool) -> None:
        super().__init__()
        self.after_sending = after_sending
        self.failures_left = 1

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and "/payout/redeem/" in request.url.raw_path.decode() and self.failures_left:
            self.failures_left -= 1
            if self.after_sending:
                await super().handle_async_request(request)
                raise httpx.ReadError("connection dropped")
            raise httpx.ConnectError("connection refused")
        return await super().handle_async_request(request)


async def test_lost_submit_checks_the_status_then_offers_a_retry_with_the_same_recipient(sim, private_dirs):
    (card,) = payout_cards(sim)
    app = app_on(sim, client_options={"retry": NO_RETRY, "transport": FailingRedeem(after_sending=False)})
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: screen.flow.phase is Phase.RETRY_OFFERED)
        assert "No payout recorded" in text(screen, "#payout-status")
        assert all(screen.query_one(s).disabled for s in ("#weblink", "#wallet", "#kind", "#recipient"))
        assert str(screen.query_one("#redeem", Button).label) == "Retry…"
        screen.query_one("#recipient", Input).value = "bob@example.com"  # even if forced, the retry ignores the form
        await redeem(pilot, app)
        await wait_until(pilot, lambda: shown_status(screen) == "Completed")
    (payout,) = sim.payouts_for(token_of(card))
    assert payout["recipient"] == "ann@example.com"
    outcomes = [entry["outcome"] for entry in audit_lines(private_dirs)]
    assert outcomes[0].startswith("outcome unknown:") and outcomes[1] == "completed"


async def test_lost_answer_shows_the_payout_found_and_offers_no_retry(sim):
    (card,) = payout_cards(sim)
    app = app_on(sim, client_options={"retry": NO_RETRY, "transport": FailingRedeem(after_sending=True)})
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: shown_status(screen) == "Completed")
        assert screen.flow.phase is Phase.EDITING
        assert str(screen.query_one("#redeem", Button).label) == "Redeem…"
    assert len(sim.payouts_for(token_of(card))) == 1


# --- status lookup, jump, guards ------------------------------------------------------------


async def test_status_lookup_refreshes_live_until_final(sim_factory):
    # Pending for 4 s: opening the screen on a loaded machine took longer than 2.
    sim = sim_factory(timing=TIMING_PRESETS["fast"].replace(payout_step_seconds=4.0))
    (card,) = payout_cards(sim)
    cred = demo_credential("acme-sandbox")
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        answer = httpx.post(
            f"{sim.base_url}/api/Integration/v2/payout/redeem/{token_of(card)}",
            json={"wallet": VENMO, "recipientHandle": "@processing_ann"},
            auth=cred.auth,
        )
        assert answer.status_code == 202
        screen = await open_payout(app, pilot, card)  # the order inspector's jump
        assert screen.query_one("#weblink", Input).value == card
        await wait_until(pilot, lambda: shown_status(screen) == "Pending")
        assert answer.json()["transactionId"] in text(screen, "#payout-ids")
        await wait_until(pilot, lambda: shown_status(screen) == "Completed")
        assert screen.live_token is None


async def test_polling_pauses_while_the_screen_is_hidden(sim):
    (card,) = payout_cards(sim)
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, VENMO, "handle", "@stuck_ann")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: screen.live_token is not None and shown_status(screen) == "Pending")
        await app.navigate("help")
        await pilot.pause()
        assert not [w for w in app.workers if w.group == "status" and w.is_running]
        await pilot.press("escape")
        await wait_until(pilot, lambda: any(w.group == "status" and w.is_running for w in app.workers))


async def test_read_only_never_submits(sim):
    (card,) = payout_cards(sim)
    app = app_on(sim, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        assert screen.query_one("#redeem", Button).disabled
        assert screen.check_action("redeem", ()) is False  # not offered: hidden
        assert "Read-only" in text(screen, "#readonly-note")
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
    assert sim.payouts_for(token_of(card)) == []


async def test_production_requires_the_typed_confirmation(sim):
    (card,) = payout_cards(sim, credential="acme-production")
    app = app_on(sim, profile="demo-production")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await pilot.click("#redeem")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        confirm = app.screen
        summary = confirm.summary_text()
        for words in ("PayPal", "ann@example.com", "****", "demo-production", "PRODUCTION"):
            assert words in summary
        assert token_of(card) not in summary
        assert confirm.query_one("#confirm", Button).disabled
        confirm.query_one("#phrase", Input).value = ".com"
        await pilot.pause()
        assert confirm.query_one("#confirm", Button).disabled
        confirm.query_one("#phrase", Input).value = "ann"
        await pilot.pause()
        await pilot.click("#confirm")
        await wait_until(pilot, lambda: shown_status(screen) == "Completed")


# --- the flow without Textual -----------------------------------------------------------------


def test_poll_schedule_backs_off_from_1_to_30_seconds():
    schedule: Iterator[float] = Backoff().delays()
    assert [next(schedule) for _ in range(8)] == [1, 2, 4, 8, 16, 30, 30, 30]


def test_flow_refuses_a_second_submit_and_retries_only_the_same_attempt():
    from tui.core.payout_flow import PayoutForm, RedeemFlow

    flow = RedeemFlow()
    form = PayoutForm(weblink="abcDEF123%3D", wallet=PAYPAL, value="ann@example.com")
    attempt = flow.next_attempt(form)
    flow.submitting(attempt)
    assert not flow.can_submit(form) and flow.form_locked
    with pytest.raises(RuntimeError):
        flow.submitting(attempt)
    flow.lost()
    assert not flow.can_submit(form)  # a status check comes first
    with pytest.raises(RuntimeError):
        flow.reset()
    flow.checked(payout_exists=False)
    other = PayoutForm(weblink="abcDEF123%3D", wallet=PAYPAL, value="bob@example.com")
    assert flow.can_submit(other) and flow.next_attempt(other) == attempt


# --- snapshots (fresh simulator: the same card ids and tokens on every run) ----------------------


def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(PayoutScreen, "clock", FrozenClock())


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot_form_with_a_validation_message(sim_factory, snap_compare, monkeypatch, size):
    frozen(monkeypatch)
    sim = sim_factory()
    (card,) = payout_cards(sim)
    app = app_on(sim)

    async def run_before(pilot) -> None:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, VENMO, "phone", "+1 555 123")
        assert text(screen, "#problem").splitlines()[0] == "Invalid recipient phone number."

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_snapshot_completed(sim_factory, snap_compare, monkeypatch):
    frozen(monkeypatch)
    sim = sim_factory()
    (card,) = payout_cards(sim)
    app = app_on(sim)

    async def run_before(pilot) -> None:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: shown_status(screen) == "Completed")
        screen.query_one("#redeem", Button).focus()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_unclaimed_wide(sim_factory, snap_compare, monkeypatch):
    frozen(monkeypatch)
    sim = sim_factory()
    (card,) = payout_cards(sim)
    app = app_on(sim)

    async def run_before(pilot) -> None:
        screen = await open_payout(app, pilot, card)
        await redeem_to_final(pilot, app, screen, VENMO, "email", "unclaimed@example.com", "Unclaimed")
        screen.query_one("#redeem", Button).focus()

    assert snap_compare(app, terminal_size=(160, 48), run_before=run_before)


def test_snapshot_production_confirmation(sim_factory, snap_compare, monkeypatch):
    frozen(monkeypatch)
    sim = sim_factory()
    (card,) = payout_cards(sim, credential="acme-production")
    app = app_on(sim, profile="demo-production")

    async def run_before(pilot) -> None:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, VENMO, "phone", "+15551234567")
        await pilot.click("#redeem")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_retry_offered(sim_factory, snap_compare, monkeypatch):
    frozen(monkeypatch)
    sim = sim_factory()
    (card,) = payout_cards(sim)
    app = app_on(sim, client_options={"retry": NO_RETRY, "transport": FailingRedeem(after_sending=False)})

    async def run_before(pilot) -> None:
        screen = await open_payout(app, pilot, card)
        await fill(pilot, screen, PAYPAL, "email", "ann@example.com")
        await redeem(pilot, app)
        await wait_until(pilot, lambda: screen.flow.phase is Phase.RETRY_OFFERED)
        screen.query_one("#redeem", Button).focus()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
