"""New test order: a guarded form that places one order line, then opens the order.

Guards (DESIGN rule 7): only active accounts of this environment are offered;
the face value is checked against the product's range before anything is
sent; a confirmation states account, product, value, quantity and
environment, and in production the person types a phrase; read-only never
places. The RequestId is generated once per form and shown: a retry after a
network failure re-sends the same one, so no second order can result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from styles import STYLES
from tui.api.errors import RefusedError, ServiceError
from tui.api.models import Account, CatalogQuery, PlaceOrder, Product
from tui.api.request_ids import new_request_id
from tui.core.order_watch import DraftInvalid, order_line, plain_amount
from tui.local.storage import TEST_ORDER
from tui.money import AuditUnavailable, EnvironmentMismatch, MoneyWrites, NotSent
from tui.screens.accounts import account_label
from widgets.confirm import ConfirmScreen
from widgets.money import TOTAL_PROMPT, format_money, typed_total
from widgets.safe_text import safe

if TYPE_CHECKING:
    from tui.screens.host import GiftdeskHost


def _range_text(product: Product) -> str:
    low, high = plain_amount(product.min_face_value), plain_amount(product.max_face_value)
    return low if low == high else f"{low}–{high}"


class NewOrderScreen(ModalScreen[None]):
    __test__ = False  # not a pytest test class, whatever its name says
    app: GiftdeskHost
    CSS_PATH = STYLES / "order.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="new-order.cancel")]

    def __init__(
        self, product: Product | None = None, *, request_id: str | None = None, currency: str | None = None
    ) -> None:
        super().__init__()
        self.product = product
        self.currency = currency  # the product's face values' (its brand's): None until known
        # One RequestId for the life of the form: every (re)try sends this one.
        self.request_id = request_id or new_request_id()
        self._sent_in_doubt = False  # a try of this form's order may have reached the service (its answer was lost)
        self.accounts: dict[int, Account] = {}

    def compose(self) -> ComposeResult:
        session = self.app.session
        self.set_class(session.is_production, "-production")
        product = self.product
        with Vertical(id="new-order"):
            yield Label("New production order" if session.is_production else "New test order", classes="title")
            yield Static(
                safe(f"Environment {session.environment.upper()} · profile {session.profile.name}"),
                id="new-order-environment",
            )
            with Grid(id="new-order-fields"):
                yield Label("Account")
                yield Select([], id="account", prompt="loading accounts…", compact=True)
                yield Label("Product id")
                yield Input(
                    str(product.id) if product else "",
                    id="product-id",
                    type="integer",
                    placeholder="e.g. 102",
                    compact=True,
                )
                yield Label("")
                yield Static(self._product_text(), id="product-info")
                yield Label("Face value")
                yield Input(
                    plain_amount(product.min_face_value) if product and product.is_fixed_value else "",
                    id="face-value",
                    placeholder="e.g. 25.00",
                    compact=True,
                )
                yield Label("Quantity")
                yield Input("1", id="quantity", type="integer", compact=True)
                yield Label("RequestId")
                yield Static(safe(self.request_id), id="new-order-request-id")
            yield Static(id="new-order-problem")
            with Horizontal(id="new-order-buttons"):
                yield Button("Cancel", id="cancel", compact=True)
                yield Button("Place…", id="place", variant="warning", compact=True)

    def on_mount(self) -> None:
        if self.app.readonly:
            self.notify("Read-only: test orders are not offered.", severity="warning")
            self.dismiss()
            return
        self.query_one("#face-value" if self.product else "#product-id").focus()
        self._load_accounts()

    def _product_text(self) -> Text:
        product = self.product
        if product is None:
            return Text("Type a product id (the catalog's enter fills it in).")
        stock = "" if product.count is None else f" · {product.count} in stock"
        return safe(f"{product.name} · face value {_range_text(product)}{stock}")

    def _problem(self, text: str) -> None:
        self.query_one("#new-order-problem", Static).update(safe(text, multiline=True))

    # --- accounts ------------------------------------------------------------------------

    @work(exclusive=True, group="new-order-accounts", exit_on_error=False)
    async def _load_accounts(self) -> None:
        session = self.app.session
        try:
            accounts = await (await session.client()).accounts()
        except ServiceError as error:
            self._problem(f"Accounts could not be loaded: {error}")
            return
        # Only what Place order accepts: active, and of this environment (SPEC accounts; none said: the profile's).
        self.accounts = {
            a.id: a for a in accounts if a.is_active and a.environment(session.environment) == session.environment
        }
        select = self.query_one("#account", Select)
        select.set_options(
            (safe(f"{a.id} · {format_money(a.balance, a.currency)}"), a.id) for a in self.accounts.values()
        )
        if session.account_id in self.accounts:
            select.value = session.account_id
        elif self.accounts:
            select.value = next(iter(self.accounts))
        else:
            self._problem(f"No active {session.environment} account for this profile: nothing can be ordered.")

    # --- placing -------------------------------------------------------------------------

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss()

    @on(Button.Pressed, "#place")
    @on(Input.Submitted)
    def place_requested(self) -> None:
        self._check_confirm_place()

    @work(exclusive=True, group="new-order-place", exit_on_error=False)
    async def _check_confirm_place(self) -> None:
        if self.app.readonly:  # the form is never shown read-only; this is the last line of defence
            self._problem("Read-only: nothing is placed.")
            return
        try:
            account = self._chosen_account()
            product = await self._chosen_product()
            line = order_line(
                product, self.query_one("#face-value", Input).value, self.query_one("#quantity", Input).value
            )
        except (DraftInvalid, ServiceError) as problem:
            self._problem(str(problem))
            return
        self._problem("")
        order = PlaceOrder(self.request_id, account.id, [line])
        if await self.app.push_screen_wait(self._confirmation(order, account, product)):
            await self._place(order)

    def _chosen_account(self) -> Account:
        value = self.query_one("#account", Select).value
        if value not in self.accounts:
            raise DraftInvalid("Choose an account (active, of this environment).")
        return self.accounts[value]

    async def _chosen_product(self) -> Product:
        """The product typed in; looked up in the catalog unless it is the one the form came with."""
        text = self.query_one("#product-id", Input).value.strip()
        if not text.isdigit():
            raise DraftInvalid("Product id must be a number from the catalog.")
        if self.product is None or self.product.id != int(text):
            page = await (await self.app.session.client()).catalog(CatalogQuery(product_id=int(text)))
            found = page.product(int(text))
            if found is None:
                raise DraftInvalid(f"No product {text} in this profile's catalog.")
            self.product, self.currency = found
            self.query_one("#product-info", Static).update(self._product_text())
        return self.product

    def _confirmation(self, order: PlaceOrder, account: Account, product: Product) -> ConfirmScreen:
        session = self.app.session
        line = order.products[0]
        currency = self.currency or product.price.currency_code
        total = typed_total(line.value, line.quantity, currency)
        summary = [
            f"Environment: {session.environment.upper()} (profile {session.profile.name})",
            f"Account:     {account.id} ({format_money(account.balance, account.currency)} left)",
            f"Product:     {product.id} {product.name}",
            f"Face value:  {format_money(line.value, currency)} × {line.quantity} = {total} {currency}",
            f"RequestId:   {order.request_id}",
        ]
        if session.is_production:  # the total, typed: proof that the amount was read
            return ConfirmScreen(
                "Place this production order?",
                summary,
                typed_phrase=total,
                phrase_prompt=TOTAL_PROMPT,
                confirm_label="Place order",
            )
        return ConfirmScreen("Place this test order?", summary, confirm_label="Place order")

    async def _place(self, order: PlaceOrder) -> None:
        """Sent through the money rules (tui.money): environment checked, traced, the truth told on OrderAlreadyExists."""
        button = self.query_one("#place", Button)
        button.loading = True
        session = self.app.session
        try:
            writes = MoneyWrites(await session.client(), session.profile, warn=self._audit_not_written)
            placed = await writes.place_order(order, action=TEST_ORDER, sent_before=self._sent_in_doubt)
        except (EnvironmentMismatch, AuditUnavailable, NotSent) as refused:
            self._problem(f"Nothing was sent: {refused} {refused.hint}")
            return
        except RefusedError as error:
            self._problem(f"Refused: {error.message}. {error.hint}")
            return
        except ServiceError as error:
            # The client already retried with this same body; the order may or may not exist.
            self._sent_in_doubt = True
            self._problem(
                f"Not confirmed: {error.hint} Press Place again: it re-sends RequestId "
                f"{order.request_id}, so no second order can result."
            )
            return
        finally:
            button.loading = False
        if placed.found != "placed":
            self.notify(
                f"{placed.describe()} Opening that order.",
                severity="information" if placed.is_ours else "warning",
                timeout=10,
            )
        self._settled_on(self.accounts[order.account_id])
        self.dismiss()
        self.app.call_later(self.app.navigate, "order", order.request_id)

    def _settled_on(self, account: Account) -> None:
        """The account an order was placed on is the one the context bar names from now on."""
        if self.app.session.account_id != account.id:
            self.app.choose_account(account.id, account_label(account))

    def _audit_not_written(self, problem: str) -> None:
        self.notify(f"The order was sent, but {problem}.", severity="error", timeout=10)
