"""`giftdesk inbox`: what the receiver (`giftdesk listen`) kept, with verdicts and what was done."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import click

from tui.commands.options import Options, service_options
from tui.commands.output import emit_json_line, exit_code_for, fail, print_table, say
from tui.commands.runner import opened_profile


def _since(value: str | None) -> datetime | None:
    from tui.core.dates import DateInvalid, parse_day

    if value is None:
        return None
    try:
        moment = (
            datetime.fromisoformat(value)
            if "T" in value
            else datetime.combine(parse_day(value, today=date.today()), time.min)
        )
    except (DateInvalid, ValueError) as error:
        raise click.BadParameter(str(error), param_hint="--since") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@click.command("inbox")
@click.option(
    "--since",
    metavar="DATE",
    help="Deliveries received since this day (YYYY-MM-DD, today, yesterday, Nd) or time "
    "(YYYY-MM-DDTHH:MM:SS, UTC); default: all.",
)
@service_options
def command(options: Options, since: str | None) -> None:
    """List the deliveries the receiver kept: callbacks and webhooks, accepted or refused.

    One line per delivery, oldest first: when, kind, event id, verdict (a
    refusal says why; nothing of a refused body is kept) and what processing
    did. With --json, one JSON object per line (eventId, kind, verdict,
    reason, at, outcome, processedAt).

    \b
    Examples:
      giftdesk inbox --since today
      giftdesk inbox --json | jq 'select(.verdict == "refused")'
    """
    from tui.local.config import ConfigError
    from tui.local.database import DatabaseError

    after = _since(since)
    try:
        with opened_profile(options) as profile:
            deliveries = _deliveries(profile.name, profile.environment, after)
    except (ConfigError, DatabaseError, OSError) as error:  # OSError: the team database away (exit 5)
        fail(str(error), exit_code_for(error))
    if options.json:
        for delivery in deliveries:
            emit_json_line(
                {
                    "eventId": delivery.event_id,
                    "kind": delivery.kind,
                    "verdict": delivery.verdict,
                    "reason": delivery.reason or None,
                    "at": delivery.received_at.isoformat(),
                    "outcome": delivery.outcome,
                    "processedAt": delivery.processed_at.isoformat() if delivery.processed_at else None,
                }
            )
        return
    say(f"{len(deliveries)} deliveries" + (f" since {after.isoformat()}" if after else ""))
    print_table(
        ("Received (UTC)", "Kind", "Event id", "Verdict", "Outcome"),
        [
            (
                f"{d.received_at:%Y-%m-%d %H:%M:%S}",
                d.kind,
                d.event_id,
                d.verdict + (f": {d.reason}" if d.reason else ""),
                d.outcome or ("" if not d.accepted else "not processed yet"),
            )
            for d in deliveries
        ],
    )


def _deliveries(profile: str, environment: str, after):  # -> list[Delivery]
    """The profile's inbox since `after`: the team's in team mode (docs/team.md, per profile and environment),
    else this machine's."""
    from tui.local.inbox import SqliteInbox
    from tui.team import open_team_mode

    team = open_team_mode()
    if team is None:
        with SqliteInbox(profile) as inbox:
            return inbox.since(after)
    try:
        with team.inbox(profile, environment) as inbox:
            return inbox.since(after)
    finally:
        team.close()
