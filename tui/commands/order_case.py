"""`giftdesk order case ID`: the case file (issue 38), and any ID finding its order for every command."""

from __future__ import annotations

from contextlib import ExitStack
from typing import TYPE_CHECKING

import click

from tui.commands.options import Options, service_options
from tui.commands.order_id import find_order_or_fail
from tui.commands.output import EXIT_BAD_INPUT, emit_json, fail
from tui.commands.runner import CommandConnection, run
from tui.commands.watch import EXIT_ENDED_BADLY, exit_status_option

if TYPE_CHECKING:
    from tui.case_file import CaseFile


@click.command("case")
@click.argument("order_id", metavar="ID")
@click.option("--markdown", is_flag=True, help="A ticket summary in Markdown, masked as the screen is.")
@exit_status_option
@service_options
def case(options: Options, order_id: str, markdown: bool, exit_status: bool) -> None:
    """An order's case file: its timeline and the verdict.

    Every event giftdesk knows of the order, oldest first, and whether the
    customer was charged. ID is a RequestId, its first 8 characters or more, the order number
    (O-00500199 or 500199) or a card serial giftdesk has seen. The verdict
    says what was charged and refunded and whether the order needs attention.
    It uses one Get order and the local copies of the transactions (a copy
    fresh enough answers: the provider allows 4 transactions requests an
    hour). --exit-status exits 6 when the case needs attention.

    \b
    Examples:
      giftdesk order case O-00500199
      giftdesk order case 3f2a9c1e --markdown | pbcopy
      giftdesk order case ID --json | jq .verdict
    """
    if markdown and options.json:
        fail("use either --json or --markdown, not both", EXIT_BAD_INPUT)
    found: list[CaseFile] = []

    async def work(session: CommandConnection) -> None:
        from tui.case_file import case_markdown, open_case, opened_stores

        request_id = await find_order_or_fail(session, order_id)
        profile = session.profile
        with ExitStack() as stack:
            stores = opened_stores(stack, profile.name, profile.environment, session.team)
            found.append(await open_case(request_id, session.client, session.copies, stores))
        if options.json:
            emit_json(found[0].to_json())
        elif markdown:
            click.echo(case_markdown(found[0]), nl=False)
        else:
            _print_case(found[0])

    run(options, work)
    if exit_status and found and found[0].verdict.attention:
        raise click.exceptions.Exit(EXIT_ENDED_BADLY)


# --- the stores a case reads -------------------------------------------------------------------------


# --- output ------------------------------------------------------------------------------------------


def _print_case(case_file: CaseFile) -> None:
    from tui.case_file import shown_time as _time
    from tui.commands.output import print_table
    from tui.core.safe_text import visible

    verdict = case_file.verdict
    click.echo(
        f"Order {case_file.order_number} · RequestId {visible(case_file.request_id)} · {visible(case_file.status)}"
    )
    click.echo(f"Verdict: {visible(verdict.words)}")
    for reason in verdict.reasons:
        click.echo(f"  ! {visible(reason)}")
    print_table(
        ["TIME (UTC)", "SOURCE", "WHAT", "BY"],
        [[_time(e.time), e.source, visible(_masked(e.what)), visible(e.by)] for e in case_file.events],
    )
    ages = ", ".join(f"{source} {_time(when)}" for source, when in case_file.as_of.items())
    click.echo(f"As of: {ages}", err=True)


def _masked(text: str) -> str:
    from tui.api.redact import mask_text

    return mask_text(text)
