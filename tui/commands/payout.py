"""`giftdesk payout check|redeem|status`."""

from __future__ import annotations

import sys
from typing import Any

import click

from tui.commands.options import Options, debug_option, service_options, write_service_options, yes_option
from tui.commands.output import EXIT_BAD_INPUT, emit_json, fail, print_fields
from tui.commands.runner import CommandConnection, run, watch
from tui.commands.watch import exit_for_status, exit_status_option
from tui.core.safe_text import visible

WATCH_INTERVAL = 3.0  # seconds between polls of --watch


@click.group("payout")
def command() -> None:
    """Check a recipient, redeem a payout, show its status.

    \b
    Examples:
      giftdesk payout check --wallet Venmo --phone +15551234567
      giftdesk payout redeem URL --wallet PayPal --email ann@example.com
      giftdesk payout status URL --watch
    """


class WalletChoice(click.Choice):
    """PayPal or Venmo, shown and completed as a choice; any other value is left to the spec's rules.

    The local validation then answers a wrong case (`paypal`) with the service's own text, exit 2.
    """

    def __init__(self) -> None:
        super().__init__(["PayPal", "Venmo"])  # tui.api.payout_rules.WALLETS, written here to keep --help light

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return value


def recipient_options(command_function):
    """--wallet and the three recipient options, as the spec names them."""
    for decorator in reversed(
        [
            click.option("--wallet", type=WalletChoice(), help="The wallet, spelled exactly so."),
            click.option("--email", metavar="TEXT", help="Recipient email (PayPal or Venmo)."),
            click.option("--phone", metavar="TEXT", help="Recipient phone, optional + then 7-15 digits (Venmo only)."),
            click.option(
                "--handle",
                metavar="TEXT",
                help="Recipient handle, optional @ then 5-30 of A-Z a-z 0-9 _ - (Venmo only).",
            ),
        ]
    ):
        command_function = decorator(command_function)
    return command_function


def _checked_request(wallet, email, phone, handle):
    """The body, the spec's text for the first rule it breaks and that rule in words (both None when valid)."""
    from tui.api.models import RedeemRequest
    from tui.api.payout_rules import redeem_problem, redeem_rule

    request = RedeemRequest(wallet, recipient_email=email, recipient_phone=phone, recipient_handle=handle)
    return request, redeem_problem(request), redeem_rule(request)


def _redeem_request(wallet, email, phone, handle):
    """The body, validated locally: a broken rule exits 2 with the spec's text, then the rule in words."""
    request, problem, rule = _checked_request(wallet, email, phone, handle)
    if problem:
        fail(problem, EXIT_BAD_INPUT, rule)
    return request


def _weblink(argument: str) -> str:
    from tui.api.weblink import WeblinkError, weblink_token

    text = sys.stdin.readline() if argument == "-" else argument
    try:
        return weblink_token(text)
    except WeblinkError as error:
        fail(str(error), EXIT_BAD_INPUT)


@command.command("check")
@recipient_options
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print the verdict as JSON: {"valid", "wallet", "recipient" (masked)} or {"valid": false, "problem", "rule"}.',
)
@debug_option
def check(wallet, email, phone, handle, as_json: bool) -> None:
    """Check a wallet and recipient locally, sending nothing.

    The spec's rules, as the service applies them. Exit 0 when valid; exit 2
    with the service's own text when not (on stderr; with --json also as
    "problem" on stdout).

    \b
    Examples:
      giftdesk payout check --wallet PayPal --email ann@example.com
      giftdesk payout check --wallet Venmo --handle @ann_smith --json
    """
    from tui.api.redact import mask_recipient

    request, problem, rule = _checked_request(wallet, email, phone, handle)
    if as_json:
        emit_json(
            {"valid": False, "problem": problem, "rule": rule}
            if problem
            else {"valid": True, "wallet": request.wallet, "recipient": mask_recipient(request.recipient)}
        )
    if problem:
        fail(problem, EXIT_BAD_INPUT, rule)
    if not as_json:
        click.echo(visible(f"valid: {request.wallet} payout to {mask_recipient(request.recipient)}"))


