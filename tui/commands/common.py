"""What every scriptable command shares: options, profile, running, errors, output.

Exit codes (DESIGN "Command line contract"): 0 ok; 2 bad input or local
validation (the message is the spec's text); 3 the service refused (4xx
other than 401/429); 4 authentication failed; 5 the service could not be
reached or failed (timeouts, 5xx, 429 after retries, a malformed answer).

httpx, pydantic and the client are imported inside the functions that need
them, so `--help` stays fast. Most commands make their requests one after the
other; they drive the async client without an event loop (`run_inline`), so
asyncio is never imported: a one-shot command pays for it in full.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import click

from tui.core.safe_text import json_visible, visible

if TYPE_CHECKING:
    from decimal import Decimal

    from tui.api.client import ServiceClient
    from tui.api.limits import Limit
    from tui.local.config import Profile
    from tui.local.report_copies import Answer, ReportCopies
    from tui.money import MoneyWrites
    from tui.team.mode import TeamMode

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_REFUSED = 3
EXIT_AUTH = 4
EXIT_UNAVAILABLE = 5
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM

DEMO_CREDENTIAL = "acme-sandbox"  # the simulator's credential used by --demo


@dataclass(frozen=True)
class Options:
    """The shared flags, already merged with the ones given before the subcommand."""

    profile: str | None = None
    demo: bool = False
    json: bool = False
    readonly: bool = False


PROFILE_VARIABLE = "GIFTDESK_PROFILE"  # names the profile, like --profile (DESIGN "Command line contract")


def profile_name(flag: str | None, demo: bool, environ: Mapping[str, str] = os.environ) -> str | None:
    """The profile a command names: --profile, else GIFTDESK_PROFILE (ignored with --demo)."""
    if flag or demo:
        return flag or None
    return environ.get(PROFILE_VARIABLE) or None


def complete_profile_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of --profile: the stored profiles' names (none when the file does not load)."""
    from tui.local.config import ConfigError, ProfileStore

    try:
        names = ProfileStore().load().profiles
    except (ConfigError, OSError):
        return []
    return sorted(name for name in names if name.startswith(incomplete))


