"""`giftdesk profiles list|add|use|remove|show|path`: the stored profiles, from the shell.

Never prints a secret: only where it comes from. tui.local.config (and pydantic)
load inside the commands, so `giftdesk profiles --help` stays fast.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from tui.commands.options import complete_profile_names, debug_option
from tui.commands.output import EXIT_BAD_INPUT, emit_json, fail, print_fields, print_table, say
from tui.local.profile_variable import PROFILE_VARIABLE

if TYPE_CHECKING:
    from tui.local.config import Config, Profile
    from tui.local.config_file import ProfileStore

# The same two names tui.local.config.ENVIRONMENTS holds; written here to keep --help free of pydantic.
_ENVIRONMENT_CHOICE = click.Choice(["sandbox", "production"])
_ENV_PROFILE_VARIABLES = ("GIFTDESK_BASE_URL", "GIFTDESK_CLIENT_ID", "GIFTDESK_CLIENT_SECRET")


@contextmanager
def _config_errors() -> Iterator[None]:
    """A ConfigError is bad input (exit 2), its message on stderr."""
    from tui.local.config import ConfigError

    try:
        yield
    except ConfigError as exc:
        fail(str(exc), EXIT_BAD_INPUT)


def _handles_config_errors(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _config_errors():
            return function(*args, **kwargs)

    return wrapper


def _store() -> ProfileStore:
    from tui.local.config_file import ProfileStore

    return ProfileStore()


def _as_json(profile: Profile, config: Config) -> dict[str, Any]:
    return {**profile.as_dict(), "current": profile.name == config.current}


def _secret_source(profile: Profile) -> str:
    source = profile.secret
    if source.kind == "keyring":
        return f"keyring (giftdesk / {source.ref or profile.name})"
    return f"{source.kind}: {source.ref}"


@click.group(name="profiles")
def command() -> None:
    """List, add, use, remove or show profiles.

    Profiles live in one TOML file (`giftdesk profiles path`); edits keep its
    comments and layout. A secret is never shown, only where it comes from.

    \b
    Examples:
      giftdesk profiles list
      giftdesk profiles add NAME --environment sandbox --base-url URL --client-id ID --secret-env VAR
      giftdesk profiles use NAME
    """


@command.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print the profiles as JSON.")
@debug_option
@_handles_config_errors
def list_profiles(as_json: bool) -> None:
    """List every stored profile; * marks the current one.

    \b
    Examples:
      giftdesk profiles list
      giftdesk profiles list --json | jq -r '.profiles[].name'
    """
    config = _store().load()
    profiles = [config.profiles[name] for name in sorted(config.profiles)]
    if as_json:
        emit_json({"current": config.current, "profiles": [_as_json(p, config) for p in profiles]})
    elif not profiles:
        say("no profiles yet: add one with `giftdesk profiles add`, or try `giftdesk --demo`")
    else:
        print_table(
            ["", "NAME", "ENVIRONMENT", "BASE URL", "CLIENT ID", "SECRET", "ACCOUNT", "READ-ONLY"],
            [
                [
                    "*" if p.name == config.current else "",
                    p.name,
                    p.environment,
                    p.base_url,
                    p.client_id,
                    p.secret.kind,
                    p.default_account,
                    "yes" if p.readonly else "",
                ]
                for p in profiles
            ],
        )
    named = os.environ.get(PROFILE_VARIABLE)
    if named:
        say(f"note: {PROFILE_VARIABLE}={named}; commands without --profile use it, not the current profile")
    elif any(os.environ.get(variable) for variable in _ENV_PROFILE_VARIABLES):
        say("note: GIFTDESK_* variables are set; commands without --profile use them, not the current profile")


@command.command(name="add")
@click.argument("name", metavar="NAME")
@click.option("--environment", type=_ENVIRONMENT_CHOICE, required=True, help="Which service environment.")
@click.option("--base-url", required=True, metavar="URL", help="The service's base address (http:// or https://).")
@click.option("--client-id", required=True, metavar="ID", help="The API client id.")
@click.option("--secret-env", metavar="VAR", help="Read the client secret from this environment variable.")
@click.option("--secret-command", metavar="CMD", help="Run this shell command; its output is the client secret.")
@click.option("--secret-keyring", is_flag=True, help="Prompt for the client secret and keep it in the system keyring.")
@click.option("--default-account", type=click.IntRange(min=0), metavar="ID", help="Account id to use by default.")
@click.option("--readonly", is_flag=True, help="Never offer actions that change anything with this profile.")
@debug_option
@_handles_config_errors
def add_profile(
    name: str,
    environment: str,
    base_url: str,
    client_id: str,
    secret_env: str | None,
    secret_command: str | None,
    secret_keyring: bool,
    default_account: int | None,
    readonly: bool,
) -> None:
    """Add a profile (the first one added becomes current).

    The secret itself is never written to the config file: give exactly one
    of --secret-env, --secret-command, --secret-keyring.

    \b
    Examples:
      giftdesk profiles add NAME --environment sandbox --base-url URL --client-id ID --secret-env VAR
      giftdesk profiles add NAME --environment production --base-url URL --client-id ID --secret-keyring --readonly
    """
    from tui.local.profiles import make_profile

    chosen = [
        flag
        for flag, given in (
            ("--secret-env", secret_env),
            ("--secret-command", secret_command),
            ("--secret-keyring", secret_keyring),
        )
        if given
    ]
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --secret-env, --secret-command, --secret-keyring")
    # As fields to check: a ref that does not fit its kind is a ConfigError that says why, not a traceback.
    if secret_env:
        secret = {"kind": "env", "ref": secret_env}
    elif secret_command:
        secret = {"kind": "command", "ref": secret_command}
    else:
        secret = {"kind": "keyring", "ref": name}
    profile = make_profile(
        name=name,
        environment=environment,
        base_url=base_url,
        client_id=client_id,
        secret=secret,
        default_account=default_account,
        readonly=readonly,
    )

    store = _store()
    store.load().with_profile(profile)  # a taken name or a broken file fails before the prompt
    if secret_keyring:
        _store_in_keyring(name, lambda: store.add(profile))
    else:
        store.add(profile)
    say(f"added profile {name!r} ({environment})")


def _store_in_keyring(name: str, save: Callable[[], Any]) -> None:
    """Prompts for the secret, keeps it in the keyring, and takes it out again if saving fails."""
    from tui.local.config import ConfigError
    from tui.local.secret_sources import delete_keyring_secret, store_keyring_secret

    value = click.prompt(f"client secret for {name}", hide_input=True, err=True).strip()
    if not value:
        raise ConfigError("the client secret is empty")
    store_keyring_secret(name, value)
    try:
        save()
    except BaseException:
        delete_keyring_secret(name)
        raise


@command.command(name="use")
@click.argument("name", metavar="NAME", shell_complete=complete_profile_names)
@debug_option
@_handles_config_errors
def use_profile(name: str) -> None:
    """Make NAME the current profile.

    The current profile is used when neither --profile nor GIFTDESK_PROFILE names one.

    \b
    Examples:
      giftdesk profiles use NAME
      giftdesk profiles use NAME && giftdesk accounts
    """
    _store().use(name)
    say(f"current profile: {name}")


@command.command(name="remove")
@click.argument("name", metavar="NAME", shell_complete=complete_profile_names)
@debug_option
@_handles_config_errors
def remove_profile(name: str) -> None:
    """Remove a profile, and its secret from the keyring.

    The keyring entry is removed only when the profile kept its secret there.

    \b
    Examples:
      giftdesk profiles remove NAME
      giftdesk profiles list && giftdesk profiles remove NAME
    """
    from tui.local.secret_sources import delete_keyring_secret

    store = _store()
    profile = store.load().get(name)
    config = store.remove(name)
    say(f"removed profile {name!r}")
    if profile.secret.kind == "keyring" and delete_keyring_secret(profile.secret.ref or name):
        say("its secret was removed from the keyring")
    if config.current is None and config.profiles:
        say("no current profile now: pick one with `giftdesk profiles use NAME`")


@command.command(name="show")
@click.argument("name", metavar="[NAME]", required=False, shell_complete=complete_profile_names)
@click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON.")
@debug_option
@_handles_config_errors
def show_profile(name: str | None, as_json: bool) -> None:
    """Show one profile's settings (NAME, or the current one).

    \b
    Examples:
      giftdesk profiles show
      giftdesk profiles show NAME --json
    """
    from tui.local.config import ConfigError

    config = _store().load()
    if name is None:
        if config.current_profile is None:
            raise ConfigError("no current profile: name one, or pick one with `giftdesk profiles use NAME`")
        name = config.current_profile.name
    profile = config.get(name)
    if as_json:
        emit_json(_as_json(profile, config))
        return
    print_fields(
        [
            ("Name", profile.name + ("  (current)" if profile.name == config.current else "")),
            ("Environment", profile.environment.upper() if profile.is_production else profile.environment),
            ("Base URL", profile.base_url),
            ("Client id", profile.client_id),
            ("Secret from", _secret_source(profile)),
            ("Default account", profile.default_account),
            ("Read-only", "yes" if profile.readonly else "no"),
        ]
    )


@command.command(name="path")
@debug_option
def config_file_path() -> None:
    """Print the config file's path.

    GIFTDESK_CONFIG overrides it. The file need not exist yet: `profiles add`
    creates it.

    \b
    Examples:
      giftdesk profiles path
      ${EDITOR:-vi} "$(giftdesk profiles path)"
    """
    from tui.local.fileio import config_path

    click.echo(config_path())
