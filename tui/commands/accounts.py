"""`giftdesk accounts`: the settlement accounts of the profile."""

from __future__ import annotations

import click

from tui.commands.options import Options, check_one_format, csv_option, service_options
from tui.commands.output import emit_json, print_csv, print_table
from tui.commands.runner import CommandConnection, run
from widgets.money import exact_amount, format_amount


@click.command("accounts")
@csv_option
@service_options
def command(options: Options, as_csv: bool) -> None:
    """List the settlement accounts and balances.

    One line per account: id, currency, balance, active, environment. Orders
    are placed on an account by its id (`giftdesk order place --account ID`).

    \b
    Examples:
      giftdesk accounts
      giftdesk accounts --profile NAME --json
    """

    check_one_format(options, as_csv)

    async def work(session: CommandConnection) -> None:
        from tui.api.models import to_wire
        from tui.core.safe_text import visible

        accounts = await session.client.accounts()
        if options.json:
            emit_json({"accounts": [to_wire(account) for account in accounts]})
            return
        rows = [
            [
                a.id,
                visible(a.currency),
                (exact_amount if as_csv else format_amount)(a.balance, a.currency),
                "yes" if a.is_active else "no",
                a.environment(session.profile.environment),
            ]
            for a in accounts
        ]
        (print_csv if as_csv else print_table)(["ID", "CURRENCY", "BALANCE", "ACTIVE", "ENVIRONMENT"], rows)

    run(options, work)
