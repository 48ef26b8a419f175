"""`giftdesk audit verify`: whether the audit log is whole (each entry chained to the one before).

In team mode the team database's log, else this machine's file. Exit 0 when
the chain is intact and ends at the log's head (in team mode, each entry also
signed by a key registered for the login that wrote it); 1 naming the first
broken entry (edited, inserted, forged, unsigned, unreadable, re-ordered, or
following a removed one), or saying that the last entries are missing; 2 when team mode's settings are wrong; 5 when the team
database cannot be reached.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from tui.commands.options import debug_option
from tui.commands.output import EXIT_BAD_INPUT, EXIT_UNAVAILABLE, fail
from tui.commands.runner import CommandConnection

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


@command.command("pending")
@click.option("--json", "as_json", is_flag=True, help="One JSON array: each write with its `check` command.")
@debug_option
def pending(as_json: bool) -> None:
    """List money actions of unknown outcome, with the check of each.

    A write cut off while it waited (kill -9, a power cut, a lost answer)
    stays listed until someone checks it: `order show` or `payout status`
    of it records what it found in the audit log.

    \b
    Examples:
      giftdesk audit pending
      giftdesk audit pending --json | jq -r '.[].check'
    """
    from tui.commands.output import emit_json
    from tui.core.safe_text import visible
    from tui.local.config import ConfigError
    from tui.local.storage import check_command, unknown_outcomes
    from tui.team.database import TeamDatabaseError

    try:
        where, entries = _entries()
    except ConfigError as error:
        fail(str(error), EXIT_BAD_INPUT)
    except TeamDatabaseError as error:
        fail(str(error), EXIT_UNAVAILABLE, "is the team database up? `giftdesk team check` says more")
    except OSError as error:  # a log replaced by a link or another user's file (tui.local.fileio)
        fail(str(error), EXIT_BAD_INPUT, "`giftdesk audit verify` says more")
    unknown = unknown_outcomes(entries)
    if as_json:
        emit_json([{**entry.model_dump(exclude_none=True), "check": check_command(entry)} for entry in unknown])
        return
    if not unknown:
        click.echo(f"{where}: no money action with an unknown outcome")
        return
    click.echo(f"{where}: {len(unknown)} money action(s) with an unknown outcome, until checked:")
    for entry in unknown:
        click.echo(visible(f"{entry.time}  {entry.profile} ({entry.environment})  {entry.action}  {entry.subject}"))
        click.echo(visible(f"    {entry.outcome}"))
        click.echo(visible(f"    check: {check_command(entry) or 'look the ' + entry.action + ' up by its subject'}"))


def _entries():  # -> (where, list[AuditEntry]): typed where used, the module loads on every start
    """The audit log's entries, newest first: the team's in team mode, else this machine's file."""
    from tui.local.storage import AuditLog
    from tui.team import open_team_link

    link = open_team_link()
    if link is None:
        log = AuditLog()
        return f"audit log {log.path}", log.entries()
    from tui.team.audit import TeamAuditLog

    try:
        return f"team audit log ({link.database.shown})", TeamAuditLog(link).entries()
    finally:
        link.close()


def settle_checked(session: CommandConnection, subject: str, found: str) -> None:
    """`subject` (a RequestId, a masked weblink) was just looked up by `order show` or `payout status`: a write
    of it whose outcome was unknown is settled in the audit log with what was `found` (no longer pending).
    Without team mode the log is parsed only when it names the subject: a plain `order show --json` loads
    no models (issue 16)."""
    from tui.local.fileio import audit_path, mentions

    if session.team is None and not mentions(audit_path(), subject):
        return
    from tui.local.storage import audit_log, record_checked

    record_checked(audit_log(), subject, found)


@contextmanager
def settle_not_found(session: CommandConnection, subject: str, found: str) -> Iterator[None]:
    """The service answered that it has no such order or payout (`found` says it): a write of it whose outcome
    was unknown did not happen (not yet, for a payout), and that is settled too."""
    from tui.api.errors import OrderNotFoundError, RefusedError

    try:
        yield
    except RefusedError as refused:
        if isinstance(refused, OrderNotFoundError) or refused.status == 404:
            settle_checked(session, subject, found)
        raise
