"""`giftdesk catalog sync | search | changes`: the local catalog mirror (tui.local.mirror).

`sync` talks to the service; `search` and `changes` read only the mirror, so
they work with the service stopped (they need the profile's name and
environment, never its secret).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time
from typing import TYPE_CHECKING

import click

from tui.commands.options import Options, service_options
from tui.commands.output import EXIT_BAD_INPUT, emit_json, fail, print_table, say
from tui.commands.runner import CommandConnection, run

if TYPE_CHECKING:
    from tui.local.mirror import Mirror


def _identity(options: Options) -> tuple[str, str]:
    """(profile name, environment) of the mirror to read, without a secret or a service."""
    from tui.commands.options import DEMO_CREDENTIAL
    from tui.local.config import ConfigError
    from tui.local.config_file import ProfileStore
    from tui.local.profiles import choose_profile, profile_from_env

    try:
        if options.demo:
            from tui.simulator import DEMO_CREDENTIALS

            return "demo", next(c for c in DEMO_CREDENTIALS if c.name == DEMO_CREDENTIAL).environment
        profile = (profile_from_env() if options.profile is None else None) or choose_profile(
            ProfileStore().load(), options.profile
        )
    except ConfigError as error:
        fail(str(error), EXIT_BAD_INPUT)
    return profile.mirror_name, profile.environment


@contextmanager
def _opened(name: str, environment: str, *, must_exist: bool) -> Iterator[Mirror]:
    from tui.local.database import DatabaseError, what_to_do
    from tui.local.fileio import mirror_path
    from tui.local.mirror import Mirror

    path = mirror_path(name, environment)
    if must_exist and not path.exists():
        fail(
            f"no catalog mirror yet for profile {name!r} ({environment})",
            EXIT_BAD_INPUT,
            "run `giftdesk catalog sync` once (it needs the service); later searches work offline",
        )
    try:
        with Mirror(path) as mirror:
            yield mirror
    except DatabaseError as error:
        fail(str(error), EXIT_BAD_INPUT)
    except sqlite3.OperationalError as error:
        fail(f"{path}: {error}", EXIT_BAD_INPUT, what_to_do(error, path))


@click.command("sync")
@click.option("--full", is_flag=True, help="Walk every page again, even when the mirror could ask only for changes.")
@service_options
def sync(options: Options, full: bool) -> None:
    """Bring the local catalog mirror up to date with the service.

    The first sync walks every page at the catalog's limit (1 page a second:
    a 1,000-page catalog takes about 17 minutes; progress and an ETA on a
    terminal); later ones fetch only what changed since (ModifiedDate) and
    notice removed products. A sync that is interrupted leaves the previous
    mirror as it was, and the next full one resumes where it stopped. Price
    and stock changes are recorded: see `giftdesk catalog changes`.

    \b
    Examples:
      giftdesk catalog sync
      giftdesk catalog sync --full --profile support-sandbox
    """

    async def work(session: CommandConnection) -> None:
        from tui.commands.progress import progress
        from tui.local.mirror_sync import sync as sync_mirror

        session.client.on_wait = None  # the pages wait their turns at the catalog's limit: the bar's ETA tells it
        with (
            _opened(session.profile.mirror_name, session.profile.environment, must_exist=False) as mirror,
            progress("syncing the catalog") as advance,
        ):
            result = await sync_mirror(mirror, session.client, advance=advance, full=full)
        record = result.record
        summary = {
            "kind": record.kind,
            "brands": record.brands,
            "products": record.products,
            "requests": record.requests,
            "changes": result.changes,
            "finished": record.finished,
        }
        if options.json:
            emit_json(summary)
        else:
            click.echo(
                f"{record.kind} sync: {record.brands:,} brands, {record.products:,} products, "
                f"{record.requests:,} requests, {result.changes:,} changes "
                f"(`giftdesk catalog changes` lists them)"
            )

    run(options, work, concurrent=True)


@click.command("search")
@click.argument("text", metavar="TEXT")
@click.option("--country", metavar="CC", help="Only brands of this 2-letter country code.")
@click.option("--currency", metavar="CUR", help="Only brands of this 3-letter currency code.")
@click.option(
    "--limit",
    type=click.IntRange(1, 10_000),
    default=50,
    show_default=True,
    metavar="N",
    help="At most this many products.",
)
@service_options
def search(options: Options, text: str, country: str | None, currency: str | None, limit: int) -> None:
    """Search the local mirror offline, ranked.

    Over product, brand and category names and descriptions.

    Every word is a prefix ("amaz" finds Amazon), all words must match; the
    best matches come first (names weigh more than descriptions).
    "country:fr" and "currency:eur" in the text narrow like --country and
    --currency (a bare "fr" is a word). With --json: a list of
    {"brand", "product"} in the service's wire shape.

    \b
    Examples:
      giftdesk catalog search amaz
      giftdesk catalog search "tea gift" --country GB --currency GBP --json
      giftdesk catalog search "cinema country:fr"
    """
    from tui.local.mirror import SearchFilters

    name, environment = _identity(options)
    with _opened(name, environment, must_exist=True) as mirror:
        pairs = mirror.search_products(text, SearchFilters(country=country, currency=currency), limit=limit)
        last = mirror.last_sync()
    if options.json:
        emit_json([{"brand": brand, "product": product} for brand, product in pairs])
        return
    from tui.api.models import Brand
    from tui.commands.catalog_output import print_products

    say(f"{len(pairs)} products from the mirror" + (f", synced {last.age()}" if last else " (never synced)"))
    print_products(Brand.model_validate({**brand, "products": [product]}) for brand, product in pairs)


def _since(value: str | None) -> datetime | None:
    from tui.core.dates import DateInvalid, parse_day

    if value is None:
        return None
    try:
        return (
            datetime.fromisoformat(value)
            if "T" in value
            else datetime.combine(parse_day(value, today=date.today()), time.min)
        )
    except (DateInvalid, ValueError) as error:
        raise click.BadParameter(str(error), param_hint="--since") from None


@click.command("changes")
@click.option(
    "--since",
    metavar="DATE",
    help="Changes recorded since this day (YYYY-MM-DD, today, yesterday, Nd) or time "
    "(YYYY-MM-DDTHH:MM:SS, UTC); default: those of the last sync.",
)
@service_options
def changes(options: Options, since: str | None) -> None:
    """Price and stock changes the mirror's syncs recorded, offline.

    New, removed, price up or down (with the difference), out of stock, back
    in stock. By default the changes the last sync found.

    \b
    Examples:
      giftdesk catalog changes
      giftdesk catalog changes --since yesterday --json
    """
    from tui.local.mirror import PRICE_DOWN, PRICE_UP

    after = _since(since)
    name, environment = _identity(options)
    with _opened(name, environment, must_exist=True) as mirror:
        found = mirror.changes(after)
    if options.json:
        emit_json([change.__dict__ for change in found])
        return
    from tui.commands.output import money
    from tui.core.safe_text import visible
    from widgets.money import format_range

    rows = []
    for change in found:
        difference = change.difference if change.kind in (PRICE_UP, PRICE_DOWN) else None
        rows.append(
            [
                change.at,
                change.kind,
                change.product_id,
                visible(change.product),
                visible(change.brand),
                change.country,
                "" if change.old_min is None else format_range(change.old_min, change.old_max or 0, change.currency),
                "" if change.new_min is None else format_range(change.new_min, change.new_max or 0, change.currency),
                ("+" if difference and difference > 0 else "") + money(difference, change.currency),
                "" if change.new_count is None else change.new_count,
            ]
        )
    say(f"{len(found)} changes" + (f" since {after.isoformat()}" if after else " in the last sync"))
    print_table(
        ["AT", "CHANGE", "PRODUCT", "NAME", "BRAND", "COUNTRY", "OLD PRICE", "NEW PRICE", "DIFFERENCE", "STOCK"], rows
    )
