"""Order: one RequestId, the whole truth about that order (issue 6).

Status with its meaning and finality, items, cards (codes masked), a card
summary that makes a partial failure impossible to miss, reveal and copy of
a Sold card's code and PIN (audited, without the code), payout cards handed
to the Payout screen, a self-refreshing watch with backoff while the order
is not final, and the recent orders of this profile.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from contextlib import ExitStack
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.notifications import SeverityLevel
from textual.timer import Timer
from textual.widgets import ContentSwitcher, DataTable, Input, Label, Static

from styles import STYLES
from tui.api.errors import AuthenticationError, ForbiddenError, OrderNotFoundError, RefusedError, ServiceError
from tui.api.models import Card, Order, OrderItem
from tui.api.redact import mask_card_code, mask_pin
from tui.api.statuses import card_code_releasable, is_order_final, order_status_meaning
from tui.api.weblink import WeblinkError, is_payout_url, weblink_token
from tui.case_file import CaseFile, Stores, case_markdown, open_case, opened_stores, shown_time
from tui.core.names import NOT_RELEASED, order_number
from tui.core.order_ids import AmbiguousOrderId, UnknownOrderId, is_request_id
from tui.core.order_watch import card_summary, needs_attention, readable_time
from tui.core.payout_flow import face_values
from tui.core.polling import Backoff
from tui.local.storage import CARD_COPY, CARD_REVEAL, RecentOrders, audit_log
from tui.order_lookup import find_order
from tui.screens.base import BaseScreen
from tui.screens.host import WatchListUnavailable
from tui.screens.order_picker import OrderPicker
from tui.screens.product_names import known_names, look_up_names, product_label
from widgets.fitted_table import FittedTable
from widgets.masked import MaskedValue
from widgets.money import format_amount, format_money
from widgets.note_dialog import NoteDialog
from widgets.safe_text import VisibleControls, safe, safe_assemble, safe_row
from widgets.status_badge import status_text

if TYPE_CHECKING:
    from tui.api.client import ServiceClient

ITEM_COLUMNS = ("#", "Product", "Face value", "Qty", "Country", "Currency")
CARD_COLUMNS = ("", "Serial", "Status", "Code", "PIN", "Expires", "Product")

# When "last checked" was; tests replace it so snapshots show a fixed time.
clock = datetime.now


def _progress(order: Order) -> tuple[str, ...]:
    """What a look can change: the order's status and each card's."""
    return (order.status, *(card.status for card in order.cards))


class OrderScreen(BaseScreen):
    destination = "order"
    CSS_PATH = STYLES / "order.tcss"
    WRITE_ACTIONS = frozenset({"new_test_order"})
    # It opens on the Recent list it shows (not the hidden order view's first table), so enter works at once.
    AUTO_FOCUS = "#recent-orders"
    BINDINGS = [
        Binding("i", "focus_lookup", "RequestId", id="order.lookup", show=False),  # said in the field itself
        # The everyday keys first: the footer leaves out, whole, what does not fit (Help lists all).
        Binding("r", "toggle_recent", "Recent", id="order.recent"),
        Binding("l", "toggle_case", "Case", id="order.case"),
        Binding("w", "pin", "Watch", id="order.watch"),
        Binding("v", "reveal", "Reveal", id="order.reveal"),
        Binding("c", "copy('code')", "Copy code", id="order.copy-code"),
        Binding("n", "copy('pin')", "Copy PIN", id="order.copy-pin", show=False),
        Binding("y", "payout", "Payout", id="order.payout"),
        Binding("t", "new_test_order", "Test order", id="order.test-order"),
        Binding("s", "copy_summary", "Copy summary", id="order.copy-summary", show=False),
        Binding("m", "note", "Note", id="order.note", show=False),  # in Help and the palette: the footer keeps its keys
        Binding("ctrl+r", "refresh", "Refresh now", id="order.refresh", show=False),
    ]
    # Tests make it faster; the service is not asked more than this.
    backoff = Backoff()

    def __init__(self) -> None:
        super().__init__()
        self.request_id: str | None = None
        self.order: Order | None = None
        self.last_checked: datetime | None = None
        self._unchanged_looks = 0  # looks in a row that saw nothing move
        self._timer: Timer | None = None
        self._suspended = False
        self._cards: dict[str, Card] = {}
        self._recent = RecentOrders()
        self._set_aside_said = False
        self.case: CaseFile | None = None

    # --- layout ----------------------------------------------------------------------

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="order-lookup"):
            yield Label("RequestId ")
            yield Input(
                placeholder="press i, paste a RequestId, then enter",
                id="request-id",
                compact=True,
                highlighter=VisibleControls(),
            )
        yield Static(id="order-message")
        with ContentSwitcher(initial="recent-orders", id="order-views"):
            with VerticalScroll(id="order-view"):
                yield Static(id="order-verdict")
                yield Static(id="order-case")
                yield Static(id="order-head")
                yield Static(id="order-summary")
                yield Static(id="order-checked")
                yield Static(id="order-notes")
                yield FittedTable(id="order-items", cursor_type="none", zebra_stripes=True)
                yield FittedTable(id="order-cards", cursor_type="row")
                with Vertical(id="card-detail"):
                    yield Static(id="card-title")
                    with Horizontal(classes="secret-row"):
                        yield Label("Code ", classes="secret-label")
                        yield MaskedValue(mask=mask_card_code, id="card-code")
                    with Horizontal(classes="secret-row"):
                        yield Label("PIN  ", classes="secret-label")
                        yield MaskedValue(mask=mask_pin, id="card-pin")
            yield FittedTable(id="recent-orders", cursor_type="row")

    def on_mount(self) -> None:
        self.query_one("#recent-orders", DataTable).add_columns("RequestId", "Status at last look", "Last look")
        self._show_recent()

    # --- opening an order --------------------------------------------------------------

    def accept_jump(self, argument: str) -> None:
        self.open_order(argument)

    @on(Input.Submitted, "#request-id")
    def lookup_submitted(self, event: Input.Submitted) -> None:
        self.open_order(event.value)

    def open_order(self, request_id: str) -> None:
        """Show this RequestId's order and follow it until it is final."""
        request_id = request_id.strip()
        if not request_id:
            self._say("Type or paste a RequestId first.", problem=True)
            return
        self._stop_polling()
        self.request_id, self.order, self._unchanged_looks, self.case = request_id, None, 0, None
        self.query_one("#request-id", Input).value = request_id
        self._render_order(None)
        self._show_case()
        self.query_one("#order-views", ContentSwitcher).current = "order-view"
        self._show_notes()
        self.query_one("#order-cards").focus()
        self._say(f"Looking up {request_id}…")
        self._look()

    @work(exclusive=True, group="order-look", exit_on_error=False)
    async def _look(self) -> None:
        """One Get order; exclusive, so a newer look replaces a stale one (never two at once)."""
        self._timer = None
        request_id = self.request_id
        if request_id is None:
            return
        try:
            client = await self.app.session.client()
            if self.order is None and not is_request_id(request_id):  # any ID finds the order (issue 38)
                request_id = self.request_id = await self._found(request_id, client)
            order = await client.get_order(request_id)
        except AmbiguousOrderId as error:  # a picker of the candidates (issue 38); esc leaves the words
            self.request_id = None  # not an order: nothing to look at again when the picker closes
            self._say(f"{error}. Choose one, or give more of the RequestId.", problem=True)
            self.app.push_screen(OrderPicker(request_id, error.candidates), self._picked)
            return
        except UnknownOrderId as error:
            self.request_id = None
            self._say(f"{error}. Give more of the RequestId, or the whole of it.", problem=True)
            return
        except ServiceError as error:
            self._look_failed(request_id, error)
            return
        self._order_seen(order)

    def _picked(self, request_id: str | None) -> None:
        if request_id is not None:
            self.open_order(request_id)

    async def _found(self, typed: str, client: ServiceClient) -> str:
        session = self.app.session
        found = await find_order(typed, client, session.copies(), self._recent.request_ids())
        self.query_one("#request-id", Input).value = found
        return found

    def _order_seen(self, order: Order) -> None:
        previous, self.order = self.order, order
        self.last_checked = clock()
        moved = previous is None or _progress(previous) != _progress(order)
        self._unchanged_looks = 0 if moved else self._unchanged_looks + 1
        if moved:
            self._render_order(order)
            self._recent.record(self.app.session.profile.name, order.request_id, order.status)
            self.call_after_refresh(self._load_case, order)  # the order drawn first, its case after (issue 38)
            self._name_products(order)
        self._say("")
        if not is_order_final(order.status):
            self._schedule_look()
            return
        self._show_checked(f"Final. Last checked {self.last_checked:%H:%M:%S}.")
        if previous is not None and not is_order_final(previous.status):
            severity: SeverityLevel = "information" if order.status.lower() == "succeeded" else "warning"
            self.notify(f"Order {order.request_id} is final: {order.status}.", title="Order final", severity=severity)

    @work(group="order-product-names", exclusive=True, exit_on_error=False)
    async def _name_products(self, order: Order) -> None:
        """The items' and cards' products by name once the catalog says them (tui.screens.product_names)."""
        session = self.app.session
        names = known_names(session.cache)
        learnt = await look_up_names(await session.client(), (item.product_id for item in order.items), names)
        # Not an order opened since, and the screen still there (the app may be ending: seen as a NoMatches).
        if learnt and self.order is order and self.is_attached:
            self._fill_items(order)

    def _look_failed(self, request_id: str, error: ServiceError) -> None:
        """Say what went wrong in words; keep looking only when trying again can help."""
        profile = self.app.session.profile
        if isinstance(error, OrderNotFoundError):  # 404, or the provider's 400 OrderNotFound
            message = (
                f"No order with RequestId {request_id} for profile {profile.name} ({profile.environment}). "
                "Check the id, and that it was placed in this environment."
            )
        elif isinstance(error, AuthenticationError):
            message = f"Authentication failed (401): check profile {profile.name}'s client id and secret."
        elif isinstance(error, ForbiddenError):
            message = f"{error.message}. {error.hint}"
        elif isinstance(error, RefusedError):
            message = f"The service refused the lookup: {error.message}. {error.hint}"
        else:  # unreachable, 5xx, 429: it may come back, so a watch goes on
            message = f"Could not check the order: {error.hint}"
            if self._watching():
                self._unchanged_looks += 1
                delay = self.backoff.delay(self._unchanged_looks)
                self._say(f"{message} Trying again in {delay:.0f} s.", problem=True)
                self._schedule_look(delay)
                return
        self._say(message, problem=True)
        self.notify(message, title="Order", severity="error", timeout=10)

    # --- the case file (issue 38) -------------------------------------------------------------

    @work(exclusive=True, group="order-case", exit_on_error=False)
    async def _load_case(self, order: Order) -> None:
        """The verdict and the timeline: from the order just seen, the local copies and the stores (no second Get
        order); a newer look replaces it."""
        session = self.app.session
        try:
            client = await session.client()
            with ExitStack() as stack:
                stores = self._stores(stack)
                self.case = await open_case(order.request_id, client, session.copies(), stores, order=order)
        except (ServiceError, OSError) as error:
            if self.is_attached:
                self.query_one("#order-verdict", Static).update(safe(f"Case not known: {error}"))
            return
        if self.is_attached:  # the screen may have gone while the case was gathered
            self._show_case()

    def _stores(self, stack: ExitStack) -> Stores:
        """The app's notes and watch list as they are; the inbox (the receiver's) as the command line reads it."""
        session = self.app.session
        try:
            watch_list: Any = self.app.watch_list.store
        except WatchListUnavailable:
            watch_list = None  # said where it is used; the case goes on without it
        return opened_stores(
            stack, session.profile.name, session.environment, self.app.team, notes=self.app.notes, watch_list=watch_list
        )

    def _show_case(self) -> None:
        verdict_line = self.query_one("#order-verdict", Static)
        timeline = self.query_one("#order-case", Static)
        case = self.case
        verdict_line.set_class(bool(case and case.verdict.attention), "-attention")
        if case is None:
            verdict_line.update("")
            timeline.update("")
            return
        reasons = "".join(f"\n ! {reason}" for reason in case.verdict.reasons)
        verdict_line.update(safe(f"{case.verdict.words}{reasons}", multiline=True))
        rows = [Text("Case (oldest first, UTC)", style="bold")]
        for event in case.events:
            row = Text(shown_time(event.time))
            row.append(f"  {event.source:<12} ", style="dim")
            row.append_text(safe(event.what))
            if event.by:
                row.append_text(safe(f"  · {event.by}"))
            rows.append(row)
        timeline.update(Text("\n").join(rows))

    def action_toggle_case(self) -> None:
        timeline = self.query_one("#order-case", Static)
        timeline.set_class(not timeline.has_class("-shown"), "-shown")
        if timeline.has_class("-shown"):
            self.query_one("#order-view", VerticalScroll).scroll_home(animate=False)

    def action_copy_summary(self) -> None:
        if self.case is None:
            self.notify("Open an order first: its case is copied once it is known.", severity="warning")
            return
        self.app.copy_to_clipboard(case_markdown(self.case))
        self.notify("The case's summary (Markdown, masked) is on the clipboard.", title="Copied")

    # --- polling ---------------------------------------------------------------------------

    def _schedule_look(self, delay: float | None = None) -> None:
        if delay is None:
            delay = self.backoff.delay(self._unchanged_looks)
            checked = f"{self.last_checked:%H:%M:%S}" if self.last_checked else "never"
            soon = f"{delay:.0f} s" if delay >= 1 else "under a second"
            self._show_checked(f"Not final. Last checked {checked}; next check in {soon}.")
        if not self._suspended:  # a hidden screen does not poll; resuming looks at once
            self._timer = self.set_timer(delay, self._look)

    def _stop_polling(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _watching(self) -> bool:
        return self.request_id is not None and (self.order is None or not is_order_final(self.order.status))

    def on_screen_suspend(self) -> None:
        self._suspended = True
        self._stop_polling()
        self._hide_secrets()

    def on_screen_resume(self) -> None:
        if self._suspended and self._watching():
            self._look()
        self._suspended = False

    def action_refresh(self) -> None:
        if self.request_id is not None:
            self._stop_polling()
            self._look()

    # --- showing the order -------------------------------------------------------------

    def _say(self, message: str, *, problem: bool = False) -> None:
        line = self.query_one("#order-message", Static)
        line.update(safe(message, multiline=True))
        line.set_class(problem, "-problem")
        line.display = bool(message)

    def _show_checked(self, text: str) -> None:
        self.query_one("#order-checked", Static).update(text)

    def _render_order(self, order: Order | None) -> None:
        self.query_one("#order-head", Static).update(_order_head(order) if order else "")
        summary = self.query_one("#order-summary", Static)
        summary.update(safe(card_summary(card.status for card in order.cards) if order else ""))
        summary.set_class(bool(order and any(needs_attention(card.status) for card in order.cards)), "-attention")
        if order is None:
            self._show_checked("")
        self.query("#order-items, #order-cards").set(display=order is not None)
        self._fill_items(order)
        self._fill_cards(order)

    def _fill_items(self, order: Order | None) -> None:
        table = self.query_one("#order-items", DataTable)
        table.clear(columns=True)
        table.add_columns(*ITEM_COLUMNS)
        names = known_names(self.app.session.cache)
        for number, item in enumerate(order.items if order else [], start=1):
            currency = item.currency_code or ""
            table.add_row(
                *safe_row(
                    number,
                    product_label(item.product_id, names),
                    format_amount(item.product_face_value, currency or "USD"),
                    item.quantity,
                    item.country_code or "—",
                    currency or "—",
                )
            )

    def _fill_cards(self, order: Order | None) -> None:
        table = self.query_one("#order-cards", DataTable)
        row = table.cursor_row
        # Columns afresh each time: widths fit what is shown now, not the widest status ever seen.
        table.clear(columns=True)
        table.add_columns(*CARD_COLUMNS)
        self._cards = {}
        for item in order.items if order else []:
            for card in item.cards:
                self._cards[str(card.id)] = card
                self._remember_face_value(card, item)
                table.add_row(*_card_cells(card, str(item.product_id)), key=str(card.id))  # named in the items above
        if table.row_count:
            table.move_cursor(row=min(max(row, 0), table.row_count - 1))
        self._show_card(self._selected_card())

    def _remember_face_value(self, card: Card, item: OrderItem) -> None:
        """A payout card's value, for the redeem confirmation (the weblink alone does not say it)."""
        if card.card_code and is_payout_url(card.card_code):
            with contextlib.suppress(WeblinkError):
                currency = item.currency_code or "USD"
                face_values(self.app.session.cache)[weblink_token(card.card_code)] = format_money(
                    item.product_face_value, currency
                )

    # --- the selected card ------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#order-cards")
    def card_highlighted(self) -> None:
        self._show_card(self._selected_card())

    def _selected_card(self) -> Card | None:
        table = self.query_one("#order-cards", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self._cards.get(key) if key is not None else None

    def _show_card(self, card: Card | None) -> None:
        detail = self.query_one("#card-detail")
        detail.display = card is not None
        if card is None:
            return
        released = card_code_releasable(card.status)
        withheld = f"withheld until the card is Sold (it is {card.status})"
        code, pin = (card.card_code, card.pin) if released else (None, None)
        self.query_one("#card-code", MaskedValue).set_value(code, empty="—" if released else withheld)
        self.query_one("#card-pin", MaskedValue).set_value(pin, empty="no PIN" if released else withheld)
        title = safe_assemble(f"Card {card.serial_number or card.id} · ", status_text(card.status))
        if released and is_payout_url(card.card_code):
            title.append(" · payout card: y for Redeem / Payout status", style="bold")
        else:
            title.append(" · v reveal, c copy code, n copy PIN" if released else "")
        self.query_one("#card-title", Static).update(title)

    def _hide_secrets(self) -> None:
        for secret in self.query(MaskedValue):
            secret.hide()

    def _releasable_card(self) -> Card | None:
        """The selected card when its code may be released; otherwise says why not."""
        card = self._selected_card()
        if card is None:
            self.notify("No card selected: open an order and pick a card.", severity="warning")
        elif not card_code_releasable(card.status):
            self.notify(
                f"Card {card.serial_number} is {card.status}: codes and PINs are released only for Sold cards.",
                severity="warning",
            )
            card = None
        return card

    def action_reveal(self) -> None:
        card = self._releasable_card()
        if card is None:
            return
        secrets = list(self.query("#card-code, #card-pin").results(MaskedValue))
        if any(secret.revealed for secret in secrets):
            self._hide_secrets()
            return
        for secret in secrets:
            secret.reveal()
        self._audit(CARD_REVEAL, card, "code and PIN shown")

    def action_copy(self, what: str) -> None:
        card = self._releasable_card()
        if card is None:
            return
        value, name = (card.card_code, "code") if what == "code" else (card.pin, "PIN")
        if not value:
            self.notify(f"Card {card.serial_number} has no {name}.", severity="warning")
            return
        clears = self.app.copy_secret(value)
        self._audit(CARD_COPY, card, f"{name} copied")
        after = f" It is cleared from it in {clears:g} s." if clears else ""
        self.notify(f"The {name} of card {card.serial_number} is on the clipboard.{after}", title="Copied")

    def _audit(self, action: str, card: Card, outcome: str) -> None:
        """Who saw which card's secret; the secret itself is never written."""
        session = self.app.session
        subject = self.order.request_id if self.order is not None else ""  # a card is only shown with its order
        audit_log().record(
            profile=session.profile.name,
            environment=session.environment,
            action=action,
            subject=subject,
            outcome=outcome,
            detail=f"card {card.serial_number}",
        )

    async def action_payout(self) -> None:
        card = self._releasable_card()
        if card is None:
            return
        if card.card_code is None or not is_payout_url(card.card_code):
            self.notify(f"Card {card.serial_number} is not a payout card.", severity="warning")
            return
        await self.app.open_over("payout", card.card_code)

    # --- recent orders and the rest -----------------------------------------------------------

    def _show_recent(self) -> None:
        table = self.query_one("#recent-orders", DataTable)
        table.clear()
        for recent in self._recent.entries(self.app.session.profile.name):
            table.add_row(
                *safe_row(recent.request_id, status_text(recent.status), readable_time(recent.time)),
                key=recent.request_id,
            )
        self._say_set_aside()

    def _say_set_aside(self) -> None:
        """A corrupt recent-orders file was kept aside (never overwritten): said once."""
        aside = self._recent.set_aside
        if aside is not None and not self._set_aside_said:
            self._set_aside_said = True
            self.notify(
                f"The recent orders file could not be read: it is kept as {aside} and the Recent list starts afresh.",
                title="Recent orders",
                severity="warning",
                timeout=15,
            )

    def action_pin(self) -> None:
        """Pin the order shown to the watch list: followed until final, also after a restart."""
        if self.request_id is None:
            self.notify("Open an order first (i, then a RequestId).", severity="warning")
            return
        if self.order is not None and is_order_final(self.order.status):  # one toast that says it, not two at odds
            self.notify(f"Order {self.request_id} is already final ({self.order.status}): nothing to watch.")
            return
        self.pin_order(self.request_id)

    # --- notes (the team's in team mode) ---------------------------------------------------

    def action_note(self) -> None:
        if self.request_id is None:
            self._say("Open an order first, then m adds a note to it.", problem=True)
            return
        request_id = self.request_id

        def keep(text: str) -> None:  # a failure stays in the dialog, the note with it (widgets.note_dialog)
            self.app.notes.add(self.app.session.profile.name, request_id, text)

        def kept(text: str | None) -> None:
            if text is not None:
                self._show_notes()

        self.app.push_screen(NoteDialog(request_id, keep), kept)

    def team_changed(self, change: Mapping[str, Any]) -> None:
        if change.get("what") in ("note", "all") and self.request_id is not None:
            self._show_notes()

    def _show_notes(self) -> None:
        """The order's notes, oldest first, each with its author and time; the text as it was typed (rule 8)."""
        notes = self.app.notes.for_order(self.app.session.profile.name, self.request_id or "")
        lines = [
            safe_assemble((f"{note.written_at[11:16]} {note.author}: ", "bold"), safe(note.body)) for note in notes
        ]
        panel = self.query_one("#order-notes", Static)
        panel.update(
            Text("\n").join([Text(f"Notes ({len(notes)}, m adds one)", style="underline"), *lines]) if notes else ""
        )
        panel.display = bool(notes)

    def action_toggle_recent(self) -> None:
        views = self.query_one("#order-views", ContentSwitcher)
        if views.current == "recent-orders" and self.request_id is not None:
            views.current = "order-view"
            return
        self._show_recent()
        views.current = "recent-orders"
        self.query_one("#recent-orders").focus()

    @on(DataTable.RowSelected, "#recent-orders")
    def recent_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.open_order(event.row_key.value)

    def on_paste(self, event: events.Paste) -> None:
        """A RequestId pasted anywhere on the screen (the field keeps its own paste) opens that order."""
        pasted = next((line.strip() for line in event.text.splitlines() if line.strip()), "")
        if pasted:
            event.stop()
            self.open_order(pasted)

    def action_focus_lookup(self) -> None:
        self.query_one("#request-id").focus()

    def action_new_test_order(self) -> None:
        self.app.open_new_order()


def _order_head(order: Order) -> Text:
    final = is_order_final(order.status)
    head = safe_assemble(
        "Status ",
        status_text(order.status),
        (" final" if final else " not final", "bold" if final else "italic"),
        f" — {order_status_meaning(order.status)}\n",
        f"Order {order_number(order.order_id)} · Created {readable_time(order.created_date)} · Total ",
        (f"{format_amount(order.total, order.currency or 'USD')} {order.currency or ''}".strip(), "bold"),
        f" · {order.order_type}" if order.order_type else "",  # the type (Production, Sandbox) says itself
        multiline=True,  # the line break after the meaning; a line feed in the service's text stays one too
    )
    if order.error_message:
        head.append_text(safe(f"\nError: {order.error_message}", style="bold red", multiline=True))
    return head


def _card_cells(card: Card, product: str) -> tuple[Text, ...]:
    released = card_code_releasable(card.status)
    code: Text | str
    if not released:
        code = Text(NOT_RELEASED, style="dim")
    elif is_payout_url(card.card_code):
        code = safe("payout " + mask_card_code(card.card_code).rsplit("/", 1)[-1], style="bold")
    else:
        code = mask_card_code(card.card_code) or "—"
    marker = Text("!", style="bold reverse red") if needs_attention(card.status) else ""
    return safe_row(
        marker,
        card.serial_number or card.id,
        status_text(card.status),
        code,
        "yes" if card.pin else "no",
        readable_time(card.expiration_date),
        product,
    )
