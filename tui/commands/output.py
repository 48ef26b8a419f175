"""What the commands print and how they end: the exit codes, errors and hints on stderr, tables, CSV
and JSON on stdout.

Exit codes (DESIGN "Command line contract"): 0 ok; 2 bad input or local
validation (the message is the spec's text); 3 the service refused (4xx
other than 401/429); 4 authentication failed; 5 the service could not be
reached or failed (timeouts, 5xx, 429 after retries, a malformed answer).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import click

from tui.core.safe_text import json_visible, visible

if TYPE_CHECKING:
    from decimal import Decimal

    from tui.local.report_copies import Answer

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_REFUSED = 3
EXIT_AUTH = 4
EXIT_UNAVAILABLE = 5
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM


# --- failing with the contract's exit codes ----------------------------------------------


def fail(message: str, code: int, hint: str | None = None) -> NoReturn:
    # First line exactly the message: the spec's text where it has one (the service's, made visible).
    click.echo(visible(message, multiline=True), err=True)
    if hint:
        click.echo(f"hint: {visible(hint, multiline=True)}", err=True)
    raise click.exceptions.Exit(code)


def quiet_stdout() -> None:
    """Standard output's reader is gone: what is still written there goes nowhere, so Python's flush
    at exit does not add a BrokenPipeError of its own to what the command says on stderr."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, descriptor)
    os.close(devnull)


def say(message: str) -> None:
    """Progress for a person, on stderr so that stdout stays data; outside text in it shown, never obeyed."""
    click.echo(visible(message, multiline=True), err=True)


def exit_code_for(error: BaseException) -> int:
    """The contract's exit code for an error raised while running a command."""
    from tui.api import errors
    from tui.api.bounds import BoundsSettingError
    from tui.api.payout_rules import RecipientInvalid
    from tui.api.request_ids import RequestIdInvalid
    from tui.api.weblink import WeblinkError
    from tui.local.config import ConfigError
    from tui.local.database import DatabaseError
    from tui.money import AuditUnavailable, EnvironmentMismatch

    if isinstance(
        error,
        (
            RecipientInvalid,
            RequestIdInvalid,
            WeblinkError,
            ConfigError,
            click.UsageError,
            EnvironmentMismatch,
            AuditUnavailable,
            BoundsSettingError,
            DatabaseError,
        ),
    ):
        return EXIT_BAD_INPUT
    if isinstance(error, (errors.AuthenticationError, errors.ForbiddenError)):
        return EXIT_AUTH
    if isinstance(error, errors.RefusedError):
        return EXIT_REFUSED
    return EXIT_UNAVAILABLE  # unreachable, timed out, 5xx, 429 after retries, malformed


def handled_errors() -> tuple[type[BaseException], ...]:
    from tui.api.bounds import BoundsSettingError
    from tui.api.errors import ServiceError
    from tui.api.payout_rules import RecipientInvalid
    from tui.api.request_ids import RequestIdInvalid
    from tui.api.weblink import WeblinkError
    from tui.local.config import ConfigError
    from tui.local.database import DatabaseError
    from tui.money import AuditUnavailable, EnvironmentMismatch

    return (
        ServiceError,
        RecipientInvalid,
        RequestIdInvalid,
        WeblinkError,
        ConfigError,
        EnvironmentMismatch,
        AuditUnavailable,
        BoundsSettingError,
        DatabaseError,
    )


def say_freshness(answer: Answer[Any]) -> None:
    """On stderr, when an answer came (wholly or partly) from the local copy: how old it is, and when the
    service can be asked again if it could not be now."""
    from tui.local.ages import ago

    if not answer.from_copy:
        return
    say(f"from the local copy, fetched {ago(answer.age())} (--fresh asks the service)")
    if answer.refused is not None:
        say(f"not refreshed: {answer.refused}")


# --- output ------------------------------------------------------------------------------


def emit_json(data: Any) -> None:
    """The data as JSON; a Decimal as the number it came as, hidden characters as `\\u` escapes (json_visible)."""
    from tui.api.wire_json import dumps

    click.echo(json_visible(dumps(data)))


def emit_json_line(data: Any) -> None:
    """One JSON object on one line (NDJSON), as `emit_json` writes it otherwise."""
    from tui.api.wire_json import dumps

    click.echo(json_visible(dumps(data, indent=None)))


TABLE_CELL_LIMIT = (
    200  # characters of one cell in plain output (a card code URL fits); --json and --csv keep everything
)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Plain aligned columns; None shows as empty; outside text shown, never obeyed (one line per row)."""
    headers = [visible(header) for header in headers]
    # A cell longer than TABLE_CELL_LIMIT is cut (its length said): one huge cell must not pad every row to it.
    cells = [[visible(value, limit=TABLE_CELL_LIMIT) for value in row] for row in rows]
    widths = [max([len(header)] + [len(row[i]) for row in cells]) for i, header in enumerate(headers)]
    lines = [headers, ["-" * width for width in widths], *cells]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() for line in lines
    )


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    click.echo(table(headers, rows))


def print_csv(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """RFC 4180 CSV on stdout, cells a spreadsheet would run as formulas defused (tui.local.exports)."""
    from tui.local.exports import to_csv

    click.echo(to_csv(headers, [["" if value is None else str(value) for value in row] for row in rows]), nl=False)


def print_fields(fields: Sequence[tuple[str, Any]]) -> None:
    """'Label:  value' lines, labels aligned; labels may be the service's key names: shown, never obeyed too."""
    shown = [(visible(label), value) for label, value in fields]
    width = max(len(label) for label, _ in shown)
    for label, value in shown:
        click.echo(f"{label + ':':<{width + 1}}  {visible(value)}")


def money(amount: Decimal | float | None, currency: str | None) -> str:
    """As the TUI shows it: the currency's own decimals (JPY none), then its code. Without a currency (Get order
    may send none: DESIGN "What the real provider sends"), the amount's own, else the number as it came, said so."""
    from widgets.money import format_money

    if amount is None:
        return ""
    currency = currency or getattr(amount, "currency_code", None)
    return format_money(amount, currency) if currency else f"{amount} (currency not stated)"