@command.command("redeem")
@click.argument("weblink_or_card_code", metavar="URL")
@recipient_options
@yes_option
@write_service_options
def redeem(options: Options, weblink_or_card_code: str, wallet, email, phone, handle, yes: bool) -> None:
    """Redeem a payout weblink to a PayPal or Venmo recipient.

    URL is the card's payout weblink or its last path segment; '-' reads it
    from stdin. The recipient is checked locally first. Repeating a redeem for the same
    weblink creates no second payout (the service returns the first one), so
    it is retried on 429 and connection failures. HTTP 200 means completed;
    202 means submitted: follow it with `giftdesk payout status --watch`.
    Refused when the accounts' own environment (sandboxMode) is not the
    profile's. The audit log gets a line before sending and one with the outcome.

    \b
    Examples:
      giftdesk payout redeem URL --wallet PayPal --email ann@example.com
      giftdesk payout redeem - --wallet Venmo --phone +15551234567 --yes < weblink.txt
    """
    request = _redeem_request(wallet, email, phone, handle)
    token = _weblink(weblink_or_card_code)

    async def work(session: CommandConnection) -> None:
        from tui.api.models import to_wire
        from tui.api.redact import mask_recipient, mask_weblink
        from tui.core.payout_flow import Attempt

        action = f"pay out weblink {mask_weblink(token)} to {request.wallet} {mask_recipient(request.recipient)}"
        session.refuse_readonly(action)
        phrase, asks = Attempt(token, request).confirmation_phrase()  # what the TUI's Redeem asks
        result = await session.money().redeem(
            token, request, confirm=lambda: session.confirm_production(action, yes, phrase, asks)
        )
        if options.json:
            emit_json(to_wire(result))
            return
        outcome = (
            "submitted, still processing: follow it with `giftdesk payout status --watch`"
            if result.is_processing
            else "completed"
        )
        print_fields(
            [
                ("Result", f"HTTP {result.http_status}: {outcome}"),
                ("Transaction ID", result.transaction_id),
                ("Payout batch ID", result.payout_batch_id),
            ]
        )

    run(options, work)


@command.command("status")
@click.argument("weblink_or_card_code", metavar="URL")
@click.option("--watch", "watch_", is_flag=True, help="Poll until the payout is no longer Pending.")
@click.option(
    "--interval",
    type=click.FloatRange(min=0.2),
    default=WATCH_INTERVAL,
    show_default=True,
    metavar="N",
    help="Seconds between polls with --watch (at least 0.2).",
)
@exit_status_option
@service_options
def status(options: Options, weblink_or_card_code: str, watch_: bool, interval: float, exit_status: bool) -> None:
    """Show a payout's status and the ids to quote.

    URL is the card's payout weblink or its last path segment; '-' reads it
    from stdin. The transaction and batch ids are the ones to quote to the
    wallet provider. With --watch, changes go to stderr and the final status to stdout.
    Unclaimed may still become Returned, and Completed Reversed: check again later.

    \b
    Examples:
      giftdesk payout status URL
      giftdesk payout status URL --watch --json
    """
    token = _weblink(weblink_or_card_code)

    async def work(session: CommandConnection) -> None:
        from tui.api.models import to_wire
        from tui.api.redact import mask_weblink
        from tui.api.statuses import is_payout_final
        from tui.commands.audit import settle_checked, settle_not_found

        def fetch():
            return session.client.payout_status(token)

        if watch_:
            payout = await watch(
                fetch, lambda p: is_payout_final(p.status), lambda p: p.status, interval, session.sleep
            )
        else:
            with settle_not_found(session, mask_weblink(token), "no payout for this weblink yet: not redeemed"):
                payout = await fetch()
        settle_checked(session, mask_weblink(token), f"payout status {payout.status}")
        if options.json:
            emit_json(to_wire(payout))
        else:
            _print_status(payout)
        exit_for_status(exit_status, payout.status)

    run(options, work, endless=watch_)


def _print_status(payout) -> None:
    from tui.api.statuses import is_payout_final, payout_status_meaning

    finality = "final" if is_payout_final(payout.status) else "in progress"
    known = [
        ("Status", f"{payout.status} ({finality}): {payout_status_meaning(payout.status)}"),
        ("Transaction ID", payout.transaction_id),
        ("Payout batch ID", payout.payout_batch_id),
        ("Updated", payout.updated_at),
    ]
    extra = [(name, value) for name, value in (payout.model_extra or {}).items()]
    print_fields([(label, value) for label, value in known if value is not None] + extra)
