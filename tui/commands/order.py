"""`giftdesk order show|case|place`."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

import click

from tui.commands.options import Options, complete_request_ids, service_options, write_service_options, yes_option
from tui.commands.order_case import case
from tui.commands.order_id import find_order_or_fail
from tui.commands.order_inputs import FaceValue, sku_argument
from tui.commands.output import EXIT_BAD_INPUT, EXIT_REFUSED, emit_json, fail, money, print_fields, print_table, say
from tui.commands.runner import CommandConnection, run, watch
from tui.commands.watch import exit_for_status, exit_status_option
from tui.core.names import NOT_RELEASED, order_number
from tui.core.safe_text import visible
from widgets.money import TOTAL_PROMPT, format_money, typed_total

WATCH_INTERVAL = 2.0  # seconds between polls of --watch


@click.group("order")
def command() -> None:
    """Show an order, its case file, or place one.

    \b
    Examples:
      giftdesk order show ID --watch
      giftdesk order case O-00500199
      giftdesk order place --account ID --product ID --value N
    """


@command.command("show")
@click.argument("order_id", metavar="ID", shell_complete=complete_request_ids)
@click.option(
    "--watch", "watch_", is_flag=True, help="Poll until the order is final (Succeeded, Failed, PartialFailed)."
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.2),
    default=WATCH_INTERVAL,
    show_default=True,
    metavar="N",
    help="Seconds between polls with --watch (at least 0.2).",
)
@click.option(
    "--reveal", is_flag=True, help="Show card codes and PINs of Sold cards in clear, also in --json (never others)."
)
@exit_status_option
@service_options
def show(options: Options, order_id: str, watch_: bool, interval: float, reveal: bool, exit_status: bool) -> None:
    """Show one order: status, items and cards.

    ID is the order's RequestId, its first 8 characters or more, the order
    number (O-00500199 or 500199) or a card serial giftdesk has seen. Card codes and PINs are masked unless
    --reveal, in the table and in --json alike, and only a Sold card's code
    is ever shown. With --watch,
    changes of status go to stderr and the final order to stdout.

    \b
    Examples:
      giftdesk order show ID
      giftdesk order show ID --watch --json | jq .status
    """

    async def work(session: CommandConnection) -> None:
        from tui.commands.audit import settle_checked, settle_not_found

        not_placed = "no order with this RequestId: it was not placed"
        request_id = await find_order_or_fail(session, order_id)
        if options.json and not watch_:  # the order as it came: no model needed for a good answer (issue 16)
            with settle_not_found(session, request_id, not_placed):
                wire = await session.client.get_order_wire(request_id)
            settle_checked(session, wire["requestId"], f"order status {wire['status']}")
            emit_json(_released(wire, reveal))
            exit_for_status(exit_status, wire["status"])
            return
        from tui.api.models import to_wire
        from tui.api.statuses import is_order_final

        def fetch():
            return session.client.get_order(request_id)

        if watch_:
            order = await watch(fetch, lambda o: is_order_final(o.status), _progress, interval, session.sleep)
        else:
            with settle_not_found(session, request_id, not_placed):
                order = await fetch()
        settle_checked(session, order.request_id, f"order status {order.status}")
        from tui.order_lookup import remember

        remember(session.copies, order)  # its number and cards' serials find it next time
        if options.json:
            emit_json(_released(to_wire(order), reveal))
        else:
            _print_order(order, reveal)
        exit_for_status(exit_status, order.status)

    run(options, work, endless=watch_)


def _released(wire: dict[str, Any], reveal: bool) -> dict[str, Any]:
    """The order's wire JSON with each card's code and PIN masked, unless --reveal and the card is Sold (DESIGN)."""
    from tui.api.redact import mask_card_code, mask_pin
    from tui.api.statuses import card_code_releasable

    def card(wire_card: Any) -> Any:
        if not isinstance(wire_card, dict) or (reveal and card_code_releasable(wire_card.get("status"))):
            return wire_card
        if not card_code_releasable(wire_card.get("status")):  # not Sold: said as the table says it, not masked
            return {**wire_card, **{key: NOT_RELEASED for key in ("cardCode", "pin") if wire_card.get(key) is not None}}
        masked = dict(wire_card)
        if masked.get("cardCode") is not None:
            masked["cardCode"] = mask_card_code(str(masked["cardCode"]))
        if masked.get("pin") is not None:
            masked["pin"] = mask_pin(str(masked["pin"]))
        return masked

    items = [
        {**item, "cards": [card(c) for c in item.get("cards") or []]} if isinstance(item, dict) else item
        for item in wire.get("items") or []
    ]
    return {**wire, "items": items} if "items" in wire else wire


def _progress(order) -> str:
    counts = Counter(card.status for card in order.cards)
    summary = ", ".join(f"{n} {status}" for status, n in counts.items()) or "no cards yet"
    return f"{order.status}: {summary}"


def _print_order(order, reveal: bool) -> None:
    from tui.api.statuses import is_order_final, order_status_meaning

    finality = "final" if is_order_final(order.status) else "not final"
    print_fields(
        [
            ("Request ID", order.request_id),
            ("Order number", order_number(order.order_id)),
            ("Status", f"{order.status} ({finality}): {order_status_meaning(order.status)}"),
            ("Created", order.created_date),
            ("Total", money(order.total, order.currency)),
            ("Type", order.order_type),
            ("Error", order.error_message or "-"),
        ]
    )
    rows = [
        [
            item.product_id,
            money(item.product_face_value, item.currency_code),
            card.id,
            card.serial_number,
            card.status,
            *_code_and_pin(card, reveal),
            card.expiration_date,
        ]
        for item in order.items
        for card in item.cards
    ]
    click.echo()
    if rows:
        print_table(["PRODUCT", "FACE VALUE", "CARD", "SERIAL", "STATUS", "CODE", "PIN", "EXPIRES"], rows)
    else:
        click.echo("No cards yet.")


async def _production_question(
    session: CommandConnection, product_id: int | None, sku: str | None, value: Decimal, quantity: int, account_id: int
) -> tuple[str, str]:
    """What production asks to be typed (the total face value, as the TUI's New order asks) and the order it names:
    the product by id from catalog v2, or by SKU from the v2.1 catalog."""
    from tui.api.models import BrandsQuery, CatalogQuery

    named: tuple[str, str | None] | None = None  # (the product as named, its face value's currency)
    if sku is not None:
        items = (await session.client.brands(BrandsQuery(sku=sku))).items
        named = (f"{sku} {items[0].name}", items[0].currency_code) if items else None
    elif product_id is not None:
        found = (await session.client.catalog(CatalogQuery(product_id=product_id))).product(product_id)
        named = (f"{found[0].id} {found[0].name}", found[1]) if found else None
    name, currency = named or ("", None)
    if currency is None:
        fail(
            f"no product {sku or product_id} with its currency in this profile's catalog: nothing was sent",
            EXIT_BAD_INPUT,
            "see `giftdesk catalog`",
        )
    total = typed_total(value, quantity, currency)
    face = format_money(value, currency)
    return total, f"place order: {name}, {face} x {quantity} = {total} {currency} on account {account_id}"


def _guid(request_id: str | None) -> str | None:
    """A given RequestId must be a GUID: refused here (exit 2), before anything is sent."""
    from tui.api.request_ids import RequestIdInvalid, check_request_id

    try:
        return None if request_id is None else check_request_id(request_id)
    except RequestIdInvalid as error:
        raise click.BadParameter(f"{error}. {error.hint}") from None


def _code_and_pin(card, reveal: bool) -> tuple[str, str]:
    from tui.api.redact import mask_card_code, mask_pin
    from tui.api.statuses import card_code_releasable
    from tui.api.weblink import is_payout_url

    if not card_code_releasable(card.status):
        return NOT_RELEASED, ""
    if reveal:
        return card.card_code or "", card.pin or ""
    code = mask_card_code(card.card_code)
    return (f"{code} (payout)" if is_payout_url(card.card_code) else code), mask_pin(card.pin)


@command.command("place")
@click.option(
    "--account",
    type=int,
    metavar="ID",
    help="Account id to settle on (see `giftdesk accounts`); default: the profile's default account.",
)
@click.option("--product", type=int, metavar="ID", help="Product id (see `giftdesk catalog`).")
@click.option(
    "--sku",
    metavar="SKU",
    callback=sku_argument,
    help="Instead of --product, for a product without an id: its SKU in the v2.1 catalog (checkout by SKU).",
)
@click.option(
    "--value",
    type=FaceValue(),
    required=True,
    metavar="N",
    help="Face value of each card, within the product's min and max face value (at most 2 decimals).",
)
@click.option(
    "--quantity",
    type=click.IntRange(1, 500),
    default=1,
    show_default=True,
    metavar="N",
    help="Number of cards, 1 to 500.",
)
@click.option(
    "--request-id",
    metavar="ID",
    callback=lambda ctx, param, value: _guid(value),
    help="Your RequestId for this order, a GUID (default: a new one). Placing again with the same one never makes a second order.",
)
@yes_option
@write_service_options
def place(
    options: Options,
    account: int | None,
    product: int | None,
    sku: str | None,
    value: Decimal,
    quantity: int,
    request_id: str | None,
    yes: bool,
) -> None:
    """Place an order and print its RequestId.

    Follow it with `giftdesk order show ID`. Asks for a typed confirmation in
    production unless --yes; refused under --readonly, and when the accounts'
    own environment (sandboxMode) is not the profile's. A retried request
    reuses the same RequestId, so it can never create a second order; when a
    retry finds the order already placed, that order is reported (exit 0).
    An order placed before with this RequestId is reported too (exit 3).
    The audit log gets a line before sending and one with the outcome.

    \b
    Examples:
      giftdesk order place --account ID --product ID --value N
      giftdesk order place --account ID --product ID --value N --quantity N --request-id ID
      giftdesk order place --account ID --sku SKU --value N
    """
    from tui.api.request_ids import new_request_id

    if (product is None) == (sku is None):
        raise click.UsageError(
            "give the product either by --product ID or, for one without an id, by --sku SKU (one of them)"
        )

    request_id = request_id or new_request_id()

    async def work(session: CommandConnection) -> None:
        from tui.api.models import OrderLine, PlaceOrder, PlaceOrderBySku, SkuLine
        from tui.money import order_check_command

        account_id = account if account is not None else session.profile.default_account
        if account_id is None:
            fail("no account: pass --account ID (see `giftdesk accounts`)", EXIT_BAD_INPUT)
        order: PlaceOrder | PlaceOrderBySku
        if sku is not None:
            order = PlaceOrderBySku(request_id, account_id, [SkuLine(sku, quantity, float(value))])
        else:
            assert product is not None  # one of the two, checked above
            order = PlaceOrder(request_id, account_id, [OrderLine(product, quantity, float(value))])
        action = f"order {quantity} x {order.products[0].names} at face value {value:f} on account {account_id}"
        session.refuse_readonly(action)
        asking = session.profile.is_production and not yes
        phrase, action = (
            await _production_question(session, product, sku, value, quantity, account_id) if asking else ("", action)
        )

        def confirm() -> None:  # once the accounts' environment is known to be the profile's
            session.confirm_production(action, yes, phrase, TOTAL_PROMPT)

        def sending() -> None:  # known before sending, in case the answer never comes
            say(f"RequestId: {request_id}")

        placed = await session.money().place_order(order, confirm=confirm, sending=sending)
        if not placed.is_ours:
            fail(
                "OrderAlreadyExists",
                EXIT_REFUSED,
                f"{placed.describe()} See it with: {order_check_command(request_id)}",
            )
        if placed.found != "placed":
            say(placed.describe())
        if placed.lookup_error is not None:
            say(f"warning: the order could not be read just now ({placed.lookup_error})")
        if options.json:
            emit_json(placed.request_id)
        else:
            click.echo(visible(placed.request_id))  # the service's answer
            say(f"see it with: {order_check_command(placed.request_id)}")

    run(options, work)


command.add_command(case)
