"""`giftdesk orders list`: the order history, one line per order line."""

from __future__ import annotations

from datetime import date

import click

from tui.commands.options import Options, fresh_option, service_options
from tui.commands.output import EXIT_BAD_INPUT, emit_json, fail, money, print_table, say, say_freshness
from tui.commands.runner import CommandConnection, run

# Seen on real orders beyond SPEC's (DESIGN "What the real provider sends").
KNOWN_EXTRA_STATUSES = ("CheckingOut",)

# The CSV's columns: the service's fields in the documented order, headed by the names the table and the
# screens use (docs/decisions.md, "Glossary"): the table's REQUEST ID is the CSV's REQUEST ID.
CSV_FIELDS = {
    "orderDate": "DAY (UTC)",
    "orderNumber": "ORDER NUMBER",
    "clientReferenceNumber": "REQUEST ID",
    "clientName": "CLIENT",
    "channel": "CHANNEL",
    "productName": "PRODUCT",
    "denomination": "DENOMINATION",
    "quantity": "QTY",
    "unitPrice": "UNIT PRICE",
    "subTotal": "SUBTOTAL",
    "total": "TOTAL",
    "accountCurrency": "CURRENCY",
    "status": "STATUS",
}


# The table's columns, of those: the line's own amount (subTotal) rather than the order's total.
TABLE_FIELDS = (
    "orderDate",
    "orderNumber",
    "clientReferenceNumber",
    "productName",
    "denomination",
    "quantity",
    "subTotal",
    "status",
)


@click.group("orders")
def command() -> None:
    """List the order history (one line per order line).

    \b
    Examples:
      giftdesk orders list --from today
      giftdesk orders list --from 7d --status Pending --json
    """


@command.command("list")
@click.option(
    "--from",
    "start",
    metavar="DATE",
    required=True,
    help="First day (YYYY-MM-DD, today, yesterday or Nd for N days ago).",
)
@click.option("--to", "end", metavar="DATE", default=None, help="Last day, included (default today).")
@click.option(
    "--status",
    "statuses",
    metavar="TEXT",
    multiple=True,
    help="Keep only lines with this status (any case; repeat for several).",
)
@click.option(
    "--attention",
    is_flag=True,
    help="Keep only orders that need attention (e.g. Failed but charged; `giftdesk order case ID` says why).",
)
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV on stdout, headed as the table is (REQUEST ID, ...).")
@fresh_option
@service_options
def list_orders(
    options: Options,
    start: str,
    end: str | None,
    statuses: tuple[str, ...],
    attention: bool,
    as_csv: bool,
    fresh: bool,
) -> None:
    """List order lines of the days from --from to --to (both included).

    One line per order line: day, order number, RequestId (open it with
    `giftdesk order show ID`; it has the time), product, denomination,
    quantity, total and status. The history dates orders, it does not time
    them; days are the service's (UTC). --json prints the service's JSON
    as it came (filtered by --status when given). A day that has ended is
    fetched once and kept locally (stderr says when an answer is the local
    copy; --fresh asks the service anyway).

    \b
    Examples:
      giftdesk orders list --from today
      giftdesk orders list --from 7d --status Pending --json
      giftdesk orders list --from 2026-11-01 --to 2026-11-30 --csv
    """
    from tui.core.dates import DateInvalid, DayRange

    if as_csv and options.json:
        fail("use either --json or --csv, not both", EXIT_BAD_INPUT)
    try:
        day_range = DayRange.parse(start, end, today=date.today(), names=("--from", "--to"))
    except DateInvalid as error:
        fail(str(error), EXIT_BAD_INPUT)
    wanted = {status.lower() for status in statuses}

    async def work(session: CommandConnection) -> None:
        from tui.api.models import to_wire

        answer = await session.copies.order_history(session.client, day_range, fresh=fresh)
        say_freshness(answer)
        lines = answer.value
        _check_statuses(statuses, {line.status for line in lines})
        lines = [line for line in lines if not wanted or line.status.lower() in wanted]
        if attention:
            lines = await _needing_attention(session, lines)
        if options.json:
            emit_json([to_wire(line) for line in lines])
        elif as_csv:
            _print_csv(lines)
        else:
            _print_lines(lines, day_range)

    run(options, work)


async def _needing_attention(session: CommandConnection, lines: list) -> list:
    """The lines of the orders whose case needs attention; each order's reasons on stderr."""
    from tui.case_file import needing_attention
    from tui.core.safe_text import visible
    from tui.local.storage import audit_log

    found, problem = await needing_attention(lines, session.client, session.copies, audit_log().entries())
    if problem:
        say(f"transactions not read ({problem}): attention from the report's status and the audit only")
    for request_id, verdict in found.items():
        say(f"{visible(request_id)}: {visible('; '.join(verdict.reasons))}")
    return [line for line in lines if line.client_reference_number in found]


def _check_statuses(wanted: tuple[str, ...], seen: set[str]) -> None:
    """A --status that is neither a status giftdesk knows nor one the answer has is a typing mistake: exit 2.

    A status the service newly uses (DESIGN rule 5) is taken once an answer carries it.
    """
    from tui.api.statuses import ORDER_STATUS_MEANING

    known = [*ORDER_STATUS_MEANING, *KNOWN_EXTRA_STATUSES]
    names = {status.lower() for status in (*known, *seen)}
    for status in wanted:
        if status.lower() not in names:
            fail(f"--status {status}: not an order status", EXIT_BAD_INPUT, f"use one of {', '.join(known)} (any case)")


def _print_csv(lines) -> None:
    from tui.api.models import Amount, OrderHistoryLine
    from tui.core.safe_text import visible
    from tui.local.exports import to_csv

    attribute = {info.alias: name for name, info in OrderHistoryLine.model_fields.items()}

    def cell(line, field: str) -> str:
        value = getattr(line, attribute[field])
        if isinstance(value, Amount):
            return str(value.value)  # a plain number, whichever form it came in
        return "" if value is None else visible(value)

    rows = [[cell(line, field) for field in CSV_FIELDS] for line in lines]
    click.echo(to_csv(list(CSV_FIELDS.values()), rows), nl=False)


def _print_lines(lines, day_range) -> None:
    from tui.core.safe_text import visible

    if not lines:
        click.echo(f"No order lines from {day_range}.", err=True)
        return
    print_table(
        [CSV_FIELDS[field] for field in TABLE_FIELDS],
        [
            [
                visible((line.order_date or "")[:10]),
                visible(line.order_number),
                visible(line.client_reference_number),
                visible(line.product_name or ""),
                visible(line.denomination or ""),
                line.quantity,
                money(line.sub_total, visible(line.account_currency or "")),
                visible(line.status),
            ]
            for line in lines
        ],
    )