def complete_request_ids(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of a RequestId: the ones looked at recently (the TUI's Recent list), newest first."""
    from tui.local.storage import RecentOrders

    try:
        ids = RecentOrders().request_ids()
    except OSError:
        return []
    return [request_id for request_id in ids if request_id.startswith(incomplete)]


def start_debug_log(ctx: click.Context) -> None:
    """--debug: verbose logging to the log file, whose path goes to stderr (once per run)."""
    root = ctx.find_root()
    if root.meta.get(_DEBUG_LOG_KEY):
        return
    from tui.local.logs import log, setup_logging

    path = setup_logging(debug=True)
    root.meta[_DEBUG_LOG_KEY] = path
    log.debug("giftdesk %s (debug)", ctx.command_path)
    say(f"debug log: {path}")


_DEBUG_LOG_KEY = "giftdesk.debug_log"


def _debug_flag(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        start_debug_log(ctx)


debug_option = click.option(
    "--debug",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_debug_flag,
    help="Log in detail (secrets stay masked); the log file's path goes to stderr.",
)
profile_option = click.option(
    "--profile",
    metavar="NAME",
    shell_complete=complete_profile_names,
    help=f"Use this stored profile (default: ${PROFILE_VARIABLE}, then the GIFTDESK_* variables, "
    "then the current profile).",
)


JSON_HELP = "Print the service's data as JSON (wire field names) on stdout."


def service_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Adds --profile/--demo/--json/--debug to a command that reads; it receives `options: Options`.

    Flags given before the subcommand (`giftdesk --demo accounts`) count too.
    """
    return _with_service_options(command, writes=False)


def service_options_saying(json_help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """service_options for a command whose --json prints something else than the service's data."""
    return functools.partial(_with_service_options, writes=False, json_help=json_help)


def write_service_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """service_options plus --readonly, for a command that changes something on the service."""
    return _with_service_options(command, writes=True)


def _with_service_options(
    command: Callable[..., Any], *, writes: bool, json_help: str = JSON_HELP
) -> Callable[..., Any]:
    @functools.wraps(command)
    def with_options(
        *args: Any, profile: str | None, demo: bool, json: bool, readonly: bool = False, **kwargs: Any
    ) -> Any:
        root = click.get_current_context().find_root().params
        demo = demo or bool(root.get("demo"))
        options = Options(
            profile=profile_name(profile or root.get("profile"), demo),
            demo=demo,
            json=json,
            readonly=readonly or bool(root.get("readonly")),
        )
        if options.demo and options.profile:
            raise click.UsageError("use either --demo or --profile, not both")
        return command(*args, options=options, **kwargs)

    decorators = [
        profile_option,
        click.option("--demo", is_flag=True, help="Use an embedded simulator with the acme sandbox demo credentials."),
        click.option("--json", is_flag=True, help=json_help),
        debug_option,
    ]
    if writes:
        decorators.append(
            click.option("--readonly", is_flag=True, help="Refuse anything that changes something on the service.")
        )
    for decorator in reversed(decorators):
        with_options = decorator(with_options)
    return with_options


csv_option = click.option(
    "--csv",
    "as_csv",
    is_flag=True,
    help="Print the rows as CSV on stdout (amounts exact, no grouping; spreadsheet-safe).",
)


def check_one_format(options: Options, as_csv: bool) -> None:
    if as_csv and options.json:
        raise click.UsageError("use either --json or --csv, not both")


yes_option = click.option("--yes", is_flag=True, help="Do not ask for confirmation in production.")
fresh_option = click.option(
    "--fresh",
    is_flag=True,
    help="Ask the service even when the local copy could answer (within the provider's limits).",
)


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


def _handled_errors() -> tuple[type[BaseException], ...]:
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


# --- profile and session -----------------------------------------------------------------


@contextmanager
def opened_profile(options: Options) -> Iterator[Profile]:
    """The profile to talk to: --demo (a simulator for the duration), --profile, GIFTDESK_*, current."""
    from tui.local.config import ProfileStore, choose_profile, demo_profile, profile_from_env

    if options.demo:
        from tui.local.demo_data import enter_demo_data_dir
        from tui.simulator import DEMO_CREDENTIALS, SimulatorServer, SimulatorSettings
        from tui.simulator.settings import DEMO_HISTORY

        enter_demo_data_dir()  # its audit entries are about a simulator that ends with the command

        credential = next(c for c in DEMO_CREDENTIALS if c.name == DEMO_CREDENTIAL)
        with SimulatorServer(SimulatorSettings(timing="fast", history=DEMO_HISTORY, place_limits=True)) as sim:
            yield demo_profile(
                "demo", credential.environment, sim.base_url, credential.client_id, credential.client_secret
            )
        return
    # The environment's profile needs no config file: a broken file must not block it.
    env_profile = profile_from_env() if options.profile is None else None
    yield env_profile or choose_profile(ProfileStore().load(), options.profile)


@contextmanager
def team_mode(options: Options) -> Iterator[TeamMode | None]:
    """Team mode (docs/team.md) for the command, for as long as it runs: the team's audit log receives
    its money actions. Nothing is imported for it unless the config or GIFTDESK_DATABASE_URL names a
    database; --demo stays local."""
    from tui.local.config import ProfileStore, team_settings

    if options.demo or team_settings(ProfileStore().load()) is None:
        yield None
        return
    from tui.team import open_team_mode

    team = open_team_mode()
    try:
        yield team
    finally:
        if team is not None:
            team.close()


Sleep = Callable[[float], Awaitable[None]]


async def blocking_sleep(seconds: float) -> None:
    """The wait of a command run without an event loop: nothing else runs meanwhile."""
    time.sleep(seconds)


@dataclass
class Session:
    """One command's connection: the profile, its client, the flags, and how it waits."""

    profile: Profile
    client: ServiceClient
    options: Options
    sleep: Sleep = blocking_sleep
    team: TeamMode | None = None  # team mode (docs/team.md): the team's stores; its audit log is installed

    @property
    def readonly(self) -> bool:
        from tui.local.config import effective_readonly

        return effective_readonly(self.options.readonly, self.profile)

    def refuse_readonly(self, action: str) -> None:
        if self.readonly:
            fail(
                f"read-only (profile {self.profile.name!r}): nothing was sent; would {action}",
                EXIT_BAD_INPUT,
                "drop --readonly, or use a profile that is not read-only",
            )

    def confirm_production(
        self, action: str, yes: bool, phrase: str = "production", asks: str = "'production'"
    ) -> None:
        """In production, unless --yes: type `phrase` (`asks` says what it is), as the TUI's confirmation asks.

        Ctrl-C at the question is an interruption (exit 130), not a refusal: nothing was sent either way."""
        if not self.profile.is_production or yes:
            return
        click.echo(f"PRODUCTION (profile {self.profile.name}): {visible(action)}", err=True)
        click.echo(f"Type {asks} to go ahead: ", err=True, nl=False)
        try:
            answer = input()  # not click.prompt: it turns Ctrl-C into Abort, which reads as a plain "no"
        except EOFError:
            answer = ""
        if answer.strip() != phrase:
            fail("not confirmed; nothing was sent", EXIT_BAD_INPUT, f"type {asks}, or pass --yes in scripts")

    @functools.cached_property
    def copies(self) -> ReportCopies:
        """The profile's local copies of the scarce reports (tui.local.report_copies)."""
        from tui.api.limits import limits_table
        from tui.local.limit_store import profile_database
        from tui.local.report_copies import ReportCopies

        return ReportCopies(
            profile_database(self.profile.name, self.profile.environment), limits_table(self.profile.limits)
        )

    def money(self) -> MoneyWrites:
        """The money writes (place order, redeem) of this profile: checked, traced, told truly (tui.money)."""
        from tui.money import MoneyWrites

        return MoneyWrites(self.client, self.profile, warn=lambda text: say(f"warning: {text}"))

    @contextmanager
    def audited(self, action: str, subject: str, **fields: str | None) -> Iterator[None]:
        """Record a write in the audit log (tui.local.storage) with its outcome, success or failure."""
        try:
            yield
        except Exception as error:
            self._audit(action, subject, f"failed: {error}", fields)
            raise
        self._audit(action, subject, "done", fields)

    def _audit(self, action: str, subject: str, outcome: str, fields: dict[str, str | None]) -> None:
        from tui.local.storage import audit_log

        try:
            audit_log().record(
                profile=self.profile.name,
                environment=self.profile.environment,
                action=action,
                subject=subject,
                outcome=outcome,
                **fields,
            )
        except OSError as error:  # the write itself happened; a full disk must not hide that
            say(f"warning: the audit log could not be written ({error.strerror or error})")


def say_freshness(answer: Answer[Any]) -> None:
    """On stderr, when an answer came (wholly or partly) from the local copy: how old it is, and when the
    service can be asked again if it could not be now."""
    from tui.local.ages import ago

    if not answer.from_copy:
        return
    say(f"from the local copy, fetched {ago(answer.age())} (--fresh asks the service)")
    if answer.refused is not None:
        say(f"not refreshed: {answer.refused}")


def _say_retry(attempt: int, delay: float, reason: str) -> None:
    say(f"{reason}; retrying in {delay:.1f} s (attempt {attempt + 1})")


def _say_wait(endpoint: str, seconds: float, limit: Limit | None) -> None:
    rule = f"the provider allows {limit}" if limit else "the provider asked for a pause"
    say(f"waiting {seconds:.0f} s for a turn at {endpoint} ({rule})")


def build_client(
    profile: Profile, *, concurrent: bool = False, ends_by: float | None = None, **client_options: Any
) -> ServiceClient:
    """The client for a profile; `client_options` (transport, sleep, retry) are for tests.
    Every request keeps the profile's limits, shared with its other processes (tui.local.limit_store).

    `ends_by`: the instant (time.monotonic) the command must end by; the limits come from the environment.

    httpx's blocking transport either way (a one-shot command need not load anyio):
    in worker threads for a `concurrent` command, else inline, with blocking retry waits.
    """
    from tui.api.bounds import Bounds
    from tui.api.client import ServiceClient, tls_verify
    from tui.api.transport import InlineTransport, ThreadedTransport
    from tui.local.config import resolve_secret
    from tui.local.limit_store import profile_limiter

    client_options.setdefault("limiter", profile_limiter(profile))
    verify = tls_verify(profile.base_url)
    if concurrent:
        client_options.setdefault("transport", ThreadedTransport(verify=verify))
    else:
        client_options.setdefault("transport", InlineTransport(verify=verify))
        client_options.setdefault("sleep", blocking_sleep)
    client_options.setdefault("limits", Bounds.from_environ())
    return ServiceClient(
        profile.base_url,
        profile.client_id,
        resolve_secret(profile),
        on_retry=_say_retry,
        ends_by=ends_by,
        on_wait=_say_wait,
        environment=profile.environment,
        **client_options,
    )


def run(
    options: Options, work: Callable[[Session], Awaitable[None]], *, concurrent: bool = False, endless: bool = False
) -> None:
    """Open the profile and a client, run `work`, and turn failures into the contract's exit codes.

    `concurrent`: the command runs requests side by side (or serves), so it gets an
    asyncio loop; the others run without one. Every request has its deadline; the whole
    command has one too (GIFTDESK_COMMAND_DEADLINE) unless it is `endless` (watching, serving).
    """
    from tui.api.bounds import Bounds

    ends_by = None if endless else time.monotonic() + Bounds.from_environ().command_seconds

    async def session_main(profile: Profile, team: TeamMode | None) -> None:
        async with build_client(profile, concurrent=concurrent, ends_by=ends_by) as client:
            await work(
                Session(profile, client, options, sleep=_loop_sleep() if concurrent else blocking_sleep, team=team)
            )

    from tui.core.signals import Terminated

    try:
        with opened_profile(options) as profile, team_mode(options) as team, terminated_as_exception():
            if concurrent:
                import asyncio

                asyncio.run(session_main(profile, team))
            else:
                run_inline(session_main(profile, team))
    except _handled_errors() as error:
        fail(str(error), exit_code_for(error), getattr(error, "hint", None))
    except KeyboardInterrupt:
        fail("interrupted", EXIT_INTERRUPTED)
    except Terminated:
        fail("terminated (SIGTERM)", EXIT_TERMINATED)


@contextmanager
def terminated_as_exception() -> Iterator[None]:
    """SIGTERM raises `tui.core.signals.Terminated` where the command waits, as Ctrl-C raises KeyboardInterrupt:
    a write in flight then leaves its "outcome unknown" audit line (DESIGN rule 9) instead of vanishing."""
    import signal
    import threading

    from tui.core.signals import Terminated

    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
        yield
        return

    def terminate(signum: int, frame: object) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_inline(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never suspends (inline transport, blocking waits), without an event loop."""
    try:
        coroutine.send(None)
    except StopIteration as finished:
        return finished.value
    coroutine.close()
    raise RuntimeError("the command waited for an event loop; run it with concurrent=True")


def _loop_sleep() -> Sleep:
    from tui.api.client import event_loop_sleep

    return event_loop_sleep


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


async def watch(
    fetch: Callable[[], Awaitable[Any]],
    is_final: Callable[[Any], bool],
    describe: Callable[[Any], str],
    interval: float,
    sleep: Sleep,
) -> Any:
    """Poll until final, telling a person on stderr each time the state changes."""
    last = None
    while True:
        current = await fetch()
        text = describe(current)
        if text != last:
            say(text)
            last = text
        if is_final(current):
            return current
        await sleep(interval)
