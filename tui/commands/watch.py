"""`giftdesk watch`: follow many orders and payouts until each is final."""

from __future__ import annotations

import json
import sys
from collections.abc import Hashable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from tui.commands.options import Options, service_options_saying
from tui.commands.output import EXIT_BAD_INPUT, EXIT_REFUSED, fail, say
from tui.commands.runner import CommandConnection, run
from tui.core.safe_text import json_visible

if TYPE_CHECKING:
    from tui.api.errors import ServiceError
    from tui.core.watching import Observation, Pasted, Watched

EXIT_ENDED_BADLY = 6  # DESIGN "Command line contract", only with --exit-status

exit_status_option = click.option(
    "--exit-status",
    is_flag=True,
    help="Exit 6 when something watched ended Failed, PartialFailed, Unclaimed, Returned or Reversed.",
)


def exit_for_status(exit_status: bool, status: str | None) -> None:
    """`--exit-status`: a bad ending exits 6 (after the output)."""
    from tui.core.endings import ended_badly

    if exit_status and ended_badly(status):
        raise click.exceptions.Exit(EXIT_ENDED_BADLY)


@click.command("watch")
@click.argument("request_ids", nargs=-1, metavar="ID...")
@click.option(
    "--payout",
    "payouts",
    multiple=True,
    metavar="URL",
    help="A payout to follow: its card code (payout URL) or weblink token. Repeat for more.",
)
@click.option(
    "--from-file",
    "from_file",
    type=click.File("r"),
    metavar="FILE",
    help="Read RequestIds and card codes from FILE ('-' for stdin), one a line; each is classified.",
)
@exit_status_option
@service_options_saying(
    'One JSON object per line (NDJSON), one per change: {"kind": "order"|"payout", "requestId" or "weblink" '
    '(masked), "status", "final", "at"} and what else is known (card counts, payout ids).'
)
def command(
    options: Options, request_ids: tuple[str, ...], payouts: tuple[str, ...], from_file: Any, exit_status: bool
) -> None:
    """Follow orders and payouts until every one is final.

    One shared schedule asks the service at most 4 times a second, never
    twice at once for the same item, and less often while nothing moves.
    With --json, one JSON object per change (NDJSON); on a terminal, a live
    table; otherwise one line per change. A RequestId the service does not
    know ends as Refused (exit 3).

    \b
    Examples:
      giftdesk watch ID ID --exit-status
      giftdesk watch --from-file FILE --json
      giftdesk watch --payout URL --exit-status
    """
    from tui.api.weblink import WeblinkError, weblink_token
    from tui.core.watching import Pasted, classify_lines

    wanted = [Pasted("order", r.strip()) for r in request_ids if r.strip()]
    try:
        wanted += [Pasted("payout", weblink_token(code)) for code in payouts]
        if from_file is not None:
            wanted += [
                p if p.kind == "order" else Pasted("payout", weblink_token(p.reference))
                for p in classify_lines(from_file.read())
            ]
    except WeblinkError as error:
        fail(str(error), EXIT_BAD_INPUT)
    wanted = list(dict.fromkeys(wanted))
    if not wanted:
        fail(
            "nothing to watch: give RequestIds, --payout URL or --from-file FILE",
            EXIT_BAD_INPUT,
            "see `giftdesk watch --help`",
        )
    outcome: dict[str, bool] = {}

    async def work(session: CommandConnection) -> None:
        from tui.commands.order_id import find_order_or_fail

        # Any ID finds its order (DESIGN "Command line contract"): resolved before anything is watched.
        found = [
            Pasted("order", await find_order_or_fail(session, p.reference)) if p.kind == "order" else p for p in wanted
        ]
        outcome.update(await _watch_all(session, list(dict.fromkeys(found)), json_lines=options.json))

    run(options, work, concurrent=True, endless=True)
    if outcome.get("refused"):
        raise click.exceptions.Exit(EXIT_REFUSED)
    if exit_status and outcome.get("bad"):
        raise click.exceptions.Exit(EXIT_ENDED_BADLY)


