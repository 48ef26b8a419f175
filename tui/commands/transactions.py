"""`giftdesk transactions`: the account charges of some days, with the balance after each."""

from __future__ import annotations

from datetime import date

import click

from tui.commands.options import Options, check_one_format, csv_option, fresh_option, service_options
from tui.commands.output import EXIT_BAD_INPUT, emit_json, fail, print_csv, print_table, say, say_freshness
from tui.commands.runner import CommandConnection, run

HEADERS = ["DATE", "TYPE", "AMOUNT", "BALANCE AFTER", "CURRENCY", "ORDER", "REQUEST ID", "TRANSACTION"]


@click.command("transactions")
@click.option(
    "--from", "start", metavar="DATE", required=True, help="First day: YYYY-MM-DD, today, yesterday or Nd (N days ago)."
)
@click.option("--to", "end", metavar="DATE", help="Last day, included (default today).")
@click.option(
    "--account",
    "account_id",
    type=int,
    metavar="ID",
    help="Only this account's transactions (those in its currency), with a reconciliation.",
)
@csv_option
@fresh_option
@service_options
def command(options: Options, start: str, end: str | None, account_id: int | None, as_csv: bool, fresh: bool) -> None:
    """List transactions: date, type, amount, balance after, order, RequestId.

    Amounts are signed (a charge is negative). The balance after each
    transaction must be the one before plus its amount; a line on stderr says
    whether they add up, per currency. With --json the service's answer is
    printed as it came.

    The provider allows 4 transaction requests an hour: a day that has
    ended is fetched once and kept locally, today at most every 15 minutes
    (stderr says when an answer is the local copy; --fresh asks anyway).

    \b
    Examples:
      giftdesk transactions --from today
      giftdesk transactions --from 7d --account 1001 --csv
      giftdesk transactions --from 2026-11-01 --to 2026-11-30 --json
    """
    from tui.core.dates import DateInvalid, DayRange

    check_one_format(options, as_csv)
    try:
        day_range = DayRange.parse(start, end, today=date.today(), names=("--from", "--to"))
    except DateInvalid as error:
        raise click.BadParameter(str(error)) from None

    async def work(session: CommandConnection) -> None:
        from tui.api.models import to_wire
        from tui.core.ledger import UnknownAccount, account_by_id

        answer = await session.copies.transactions(session.client, day_range.start, day_range.end, fresh=fresh)
        say_freshness(answer)
        report = answer.value
        currencies = sorted({t.currency for t in report.transactions})
        if account_id is not None:
            try:
                currency = account_by_id(await session.client.accounts(), account_id).currency
            except UnknownAccount as error:
                fail(str(error), EXIT_BAD_INPUT)
            currencies = [currency]
            for client in report.clients:
                client.transactions = [t for t in client.transactions if t.currency.upper() == currency.upper()]
        if options.json:
            emit_json(to_wire(report))
            return
        _print(report, currencies, as_csv)

    run(options, work)


def _print(report, currencies: list[str], as_csv: bool) -> None:
    from tui.core.ledger import of_currency, reconcile
    from tui.core.safe_text import visible
    from widgets.money import format_money

    rows = []
    for currency in currencies:
        reconciliation = reconcile(of_currency(report, currency))
        say(visible(f"{currency}: {reconciliation.summary(format_money)}"))
        for line in reconciliation.lines:
            t = line.transaction
            amounts = (line.signed_amount, t.available_balance.value)  # the direction read, not the sign sent
            money = [str(value) if as_csv else format_money(value, t.currency) for value in amounts]
            rows.append(
                [
                    visible(cell)
                    for cell in (
                        (t.transaction_date or "").replace("T", " ")[:19],
                        t.transaction_type or "",
                        *money,
                        t.currency,
                        t.order_number or "",
                        t.request_id or "",
                        t.reference,
                    )
                ]
            )
    if as_csv:
        print_csv(HEADERS, rows)
    elif rows:
        print_table(HEADERS, rows)
    else:
        say(f"no transactions from {report.start_date} to {report.end_date}")
