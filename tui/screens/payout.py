"""Payout: redeem a payout card to a wallet, and follow a payout's status live.

One weblink at a time: the field at the top feeds both the redeem form and
the status lookup, and the panel below shows that weblink's payout. Money
leaves here, so (tui/payout_flow.py has the rules):
- Redeem is enabled only for a valid form (local checks with the spec's
  texts), never in read-only, and never while an attempt is in flight;
- every redeem goes through a confirmation (typed in production);
- a submit whose outcome is unknown is followed by a status check, and only
  a check that finds no payout offers a retry, of the very same attempt.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, RadioSet, Static

from styles import STYLES
from tui.api.errors import AuthenticationError, RefusedError, ServiceError
from tui.api.models import PayoutStatus, RedeemResult
from tui.api.payout_rules import RecipientInvalid, redeem_rule
from tui.api.redact import mask_recipient, mask_weblink
from tui.api.statuses import is_payout_final, payout_status_meaning
from tui.core.payout_flow import (
    EMAIL,
    KIND_LABELS,
    KIND_PLACEHOLDERS,
    KINDS_BY_WALLET,
    WALLETS,
    Attempt,
    Clock,
    PayoutForm,
    Phase,
    RedeemFlow,
    face_values,
    format_elapsed,
    status_advice,
)
from tui.core.polling import Backoff
from tui.money import AuditUnavailable, EnvironmentMismatch, MoneyWrites, NotSent
from tui.screens.base import BaseScreen
from widgets.confirm import ConfirmScreen, PrivateLine, SummaryLine
from widgets.private import PRIVATE
from widgets.safe_text import VisibleControls, safe, safe_assemble
from widgets.status_badge import status_text
from widgets.toggles import StatedRadioButton

IN_DOUBT = (Phase.CHECKING, Phase.UNKNOWN)


class PayoutScreen(BaseScreen):
    destination = "payout"
    CSS_PATH = STYLES / "payout.tcss"
    WRITE_ACTIONS = frozenset({"redeem"})
    BINDINGS = [
        Binding("i", "focus_weblink", "Weblink", id="payout.weblink"),
        Binding("w", "pin", "Watch", id="payout.watch"),
        Binding("ctrl+r", "redeem", "Redeem…", id="payout.redeem"),  # a chord: money never leaves on one stray letter
        Binding("s", "lookup", "Status", id="payout.lookup"),
        Binding("c", "copy_ids", "Copy ids", id="payout.copy"),
    ]

    # Replaced in tests: a frozen clock for snapshots, a faster schedule for speed.
    clock: ClassVar[Clock] = Clock()
    backoff: ClassVar[Backoff] = Backoff()

    def __init__(self) -> None:
        super().__init__()
        self.flow = RedeemFlow()
        self.form = PayoutForm()
        self.panel_token: str | None = None  # the weblink whose payout the panel shows
        self.payout: PayoutStatus | None = None  # what the panel shows, when a payout is known
        self.live_token: str | None = None  # a live watch wanted for this token (resumed after a pause)
        self.watch_since: float | None = None
        self.last_check: str | None = None
        self.next_check_at: float | None = None
        self._timing_line = ""  # what #payout-timing shows, to skip identical updates
        self._panel: tuple[Text, Text, Text] | None = None  # what the status panel shows, likewise

    # --- layout ----------------------------------------------------------------

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="payout-body"):
            with Horizontal(classes="field"):
                yield Label("Weblink", classes="field-label")
                weblink = Input(
                    id="weblink",
                    password=True,
                    compact=True,
                    classes=PRIVATE,
                    placeholder="payout card code URL or weblink token; enter looks up its status",
                )
                # Pasted, not typed, and often left focused while a payout is watched:
                # a blinking cursor there would redraw the screen twice a second.
                weblink.cursor_blink = False
                yield weblink
            with Horizontal(classes="field"):
                yield Label("", classes="field-label")
                yield Static(id="weblink-shown")
            with Horizontal(classes="field"):
                yield Label("Wallet", classes="field-label")
                yield RadioSet(
                    *(StatedRadioButton(name, id=f"wallet-{name}") for name in WALLETS), id="wallet", compact=True
                )
            with Horizontal(classes="field", id="kind-row"):
                yield Label("Recipient", classes="field-label")
                yield _kind_set(None, EMAIL)
            with Horizontal(classes="field"):
                yield Label("", classes="field-label")
                yield Input(
                    id="recipient",
                    compact=True,
                    placeholder=KIND_PLACEHOLDERS[EMAIL],
                    highlighter=VisibleControls(),
                    classes=PRIVATE,
                )
            with Horizontal(classes="field", id="problem-row"):  # the spec's text, and its rule on a line below
                yield Label("", classes="field-label")
                yield Static(id="problem")
            with Horizontal(id="payout-actions"):
                yield Button("Redeem…", id="redeem", variant="primary", compact=True, disabled=True)
                yield Button("Look up status", id="lookup", compact=True)
                yield Static(id="readonly-note")
        # Outside the form's scroll: the timing line's once-a-second redraw then repaints the panel,
        # not every widget the scroll holds (Textual repaints each widget whose clip meets a change).
        with Vertical(id="payout-panel"):
            yield Static(id="payout-status")
            yield Static(id="payout-ids")
            yield Static(id="payout-advice")
            yield Static(id="payout-timing")

    def on_mount(self) -> None:
        self.set_interval(1.0, self._show_timing)
        if self.app.readonly:  # not offered at all (DESIGN rule 7); the note says why, whole at 80 columns
            self.query_one("#redeem", Button).display = False
            self.query_one("#readonly-note", Static).update("Read-only: redeeming is off; status lookups work.")
        self._refresh_form()

    def action_focus_weblink(self) -> None:
        self.query_one("#weblink", Input).focus()

    def action_pin(self) -> None:
        """Pin the payout shown (or typed) to the watch list; its weblink is kept only to poll, shown masked."""
        token = self.panel_token or self.form.token()
        if token is None:
            self.notify(self.form.weblink_problem() or "Paste a weblink first (i).", severity="warning")
            return
        self.pin(lambda: self.app.watch_list.add_payout(token), f"payout {mask_weblink(token)}")

    # --- the form ----------------------------------------------------------------

    def _pressed(self, radio_set_id: str) -> str | None:
        button = self.query_one(radio_set_id, RadioSet).pressed_button
        return button.id.partition("-")[2] if button is not None and button.id else None

    def _read_form(self) -> PayoutForm:
        return PayoutForm(
            weblink=self.query_one("#weblink", Input).value,
            wallet=self._pressed("#wallet"),
            kind=self._pressed("#kind") or EMAIL,
            value=self.query_one("#recipient", Input).value,
        )

    def _refresh_form(self) -> None:
        """Validate as typed and set what may be done now."""
        self.form = self._read_form()
        locked = self.flow.form_locked
        for selector in ("#weblink", "#wallet", "#kind", "#recipient"):
            self.query_one(selector).disabled = locked
        weblink_problem = self.form.weblink_problem()
        shown = self.query_one("#weblink-shown", Static)
        shown.update(
            safe(weblink_problem, style="italic") if weblink_problem else safe(mask_weblink(self.form.weblink.strip()))
        )
        self.query_one("#recipient", Input).placeholder = KIND_PLACEHOLDERS[self.form.kind]
        self._show_problem()
        redeem = self.query_one("#redeem", Button)
        redeem.label = "Retry…" if self.flow.phase is Phase.RETRY_OFFERED else "Redeem…"
        redeem.disabled = self.app.readonly or not self.flow.can_submit(self.form)
        self.refresh_bindings()

    def _show_problem(self) -> None:
        problem = self.query_one("#problem", Static)
        if self.flow.form_locked:
            problem.set_class(False, "-invalid")
            problem.update(Text("Locked: a retry reuses the earlier attempt exactly.", style="italic"))
            return
        text = self.form.recipient_problem()
        problem.set_class(text is not None, "-invalid")
        if text:
            problem.update(
                safe(f"{text}\n{redeem_rule(self.form.request())}", multiline=True)
            )  # the text, then its rule
        elif self.payout is not None and self.panel_token == self.form.token():
            problem.update(Text("Redeemed: the payout's status is below."))
        else:
            problem.update(Text("✓ Ready to redeem" if self.form.is_valid else ""))

    @on(Input.Changed, "#weblink")
    def weblink_changed(self) -> None:
        token = self._read_form().token()
        if token != self.panel_token and not self.flow.form_locked:
            self._forget_payout()
        self._refresh_form()

    @on(Input.Changed, "#recipient")
    @on(RadioSet.Changed, "#kind")
    def recipient_changed(self) -> None:
        self._refresh_form()

    @on(RadioSet.Changed, "#wallet")
    async def wallet_changed(self) -> None:
        # A new set rather than pressing a button: RadioSet blocks button messages while
        # this handler runs, so a pressed-by-code button would not register.
        kinds = self.query_one("#kind", RadioSet)
        pressed = self._pressed("#kind")
        await kinds.remove()
        await self.query_one("#kind-row").mount(_kind_set(self._pressed("#wallet"), pressed))
        self._refresh_form()

    @on(Input.Submitted, "#weblink")
    @on(Button.Pressed, "#lookup")
    async def lookup_requested(self) -> None:
        await self.run_action("lookup")

    # Through run_action, so check_action's guards (read-only, valid form) apply to every door.
    @on(Input.Submitted, "#recipient")
    @on(Button.Pressed, "#redeem")
    async def redeem_requested(self) -> None:
        await self.run_action("redeem")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        allowed = super().check_action(action, parameters)
        if not allowed:
            return allowed
        # Not possible yet: shown dimmed (None), so a person sees the key exists.
        if action == "redeem":
            return self.flow.can_submit(self.form) or None
        if action == "copy_ids":
            return (self._ids() is not None) or None
        return True

    # --- jump-to (the order inspector hands a payout card here) -------------------

    def accept_jump(self, argument: str) -> None:
        if self.flow.form_locked:
            self.notify("Settle the redeem in doubt first (check its status with s).", severity="warning")
            return
        self.query_one("#weblink", Input).value = argument
        self._refresh_form()
        self.action_lookup()

    # --- redeem ------------------------------------------------------------------

    def action_redeem(self) -> None:
        attempt = self.flow.next_attempt(self.form)
        session = self.app.session
        face = face_values(session.cache).get(attempt.token)
        # The recipient as typed, to be checked (a screenshot masks it: PrivateLine).
        lines: list[SummaryLine] = [
            PrivateLine("Recipient    ", attempt.recipient, mask_recipient),
            f"Wallet       {attempt.request.wallet}",
            f"Face value   {face}" if face else "Face value   not known here: open the card's order (3) to see it",
            f"Weblink      {attempt.masked_weblink}",
            f"Profile      {session.profile.name}",
            f"Environment  {session.environment.upper()}",
        ]
        if self.flow.phase is Phase.RETRY_OFFERED:
            lines.append("A retry of the earlier attempt: same weblink, wallet and recipient.")
        phrase, prompt = attempt.confirmation_phrase() if session.is_production else (None, None)
        confirm = ConfirmScreen(
            "Redeem this payout?", lines, typed_phrase=phrase, phrase_prompt=prompt, confirm_label="Redeem"
        )
        self.app.push_screen(confirm, lambda confirmed: self._start_submit(attempt) if confirmed else None)

    def _start_submit(self, attempt: Attempt) -> None:
        if self.app.readonly or not self.flow.may_submit:
            return  # a second confirmation arriving late: the first one is in flight
        self.flow.submitting(attempt)
        self._stop_watching()
        self.panel_token = attempt.token
        self.watch_since = self.clock.monotonic()
        self._show(
            Text("Submitting…", style="bold"),
            advice="The wallet provider is being asked; this screen locks until it answers.",
        )
        self._refresh_form()
        self._submit(attempt)

    # Not exclusive on purpose: an exclusive worker cancels its predecessor, and a
    # cancelled POST leaves the payout in doubt. The flow refuses a second submit instead.
    @work(group="redeem", exit_on_error=False)
    async def _submit(self, attempt: Attempt) -> None:
        # Sent through the money rules (tui.money): environment checked, an audit line before and after.
        session = self.app.session
        try:
            writes = MoneyWrites(await session.client(), session.profile, warn=self._audit_not_written)
            result = await writes.redeem(
                attempt.token, attempt.request, seen_before=self.flow.known_transactions.__contains__
            )
        except (EnvironmentMismatch, AuditUnavailable, NotSent) as refused:
            self.flow.answered()
            self.payout = None
            self._show(Text("Nothing was sent", style="bold red"), advice=f"{refused} {refused.hint}")
        except (RefusedError, AuthenticationError, RecipientInvalid) as error:
            self.flow.answered()
            self._show_refusal(error)
        except ServiceError as error:
            self.flow.lost()
            self._show(
                Text("Outcome unknown", style="bold yellow"),
                advice=f"{error.message}. Checking the payout status before anything else; no re-submit.",
            )
            self._watch(attempt.token, wait_first=False)
        else:
            repeat = self.flow.answered(result.transaction_id)
            self._show_result(result, repeat)
            if result.is_processing:
                self._watch(attempt.token, wait_first=True)
        finally:
            self._refresh_form()

    def _audit_not_written(self, problem: str) -> None:
        self.notify(f"The redeem was sent, but {problem}.", severity="error", timeout=10)

    # --- status: lookup and live watch ---------------------------------------------

    def action_lookup(self) -> None:
        token = self.flow.attempt.token if self.flow.phase in IN_DOUBT and self.flow.attempt else self.form.token()
        if token is None:
            self.notify(self.form.weblink_problem() or "", severity="warning")
            return
        if self.flow.phase is Phase.SUBMITTING:
            return  # the submit's answer is on its way
        if token != self.panel_token or self.watch_since is None:
            self.watch_since = self.clock.monotonic()
        self.panel_token = token
        if self.payout is None and self.flow.phase not in IN_DOUBT:
            self._show(Text("Looking up…", style="bold"))
        self._watch(token, wait_first=False)

    @work(exclusive=True, group="status", exit_on_error=False)
    async def _watch(self, token: str, *, wait_first: bool) -> None:
        """Check the status until it is final; one watch at a time (a new one replaces it)."""
        self.live_token = token
        delays = self.backoff.delays()
        if wait_first:
            await self._wait(next(delays))
        while await self._check(token):
            await self._wait(next(delays))
        self.live_token = None
        self.next_check_at = None
        self._show_timing()

    async def _wait(self, seconds: float) -> None:
        self.next_check_at = self.clock.monotonic() + seconds
        self._show_timing()
        await asyncio.sleep(seconds)

    async def _check(self, token: str) -> bool:
        """One status check, shown; True while it is worth checking again."""
        in_doubt = self.flow.phase in IN_DOUBT
        self.next_check_at = None
        try:
            client = await self.app.session.client()
            status = await client.payout_status(token)
        except RefusedError as error:
            self.last_check = self.clock.wall()
            if in_doubt:
                self.flow.checked(payout_exists=False)
                self._show(
                    Text("No payout recorded", style="bold"),
                    advice="The earlier submit made no payout. Retry with the same recipient: ctrl+r.",
                    detail=error.message,
                )
            else:
                self._show(
                    Text("No payout found", style="bold"),
                    advice="Nothing redeemed yet for this weblink, or it belongs to another client or environment.",
                    detail=error.message,
                )
            self._refresh_form()
            return False
        except AuthenticationError as error:
            self._show_refusal(error)
            return False
        except ServiceError as error:
            if in_doubt:
                self.flow.checked(payout_exists=None)
                self._refresh_form()
                self._show(
                    Text("Outcome unknown", style="bold yellow"),
                    advice="The status could not be checked either; giftdesk keeps checking (s checks now). No retry until a check answers.",
                    detail=error.message,
                )
            else:
                self.query_one("#payout-advice", Static).update(
                    safe(f"Last check failed: {error.message}. Checking again.")
                )
            return True
        self.last_check = self.clock.wall()
        if in_doubt:
            self.flow.checked(payout_exists=True)
            self._refresh_form()
        self.flow.seen(status.transaction_id)
        self._show_status(status)
        return not is_payout_final(status.status)

    def _stop_watching(self) -> None:
        self.workers.cancel_group(self, "status")
        self.live_token = None
        self.next_check_at = None

    def on_screen_suspend(self) -> None:
        # A hidden screen does not poll; the watch resumes with the screen.
        wanted = self.live_token
        self._stop_watching()
        self.live_token = wanted

    def on_screen_resume(self) -> None:
        if self.live_token is not None and self.flow.phase is not Phase.SUBMITTING:
            self._watch(self.live_token, wait_first=False)

    def _forget_payout(self) -> None:
        """Another weblink: the panel and the flow start over."""
        self._stop_watching()
        self.flow.reset()
        self.panel_token = None
        self.payout = None
        self.watch_since = None
        self.last_check = None
        self._show(Text(""))

    # --- the panel -------------------------------------------------------------------

    def _show(self, status: Text, *, advice: str = "", detail: str | None = None, ids: Text | None = None) -> None:
        panel = (status, ids or (safe(detail, style="italic") if detail else Text("")), safe(advice, multiline=True))
        self._show_timing()
        if panel == self._panel:
            return  # a poll that changed nothing costs no layout and no footer rebuild
        self._panel = panel
        for widget_id, content in zip(("#payout-status", "#payout-ids", "#payout-advice"), panel, strict=True):
            self.query_one(widget_id, Static).update(content)
        self.refresh_bindings()

    def _show_status(self, status: PayoutStatus, *, note: str = "") -> None:
        self.payout = status
        wallet = self.flow.attempt.request.wallet if self.flow.attempt else None
        advice = " ".join(part for part in (note, status_advice(status.status, wallet)) if part)
        self._show(_status_text(status.status), advice=advice, ids=self._ids_text())

    def _show_result(self, result: RedeemResult, repeat: bool) -> None:
        note = "This weblink was redeemed before: the existing payout is shown, no new one was made." if repeat else ""
        status = PayoutStatus(
            status="Pending" if result.is_processing else "Completed",
            transaction_id=result.transaction_id,
            payout_batch_id=result.payout_batch_id,
        )
        self._show_status(status, note=note)

    def _show_refusal(self, error: ServiceError | RecipientInvalid) -> None:
        self.payout = None
        if isinstance(error, AuthenticationError):
            profile = self.app.session.profile.name
            self._show(
                Text("Authentication failed (401)", style="bold red"),
                advice=f"Check profile {profile}'s client id and secret, and that they are for {self.app.session.environment}.",
            )
            return
        message = error.message if isinstance(error, RefusedError) else str(error)
        heading = safe_assemble(("Refused: ", "bold red"), message)  # the service's text, as it is
        self._show(heading, advice=f"What to do: {getattr(error, 'hint', '') or 'correct the form and try again.'}")

    def _ids(self) -> tuple[str, str] | None:
        payout = self.payout
        if payout is None or not payout.transaction_id:
            return None
        return payout.transaction_id, payout.payout_batch_id or ""

    def _ids_text(self) -> Text:
        ids = self._ids()
        if ids is None:
            return Text("")
        return safe_assemble(("Transaction ", "dim"), ids[0], ("  Batch ", "dim"), ids[1], ("  (c copies)", "dim"))

    def _show_timing(self) -> None:
        """Elapsed time and last check; counts down to the next check while live."""
        parts = []
        if self.live_token is not None and self.watch_since is not None:
            parts.append(f"Live · elapsed {format_elapsed(self.clock.monotonic() - self.watch_since)}")
        if self.last_check:
            parts.append(f"last check {self.last_check}")
        if self.next_check_at is not None:
            parts.append(f"next in {max(0, round(self.next_check_at - self.clock.monotonic()))} s")
        line = " · ".join(parts)
        if line != self._timing_line:
            # One line of fixed height (see payout.tcss): no layout pass every second.
            self._timing_line = line
            self.query_one("#payout-timing", Static).update(line, layout=False)

    def action_copy_ids(self) -> None:
        ids = self._ids()
        if ids is not None:
            self.app.copy_to_clipboard(f"transactionId {ids[0]} payoutBatchId {ids[1]}")
            self.notify("Transaction and batch ids copied.")


def _kind_set(wallet: str | None, pressed: str | None) -> RadioSet:
    """The recipient kinds the wallet takes (SPEC redeem rules 2-3), keeping the pressed one if offered."""
    offered = KINDS_BY_WALLET[wallet]
    pressed = pressed if pressed in offered else EMAIL
    return RadioSet(
        *(StatedRadioButton(KIND_LABELS[kind], id=f"kind-{kind}", value=kind == pressed) for kind in offered),
        id="kind",
        compact=True,
    )


def _status_text(status: str | None) -> Text:
    return safe_assemble(status_text(status), f" — {payout_status_meaning(status)}")