async def _watch_all(session: CommandConnection, wanted: list[Pasted], *, json_lines: bool) -> dict[str, bool]:
    from tui.api.errors import AuthenticationError, ForbiddenError, MalformedResponseError
    from tui.api.redact import mask_weblink
    from tui.core.endings import REFUSED
    from tui.core.watching import Watched, WatchScheduler, budget_for, client_fetch

    async def client():
        return session.client

    labels: dict[Hashable, str] = {
        index: (p.reference if p.kind == "order" else mask_weblink(p.reference)) for index, p in enumerate(wanted)
    }
    view = _LiveTable(labels) if not json_lines and sys.stdout.isatty() else None
    outcome = {"bad": False, "refused": False}

    def changed(item: Watched, observation: Observation) -> None:
        outcome["bad"] |= observation.bad
        outcome["refused"] |= observation.status == REFUSED
        if json_lines:
            record = json.dumps(_change_record(item, observation, labels[item.key]), ensure_ascii=False)
            click.echo(json_visible(record))  # C1 controls and the like as \u escapes, as every --json
        elif view is not None:
            view.show(item, observation)
        else:
            click.echo(_change_line(item, observation, labels[item.key]))

    def failed(item: Watched, error: ServiceError) -> None:
        # Refused credentials or access, or an answer too big, too deep or absurd: asking again will not help.
        if isinstance(error, (AuthenticationError, ForbiddenError, MalformedResponseError)):
            scheduler.stop(error)
            return
        say(f"{labels[item.key]}: {error} (will look again)")

    scheduler = WatchScheduler(
        client_fetch(client),
        changed,
        on_error=failed,
        sleep=session.sleep,
        budget=budget_for(session.client.limiter.limits),
    )
    for index, pasted in enumerate(wanted):
        scheduler.add(Watched(index, pasted.kind, pasted.reference, session.profile.name))
    if view is None:
        await scheduler.run(until_final=True)
    else:
        with view:
            await scheduler.run(until_final=True)
    return outcome


def _change_record(item: Watched, observation: Observation, label: str) -> dict[str, Any]:
    """DESIGN: {"kind", "requestId" (orders) or "weblink" (masked, payouts), "status", "final", "at"} plus extras."""
    from tui.core.endings import REFUSED

    record: dict[str, Any] = {
        "kind": item.kind,
        "requestId" if item.kind == "order" else "weblink": label,
        "status": observation.status,
        "final": observation.final,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    record.update(observation.extra)
    if observation.status == REFUSED:
        record["error"] = observation.detail
    return record


def _change_line(item: Watched, observation: Observation, label: str) -> str:
    from tui.core.safe_text import visible

    final = "final" if observation.final else "not final"
    return visible(f"{item.kind}  {label}  {observation.status}  {final}  {observation.detail}".rstrip())


class _LiveTable:
    """On a terminal: one row per item, redrawn in place as they change."""

    def __init__(self, labels: dict[Any, str]) -> None:
        from rich.console import Console
        from rich.live import Live

        self.labels = labels
        self.rows: dict[Any, tuple[str, str, str, str]] = dict.fromkeys(labels, ("…", "", "", ""))
        self.live = Live(self._table(), console=Console(), refresh_per_second=4)

    def __enter__(self) -> _LiveTable:
        self.live.__enter__()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.live.__exit__(None, None, None)

    def show(self, item: Watched, observation: Observation) -> None:
        final = "final" if observation.final else ""
        self.rows[item.key] = (observation.status, final, datetime.now().strftime("%H:%M:%S"), observation.detail)
        self.live.update(self._table())

    def _table(self) -> Any:
        from rich.table import Table
        from rich.text import Text

        from tui.core.safe_text import visible

        table = Table("Reference", "Status", "Final", "Changed", "Detail", box=None)
        for key, label in self.labels.items():
            table.add_row(*(Text(visible(cell)) for cell in (label, *self.rows[key])))
        return table
