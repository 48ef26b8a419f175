"""`giftdesk catalog`: brands and products, version 2 (filters, paging) or version 1."""

from __future__ import annotations

import asyncio
import math
import re
from datetime import datetime

import click

from tui.api.limits import CATALOG_V2
from tui.commands.catalog_output import print_products, print_products_csv
from tui.commands.options import Options, check_one_format, csv_option, fresh_option, service_options
from tui.commands.output import EXIT_BAD_INPUT, emit_json, fail, say, say_freshness
from tui.commands.progress import progress, say_pace
from tui.commands.runner import CommandConnection, run
from tui.core.words import counted

MAX_PAGE_SIZE = 100  # DESIGN: the maximum is not published; cap at 100
PAGE_FETCH_CONCURRENCY = 4  # --all: pages in flight at once, kind to the service

V2_FILTERS = (
    "country",
    "currency",
    "name",
    "brand_id",
    "product_id",
    "modified_since",
    "target_currency",
    "page",
    "page_size",
    "all_pages",
)


def _wire_date(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.date().isoformat() if value.time() == datetime.min.time() else value.isoformat()


def _letters(count: int, example: str):
    """A click callback: an ISO code of `count` letters (any case), or a usage error (exit 2) saying so."""

    def check(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(f"[A-Za-z]{{{count}}}", value.strip()):
            raise click.BadParameter(f"{value!r} is not a {count}-letter ISO code; give one like {example}")
        return value

    return check


@click.group("catalog", invoke_without_command=True)
@click.option("--country", metavar="CC", callback=_letters(2, "GB"), help="2-letter ISO country code (CountryCode).")
@click.option(
    "--currency", metavar="CUR", callback=_letters(3, "GBP"), help="3-letter ISO currency code (CurrencyCode)."
)
@click.option("--name", metavar="TEXT", help="Brand name filter (Name).")
@click.option("--brand-id", type=int, metavar="ID", help="Brand filter (BrandId).")
@click.option("--product-id", type=int, metavar="ID", help="Only this product, if it exists (ProductId).")
@click.option(
    "--modified-since",
    type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]),
    metavar="DATE",
    help="Only products modified after this date, YYYY-MM-DD[THH:MM:SS] (ModifiedDate).",
)
@click.option(
    "--target-currency",
    metavar="CUR",
    callback=_letters(3, "EUR"),
    help="Show all prices in this currency (TargetCurrency).",
)
@click.option("--page", type=click.IntRange(min=0), metavar="N", help="Zero-based page index (PageIndex); default 0.")
@click.option(
    "--page-size",
    type=click.IntRange(1, MAX_PAGE_SIZE),
    metavar="N",
    help=f"Brands per page (PageSize), at most {MAX_PAGE_SIZE}; the service's default is 100.",
)
@click.option(
    "--all",
    "all_pages",
    is_flag=True,
    help='Fetch every page (several at a time) and print them as one list; with --json: {"count", "items"}.',
)
@click.option(
    "--v1",
    is_flag=True,
    help="Use catalog version 1: the flat brand list, no filters or paging "
    "(kept locally for 30 minutes: the provider allows 2 requests an hour).",
)
@fresh_option
@csv_option
@service_options
@click.pass_context
def command(ctx: click.Context, options: Options, v1: bool, fresh: bool, as_csv: bool, **filters) -> None:
    """Browse brands and products, filtered and paged.

    One line per product: brand, product id, face values, price, stock.
    Version 2 by default: one page (the first unless --page), filtered by the
    options. With --json the service's page is printed as it came; --all
    shows a progress bar on a terminal's stderr. The subcommands keep a
    local mirror of the whole catalog: sync it, search it offline, and see
    what changed in prices and stock.

    \b
    Examples:
      giftdesk catalog --country GB --currency GBP
      giftdesk catalog --all --json > catalog.json
      giftdesk catalog search tea --country GB
    """
    if ctx.invoked_subcommand is not None:
        if any(value not in (None, False) for value in ctx.params.values()):
            raise click.UsageError("the listing's options go without a subcommand; give the subcommand its own")
        return
    check_one_format(options, as_csv)
    if v1 and any(filters[name] not in (None, False) for name in V2_FILTERS):
        raise click.UsageError("--v1 takes no filters or paging options (catalog version 1 has none)")
    if fresh and not v1:
        raise click.UsageError(
            "--fresh goes with --v1: version 2 pages are asked for each time (the mirror keeps them)"
        )
    if filters["all_pages"] and filters["page"] is not None:
        raise click.UsageError("use either --all or --page, not both")

    async def work(session: CommandConnection) -> None:
        from tui.api.models import to_wire

        if v1:
            answer = await session.copies.catalog_v1(session.client, fresh=fresh)
            say_freshness(answer)
            brands = answer.value
            wire = {"brands": [to_wire(brand) for brand in brands]}
        elif filters["all_pages"]:
            count, brands = await _all_pages(session, _query(filters))
            wire = {"count": count, "items": [to_wire(brand) for brand in brands]}
        else:
            page = await session.client.catalog(_query(filters, page_index=filters["page"]))
            brands, wire = page.items, to_wire(page)
            pages = math.ceil(page.count / page.page_size) if page.page_size else 1
            if page.count and page.page_index >= pages:  # nothing matching is an answer, not a mistake
                fail(
                    f"--page {page.page_index} is past the end: {counted(page.count, 'brand')} match, on {counted(pages, 'page')}",
                    EXIT_BAD_INPUT,
                    f"the last page is --page {pages - 1}",
                )
            say(
                f"page {page.page_index + 1} of {max(pages, 1)} (--page {page.page_index}), {counted(page.count, 'brand')} match"
            )
        if options.json:
            emit_json(wire)
        elif as_csv:
            print_products_csv(brands)
        else:
            print_products(brands)

    run(options, work, concurrent=True)


def _query(filters: dict, page_index: int | None = None):
    from tui.api.models import CatalogQuery

    return CatalogQuery(
        currency_code=filters["currency"],
        country_code=filters["country"],
        name=filters["name"],
        modified_date=_wire_date(filters["modified_since"]),
        product_id=filters["product_id"],
        page_size=filters["page_size"],
        page_index=page_index,
        brand_id=filters["brand_id"],
        target_currency=filters["target_currency"],
    )


async def _all_pages(session: CommandConnection, query):
    """Every page of a query: the first tells the count, the rest are fetched a few at a time."""
    from dataclasses import replace

    from tui.api.bounds import page_count

    client = session.client
    with progress("catalog pages") as advance:  # a bar on a terminal's stderr only
        first = await client.catalog(replace(query, page_index=0))
        pages = page_count(first.count, first.page_size or query.page_size or 1)  # sane before it drives work
        advance(total=pages)
        say_pace(pages - 1, client.limiter.limits.get(CATALOG_V2))
        client.on_wait = None  # the pages wait their turns at the catalog's rate: the bar and its ETA tell it
        limit = asyncio.Semaphore(PAGE_FETCH_CONCURRENCY)

        async def fetch(index: int):
            async with limit:
                page = await client.catalog(replace(query, page_index=index, page_size=first.page_size))
            advance()
            return page

        rest = await asyncio.gather(*(fetch(index) for index in range(1, pages)))
    brands = [brand for page in (first, *rest) for brand in page.items]
    return first.count, brands


def _add_mirror_commands() -> None:
    from tui.commands.catalog_mirror import changes, search, sync
    from tui.commands.catalog_v21 import categories, countries, stock

    for subcommand in (sync, search, changes, stock, categories, countries):
        command.add_command(subcommand)


_add_mirror_commands()
