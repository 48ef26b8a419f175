"""`giftdesk accounts`: the settlement accounts of the profile."""

from __future__ import annotations

import click

from tui.commands.common import Options, Session, emit_json, print_table, run, service_options
from widgets.money import format_amount


@click.command("accounts")
@service_options
def command(options: Options) -> None:
    """List the settlement accounts and balances.

    One line per account: id, currency, balance, active, environment. Orders
    are placed on an account by its id (`giftdesk order place --account ID`).

    \b
    Examples:
      giftdesk accounts
      giftdesk accounts --profile NAME --json
    """

    async def work(session: Session) -> None:
        from tui.api.models import to_wire

        accounts = await session.client.accounts()
        if options.json:
            emit_json({"accounts": [to_wire(account) for account in accounts]})
            return
        print_table(
            ["ID", "CURRENCY", "BALANCE", "ACTIVE", "ENVIRONMENT"],
            [
                [a.id, a.currency, format_amount(a.balance, a.currency), "yes" if a.is_active else "no",
                 "sandbox" if a.sandbox_mode else "production"]
                for a in accounts
            ],
        )

    run(options, work)
