"""`giftdesk`: the TUI when no command is given, else one scriptable command.

Command modules load only when their command runs (`LazyGroup`), so the
help and each command start fast, and Textual is imported only for the TUI.
"""

from __future__ import annotations

import importlib

import click

from tui.commands.options import complete_profile_names, complete_request_ids, start_debug_log

# name -> (module exposing `command`, one line of help shown by `giftdesk --help`)
COMMANDS: dict[str, tuple[str, str]] = {
    "accounts": ("tui.commands.accounts", "List the settlement accounts and balances."),
    "audit": ("tui.commands.audit", "Verify the audit log's chain of money actions."),
    "catalog": ("tui.commands.catalog", "Browse brands and products, filtered and paged."),
    "completion": ("tui.commands.completion", "Print the shell completion script (bash, zsh, fish)."),
    "orders": ("tui.commands.orders", "List the order lines of a range of days."),
    "order": ("tui.commands.order", "Show an order, or place one."),
    "payout": ("tui.commands.payout", "Check a recipient, redeem a payout, show its status."),
    "notifications": ("tui.commands.notifications", "Show or set the order-callback configuration."),
    "listen": ("tui.commands.listen", "Receive the service's callbacks and signed webhooks."),
    "inbox": ("tui.commands.inbox", "List what the receiver kept, with verdicts."),
    "transactions": ("tui.commands.transactions", "List transactions: amount, balance after, order."),
    "rates": ("tui.commands.rates", "List exchange rates, for a base or a currency."),
    "watch": ("tui.commands.watch", "Follow orders and payouts until each is final."),
    "sim": ("tui.commands.sim", "Run the service simulator on a local port."),
    "profiles": ("tui.commands.profiles", "List, add, use, remove or show profiles."),
    "team": ("tui.commands.team", "Set up and check the team database (team mode)."),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def __init__(self, *args, lazy_commands: dict[str, tuple[str, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = lazy_commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.lazy_commands:
            return super().get_command(ctx, name)
        module_name, _ = self.lazy_commands[name]
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise  # a real missing dependency must not pass for a missing command
            return None
        return module.command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The listing uses the stored one-liners: no command module is imported for --help.
        rows = [(name, self.lazy_commands[name][1]) for name in sorted(self.lazy_commands)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(
    cls=LazyGroup,
    lazy_commands=COMMANDS,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Exit codes: 0 ok; 2 bad input or local validation; 3 the service refused; "
        "4 authentication failed; 5 the service could not be reached or failed; "
        "6 something watched ended badly (only with --exit-status); 130 Ctrl-C, 143 SIGTERM. "
        "The profile: --profile NAME, else $GIFTDESK_PROFILE, else the GIFTDESK_BASE_URL, "
        "GIFTDESK_CLIENT_ID, GIFTDESK_CLIENT_SECRET (and GIFTDESK_ENVIRONMENT, default sandbox) "
        "variables when set, else the current profile. Shell completion: see `giftdesk completion --help`."
    ),
)
@click.option(
    "--profile",
    metavar="NAME",
    shell_complete=complete_profile_names,
    help="Open this stored profile (default: $GIFTDESK_PROFILE, then the current profile).",
)
@click.option("--demo", is_flag=True, help="Run on the embedded simulator: no account needed.")
@click.option(
    "--team",
    is_flag=True,
    help="With --demo: in team mode, on a throwaway local PostgreSQL (needs its server's programs).",
)
@click.option("--readonly", is_flag=True, help="Offer no action that changes anything.")
@click.option(
    "--order",
    "order",
    metavar="ID",
    shell_complete=complete_request_ids,
    help="Open the TUI straight on the order with this RequestId.",
)
@click.option("--debug", is_flag=True, help="Log in detail (secrets stay masked); the log's path goes to stderr.")
@click.version_option(package_name="giftdesk")
@click.pass_context
def main(
    ctx: click.Context, profile: str | None, demo: bool, team: bool, readonly: bool, order: str | None, debug: bool
) -> None:
    """giftdesk: a terminal dashboard for gift-card orders and payouts.

    Without a command, opens the TUI. With one, runs it and exits; the
    options above also apply to the command (e.g. `giftdesk --demo accounts`).

    \b
    Examples:
      giftdesk --demo --team
      giftdesk --profile sandbox --order ID
      giftdesk --debug accounts --json
    """
    if demo:  # before the debug log: the demo's log is in its own folder too (tui/local/demo_data.py)
        from tui.local.demo_data import enter_demo_data_dir

        enter_demo_data_dir()
    if debug:  # the path stays on the terminal once the TUI has closed
        start_debug_log(ctx)
    if ctx.invoked_subcommand is not None:
        return
    if demo and profile:
        raise click.UsageError("use either --demo or --profile, not both")
    if team and not demo:
        raise click.UsageError(
            "--team goes with --demo; a team's giftdesk is in team mode by its config (docs/team.md)"
        )
    from tui.startup import open_tui  # Textual only for the TUI, when it builds the app

    status = open_tui(profile, demo=demo, team=team, readonly=readonly, order=order, debug=debug)
    if status:  # stopped by an unexpected error: said on stderr, with where the traceback is
        ctx.exit(status)
