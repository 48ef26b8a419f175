"""`giftdesk catalog stock | categories | countries`: the v2.1 catalog (DESIGN.md "Newer catalog endpoints")."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import click

from tui.commands.options import Options, service_options
from tui.commands.order_inputs import FaceValue, sku_argument
from tui.commands.output import emit_json, money, print_fields, print_table
from tui.commands.runner import CommandConnection, run


@click.command("stock")
@click.argument("sku", metavar="SKU", callback=sku_argument)
@click.argument("value", metavar="VALUE", type=FaceValue())
@service_options
def stock(options: Options, sku: str, value: Decimal) -> None:
    """Stock of one SKU at one face value, and its price.

    \b
    Examples:
      giftdesk catalog stock SIM-402 20
      giftdesk catalog stock SIM-402 20 --json
    """

    async def work(session: CommandConnection) -> None:
        from tui.api.models import to_wire

        answer = await session.client.stock(sku, value)
        if options.json:
            emit_json(to_wire(answer))
            return
        price = money(answer.price, answer.currency_code) if answer.price is not None else "not stated"
        stocked = {True: "yes", False: "no", None: "not stated"}[answer.is_stocked]
        print_fields(
            [
                ("SKU", sku),
                ("Face value", money(answer.face_value, answer.currency_code)),
                ("Quantity", "not stated" if answer.quantity is None else answer.quantity),
                ("In stock", stocked),
                ("Price", price),
            ]
        )

    run(options, work)


@click.command("categories")
@service_options
def categories(options: Options) -> None:
    """The catalog's categories: id, name, description.

    \b
    Examples:
      giftdesk catalog categories
      giftdesk catalog categories --json
    """

    async def work(session: CommandConnection) -> None:
        from tui.api.models import to_wire

        found = await session.client.categories()
        if options.json:
            emit_json([to_wire(category) for category in found])
        else:
            print_table(["ID", "NAME", "DESCRIPTION"], [[c.id, c.name, c.description] for c in found])

    run(options, work)


@click.command("countries")
@service_options
def countries(options: Options) -> None:
    """The catalog's countries: code, name, currency, 3-letter code.

    \b
    Examples:
      giftdesk catalog countries
      giftdesk catalog countries --json
    """

    async def work(session: CommandConnection) -> None:
        from tui.api.models import to_wire

        found = await session.client.catalog_countries()
        if options.json:
            emit_json([to_wire(country) for country in found])
        else:
            rows: list[list[Any]] = [[c.code, c.name, c.default_currency_code, c.alpha3_code] for c in found]
            print_table(["CODE", "NAME", "CURRENCY", "ALPHA-3"], rows)

    run(options, work)
