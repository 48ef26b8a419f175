"""`giftdesk rates`: the service's exchange rates, the ones orders in another currency are converted at."""

from __future__ import annotations

import click

from tui.commands.options import Options, check_one_format, csv_option, fresh_option, service_options
from tui.commands.output import emit_json, print_csv, print_table, say_freshness
from tui.commands.runner import CommandConnection, run

HEADERS = ["BASE", "CURRENCY", "RATE"]


@click.command("rates")
@click.option("--base", metavar="CUR", help="Rates based on this currency (baseCurrency); default USD.")
@click.option("--currency", metavar="CUR", help="Only the rate of this currency (currency).")
@csv_option
@fresh_option
@service_options
def command(options: Options, base: str | None, currency: str | None, as_csv: bool, fresh: bool) -> None:
    """List exchange rates: units of each currency for one unit of the base.

    Without options every rate based on USD; with --base every rate based
    on it; with --base and --currency that one rate. An order paid from an
    account in another currency is charged price × rate, rounded. Rates
    are kept locally for 10 minutes (the provider allows 20 requests a
    minute); stderr says when an answer is the local copy.

    \b
    Examples:
      giftdesk rates
      giftdesk rates --base GBP --currency USD
      giftdesk rates --base EUR --csv
    """
    check_one_format(options, as_csv)

    async def work(session: CommandConnection) -> None:
        from tui.api.models import to_wire
        from tui.core.safe_text import visible

        answer = await session.copies.exchange_rates(
            session.client, base.upper() if base else None, currency.upper() if currency else None, fresh=fresh
        )
        say_freshness(answer)
        rates = answer.value
        if options.json:
            emit_json(to_wire(rates))
            return
        # A rate of 0 is the service's "not stated": said so (empty in CSV), never printed as a rate of zero.
        rows = [
            [
                visible(rates.base_currency_code),
                visible(rate.currency_code),
                str(rate.known) if rate.known is not None else ("" if as_csv else "not stated"),
            ]
            for rate in rates.rates
        ]
        (print_csv if as_csv else print_table)(HEADERS, rows)

    run(options, work)
