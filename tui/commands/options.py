"""The options every scriptable command shares: --profile/--demo/--debug/--json/--csv/--yes, the flags they
make (`Options`) and the shell completers for profile names and RequestIds."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from tui.commands.output import say
from tui.local.profile_variable import PROFILE_VARIABLE, profile_name

if TYPE_CHECKING:
    pass

DEMO_CREDENTIAL = "acme-sandbox"  # the simulator's credential used by --demo


@dataclass(frozen=True)
class Options:
    """The shared flags, already merged with the ones given before the subcommand."""

    profile: str | None = None
    demo: bool = False
    json: bool = False
    readonly: bool = False


def complete_profile_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of --profile: the stored profiles' names (none when the file does not load)."""
    from tui.local.config import ConfigError
    from tui.local.config_file import ProfileStore

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
