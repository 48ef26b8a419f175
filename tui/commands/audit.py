"""`giftdesk audit verify`: whether the audit log is whole (each entry chained to the one before).

In team mode the team database's log, else this machine's file. Exit 0 when
the chain is intact and ends at the log's head (in team mode, each entry also
signed by a key registered for the login that wrote it); 1 naming the first
broken entry (edited, inserted, forged, unsigned, unreadable, re-ordered, or
following a removed one), or saying that the last entries are missing; 2 when team mode's settings are wrong; 5 when the team
database cannot be reached.
"""

from __future__ import annotations

import click

from tui.commands.common import EXIT_BAD_INPUT, EXIT_UNAVAILABLE, debug_option, fail

EXIT_BROKEN = 1


@click.group("audit")
def command() -> None:
    """Check the audit log of money actions.

    \b
    Examples:
      giftdesk audit verify
      GIFTDESK_DATABASE_URL=postgresql://giftdesk@db/giftdesk giftdesk audit verify
    """


@command.command("verify")
@debug_option
def verify() -> None:
    """Verify the audit log's chain; exit 1 naming the first broken entry.

    Each entry carries a hash of itself and the entry before it: an entry
    edited, or one removed before another, breaks the chain there. The log's
    head (its last entry, moved with every append) shows entries removed
    from the end.

    \b
    Examples:
      giftdesk audit verify
      giftdesk audit verify || echo "the audit log was tampered with"
    """
    from tui.local.config import ConfigError
    from tui.team.database import TeamDatabaseError, TeamUnreachable

    try:
        where, (count, broken) = _checked()
    except ConfigError as error:
        fail(str(error), EXIT_BAD_INPUT)
    except TeamUnreachable as error:
        fail(str(error), EXIT_UNAVAILABLE, "is the team database up? `giftdesk team check` says more")
    except TeamDatabaseError as error:  # not current, or a login that is no operator: the message says what to do
        fail(str(error), EXIT_UNAVAILABLE)
    if broken is not None:
        fail(f"{where}: {broken}", EXIT_BROKEN, f"{count} entries read; the ones before the break are intact")
    intact = "chain and signatures intact" if where.startswith("team") else "chain intact"
    click.echo(f"{where}: {count} entries, {intact}")


def _checked() -> tuple[str, tuple[int, str | None]]:
    from tui.local.storage import AuditLog
    from tui.team import open_team_link

    link = open_team_link()
    if link is None:
        log = AuditLog()
        return f"audit log {log.path}", log.first_break()
    from tui.team.audit import TeamAuditLog
    from tui.team.database import check

    try:
        check(link.database)  # a schema before signatures, or a login that may read nothing: said as such
        return f"team audit log ({link.database.shown})", TeamAuditLog(link).first_break()
    finally:
        link.close()
