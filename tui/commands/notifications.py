"""`giftdesk notifications get|set`: the order-callback configuration."""

from __future__ import annotations

import os

import click

from tui.commands.options import Options, service_options, write_service_options, yes_option
from tui.commands.output import EXIT_BAD_INPUT, EXIT_UNAVAILABLE, emit_json, fail, print_fields
from tui.commands.runner import CommandConnection, run


@click.group("notifications")
def command() -> None:
    """Show or set the order-callback configuration.

    Where the service sends an order's final status, and the secret key it signs with.

    \b
    Examples:
      giftdesk notifications get
      giftdesk notifications set --sandbox-url URL --secret-env VAR
    """


def _show(options: Options, config) -> None:
    from tui.api.models import to_wire
    from tui.api.redact import mask_secret

    if options.json:
        emit_json(to_wire(config))
        return
    print_fields(
        [
            ("Production URL", config.notification_url or "(empty: callbacks disabled)"),
            ("Sandbox URL", config.notification_url_sandbox or "(empty)"),
            ("Secret key", mask_secret(config.secret_key) or "(none)"),
        ]
    )


@command.command("get")
@service_options
def get(options: Options) -> None:
    """Show the stored callback configuration.

    The secret key is masked, except with --json.

    \b
    Examples:
      giftdesk notifications get
      giftdesk notifications get --profile NAME --json
    """

    async def work(session: CommandConnection) -> None:
        _show(options, await session.client.get_notifications())

    run(options, work)


def _check_url(url: str | None, option: str, https_only: bool) -> None:
    if not url:
        return  # empty: disables (production) or leaves empty (sandbox)
    allowed = ("https://",) if https_only else ("https://", "http://")
    if not url.lower().startswith(allowed) or len(url.split("://", 1)[1]) == 0:
        need = "a public https:// URL" if https_only else "an http:// or https:// URL"
        fail(f"{option} must be {need}, not {url!r}", EXIT_BAD_INPUT)


@command.command("set")
@click.option(
    "--url",
    metavar="URL",
    help="Production callback URL (public https); an empty string disables callbacks. Kept when omitted.",
)
@click.option("--sandbox-url", metavar="URL", help="Sandbox callback URL. Kept when omitted.")
@click.option(
    "--secret-env",
    metavar="VAR",
    help="Read the callback secret key from this environment variable. Kept when omitted.",
)
@yes_option
@write_service_options
def set_(options: Options, url: str | None, sandbox_url: str | None, secret_env: str | None, yes: bool) -> None:
    """Set the callback configuration and read it back.

    The read-back confirms it was stored. Fields not given keep their stored value. A production URL must be https
    (SPEC: a public HTTPS endpoint). A read-back that differs from what was
    sent is an error (exit 5).

    \b
    Examples:
      giftdesk notifications set --sandbox-url URL
      giftdesk notifications set --url URL --secret-env VAR --yes
    """
    _check_url(url, "--url", https_only=True)
    _check_url(sandbox_url, "--sandbox-url", https_only=False)
    secret = None
    if secret_env is not None:
        secret = os.environ.get(secret_env)
        if secret is None:
            fail(f"environment variable {secret_env} is not set", EXIT_BAD_INPUT)

    async def work(session: CommandConnection) -> None:
        from tui.api.models import NotificationConfig
        from tui.local.storage import NOTIFICATION_CHANGE

        current = await session.client.get_notifications()
        wanted = NotificationConfig(
            notification_url=current.notification_url if url is None else url,
            notification_url_sandbox=current.notification_url_sandbox if sandbox_url is None else sandbox_url,
            secret_key=current.secret_key if secret is None else secret,
        )
        from tui.core.names import CALLBACKS_PHRASE

        session.refuse_readonly("set the order-callback configuration")
        session.confirm_production(
            "set the order-callback configuration", yes, CALLBACKS_PHRASE, f"'{CALLBACKS_PHRASE}'"
        )  # as the TUI's Save asks
        with session.audited(
            NOTIFICATION_CHANGE,
            "notification configuration",
            detail=f"url={wanted.notification_url!r} sandbox={wanted.notification_url_sandbox!r}",
        ):
            await session.client.set_notifications(wanted)
        stored = await session.client.get_notifications()
        if _fields(stored) != _fields(wanted):
            fail(
                "the service stored a different configuration than was sent",
                EXIT_UNAVAILABLE,
                "run `giftdesk notifications get` and compare",
            )
        _show(options, stored)

    run(options, work)


def _fields(config) -> tuple[str, str, str]:
    return config.notification_url, config.notification_url_sandbox, config.secret_key
