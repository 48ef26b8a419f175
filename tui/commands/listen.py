"""`giftdesk listen`: the receiver the service calls: order callbacks and signed webhooks (docs/receiver.md).

Each delivery is kept in the profile's inbox before it is answered
(`tui.listener`), then acted on from the inbox (`tui.inbox_work`): order events
settle watched orders (with Get order), product events sync the catalog mirror.
The callback secret expected is the one the service has stored (read with GET
notification at start; `--secret-env VAR` expects another). Webhook secrets come
from environment variables (`--webhook-secret-env`, once per secret: two during a
rotation). Progress, warnings and the access log (one JSON object per request)
go to stderr; each delivery and what was done with it go to stdout (NDJSON with
--json).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable
from contextlib import closing
from typing import Any

import click

from tui.commands.options import Options, service_options
from tui.commands.output import EXIT_BAD_INPUT, EXIT_UNAVAILABLE, emit_json_line, fail, quiet_stdout, say
from tui.commands.runner import CommandConnection, run
from tui.core.safe_text import visible

DEFAULT_PORT = 8787  # fixed, so the configured URLs stay valid from one run to the next
SWEEP_SECONDS = 5.0  # in team mode, how often the shared inbox is looked at for what no receiver took


@click.command("listen")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    metavar="H",
    help="Address to listen on. Anything but loopback is reachable from the network: put it behind "
    "a TLS-terminating proxy (docs/receiver.md).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    metavar="N",
    help="Port to listen on (0: any free port).",
)
@click.option(
    "--webhook-secret-env",
    "webhook_secret_envs",
    multiple=True,
    metavar="VAR",
    help="Environment variable holding a webhook signing secret (whsec_...). Repeat it during a "
    "rotation: a webhook signed with any of them is accepted.",
)
@click.option(
    "--secret-env",
    metavar="VAR",
    help="Expect the callback secret in this environment variable instead of the one stored at the service.",
)
@click.option(
    "--rate-limit",
    type=click.FloatRange(min=0.1),
    default=50.0,
    show_default=True,
    metavar="N",
    help="Requests per second allowed from one address (bursts of 4 s worth); beyond it: 429.",
)
@click.option(
    "--forwarded-allow-ips",
    metavar="IPS",
    default="",
    help='Comma-separated addresses of the reverse proxies whose X-Forwarded-For is believed ("*": any). '
    "Default: none, so the rate limit is per connecting address.",
)
@click.option(
    "--max-connections",
    type=click.IntRange(min=8),
    default=None,
    metavar="N",
    help="Open connections allowed at once (default: the file limit less 64). At the cap, the connection "
    "that waited longest without sending a request is closed.",
)
@click.option(
    "--allow-unverified",
    is_flag=True,
    help="Start without a callback secret or a webhook secret: callbacks are then acknowledged UNVERIFIED "
    "(anyone can forge one) and webhooks refused. Without this flag `listen` refuses to start.",
)
@service_options
def command(
    options: Options,
    host: str,
    port: int,
    webhook_secret_envs: tuple[str, ...],
    secret_env: str | None,
    rate_limit: float,
    forwarded_allow_ips: str,
    max_connections: int | None,
    allow_unverified: bool,
) -> None:
    """Receive the service's callbacks (/callback) and signed webhooks (/webhooks).

    Every delivery is written to the profile's inbox before it is answered
    (see `giftdesk inbox`); order events then settle watched orders, product
    events sync the catalog mirror. GET /health answers 200 while the inbox
    can be written. Listens on 127.0.0.1 unless --host says otherwise; for
    the service to reach it, run it behind an HTTPS reverse proxy and set
    the URLs there (docs/receiver.md). Stop with Ctrl+C or SIGTERM:
    deliveries in flight finish first.

    \b
    It refuses to start without a callback secret (stored at the service,
    or --secret-env) and a webhook secret (--webhook-secret-env), unless
    --allow-unverified. GET /metrics answers in Prometheus text format. It
    exits with status 5 when it could not keep deliveries for 5 minutes
    (the disk, the team database), so a service manager restarts it.

    \b
    Examples:
      giftdesk listen --webhook-secret-env GIFTDESK_WEBHOOK_SECRET
      giftdesk listen --host 0.0.0.0 --port N --webhook-secret-env OLD --webhook-secret-env NEW
      giftdesk listen --forwarded-allow-ips 127.0.0.1 --webhook-secret-env GIFTDESK_WEBHOOK_SECRET
    """
    callback_override = _variable(secret_env)
    webhook_secrets = [_webhook_secret(variable) for variable in webhook_secret_envs]
    proxies = tuple(address.strip() for address in forwarded_allow_ips.split(",") if address.strip())
    for address in proxies:
        _check_proxy_address(address)

    async def work(session: CommandConnection) -> None:
        from tui.api.redact import register_secret
        from tui.listener import Receiver, ReceiverSettings
        from tui.local.database import DatabaseError
        from tui.profile_services import profile_inbox

        callback_secret = callback_override
        if callback_secret is None:
            callback_secret = (await session.client.get_notifications()).secret_key
        demo = session.profile.is_demo  # the demo registers its own webhook secret below
        if not allow_unverified:
            _require_secrets(callback_secret, bool(webhook_secrets) or demo)
        for secret in (callback_secret, *webhook_secrets):
            register_secret(secret)
        settings = ReceiverSettings(
            host=host,
            port=port,
            rate_per_second=rate_limit,
            rate_burst=max(1, int(rate_limit * 4)),
            forwarded_allow_ips=proxies,
            max_connections=max_connections,
        )
        team = session.team
        try:
            receiver = Receiver(
                lambda: profile_inbox(session.profile, team, any_thread=True),
                callback_secret=callback_secret,
                webhook_secrets=webhook_secrets,
                settings=settings,
            )
        except DatabaseError as error:  # the inbox's file cannot be used; the message says which and what to do
            fail(str(error), EXIT_BAD_INPUT)
        except OSError as error:
            fail(
                f"cannot listen on {host}:{port}: {error.strerror or error}",
                EXIT_BAD_INPUT,
                "choose another port with --port, or an address of this machine with --host",
            )
        if demo:  # the demo's simulator sends its webhooks here, as its portal would be told
            from tui.demo import register_demo_webhooks

            receiver.webhook_secrets = tuple(await register_demo_webhooks(session.profile, receiver.webhook_url))
        _start_access_log()
        _introduce(receiver, settings, bool(receiver.webhook_secrets))
        await _serve(session, receiver, team)

    run(options, work, concurrent=True, endless=True)


def _require_secrets(callback_secret: str, webhook_secret: bool) -> None:
    """No secret, no start: unverified callbacks would be acknowledged, and a forgery would use up a genuine id."""
    if not callback_secret:
        fail(
            "no callback secret is configured: callbacks could not be told from forgeries",
            EXIT_BAD_INPUT,
            "store one with `giftdesk notifications set --secret-env VAR`, or name its variable with --secret-env VAR "
            "(or start anyway with --allow-unverified)",
        )
    if not webhook_secret:
        fail(
            "no webhook secret is given: /webhooks could verify nothing",
            EXIT_BAD_INPUT,
            "give the endpoint's signing secret with --webhook-secret-env VAR (or start anyway with --allow-unverified)",
        )


def _check_proxy_address(address: str) -> None:
    import ipaddress

    if address == "*":
        return
    try:
        ipaddress.ip_network(address, strict=False)
    except ValueError:
        fail(
            f"--forwarded-allow-ips: {visible(address)} is not an address",
            EXIT_BAD_INPUT,
            "name the proxies by address (127.0.0.1, 10.0.0.0/8) or use * for any",
        )


async def _serve(session: CommandConnection, receiver, team) -> None:
    """The receiver and the work on its inbox, in this loop, until the receiver stops; in team mode
    (`team`, a TeamMode) the inbox and the watch list it settles are the team's."""
    from tui.core.tasks import said_task
    from tui.inbox_work import InboxWork, StoredWatch, mirror_syncer
    from tui.local.inbox import forget_heartbeat
    from tui.local.watchlist import WatchList
    from tui.profile_services import profile_inbox

    async def client():
        return session.client

    profile = session.profile
    with closing(profile_inbox(profile, team)) as inbox:
        watch = StoredWatch(team.watch_list(profile.environment) if team is not None else WatchList(), profile.name)
        stopped_because: list[str] = []  # why the receiver was stopped from inside, said once it has

        def stop(reason: str) -> None:
            if not stopped_because:
                stopped_because.append(reason)
                receiver.stop()

        def shown(show: Callable[..., None]) -> Callable[..., None]:
            # A reader gone (`| head -1`) or a dead terminal: deliveries must not go on being
            # acknowledged unseen; they are kept, so the receiver stops and says where they are.
            def show_or_stop(*args: Any) -> None:
                try:
                    show(session.options, *args)
                except OSError as error:
                    quiet_stdout()
                    stop(f"cannot write to standard output ({error.strerror or error})")

            return show_or_stop

        show_delivery, show_outcome = shown(_show_delivery), shown(_show_outcome)
        work = InboxWork(
            inbox,
            client,
            watch,
            mirror_syncer(profile.mirror_name, profile.environment, client),
            on_done=show_outcome,
            # Other receivers may share a team inbox: what one of them left (killed mid-way) is looked for.
            sweep_seconds=SWEEP_SECONDS if team is not None else None,
            metrics=receiver.metrics,
        )

        def kept(delivery) -> None:
            show_delivery(delivery)
            work.wake()

        receiver.subscribe(kept)  # serve() runs in this loop: no thread hand-over
        # Not swallowed: deliveries would be kept and answered, and never acted on or shown.
        worker = said_task(
            work.run(),
            "giftdesk-inbox-work",
            lambda error: stop(f"the work on the inbox stopped ({type(error).__name__}: {error})"),
        )
        helpers = [worker, said_task(_beat(profile.name, receiver.url), "giftdesk-receiver-heartbeat", lambda _: None)]
        if team is not None:  # hears the other receivers' deliveries, and says when the database is back
            hearing = team.listener(lambda change: work.wake() if change.get("what") == "inbox" else None)
            helpers.append(said_task(hearing.run(), "giftdesk-team-listener", lambda error: stop(str(error))))
        try:
            await receiver.serve()
        finally:
            for helper in helpers:
                helper.cancel()
            await asyncio.gather(*helpers, return_exceptions=True)
            forget_heartbeat(profile.name)
            watch.store.close()
    if receiver.gave_up:
        fail(
            f"the inbox could not be written for {receiver.settings.give_up_seconds:.0f} s: the receiver stopped",
            EXIT_UNAVAILABLE,
            "see the error above (the disk, the team database); a service manager restarts `giftdesk listen`",
        )
    if stopped_because:
        fail(
            f"{stopped_because[0]}: the receiver stopped",
            EXIT_BAD_INPUT,
            "what it kept stays in the inbox (`giftdesk inbox`); start `giftdesk listen` again",
        )


async def _beat(profile: str, url: str) -> None:
    """The receiver's heartbeat: the TUI's Listener tab on this inbox says this process receives into it."""
    from tui.listener_hub import HEARTBEAT_SECONDS
    from tui.local.inbox import write_heartbeat

    while True:
        await asyncio.to_thread(write_heartbeat, profile, url, "giftdesk listen")
        await asyncio.sleep(HEARTBEAT_SECONDS)


def _variable(variable: str | None) -> str | None:
    if variable is None:
        return None
    value = os.environ.get(variable)
    if value is None:
        fail(f"environment variable {variable} is not set", EXIT_BAD_INPUT)
    return value


def _webhook_secret(variable: str) -> str:
    """The secret in `variable`, checked to be one the verifying library takes."""
    from standardwebhooks import Webhook

    value = _variable(variable) or ""
    try:
        Webhook(value)
    except Exception:  # the library raises several kinds for a value that is not base64 or is empty
        fail(
            f"{variable} does not hold a webhook signing secret",
            EXIT_BAD_INPUT,
            "copy the endpoint's secret (whsec_...) from the provider's webhook portal",
        )
    return value


def _start_access_log() -> None:
    """One JSON object per request on stderr, masked like every log line (the redaction filter)."""
    from tui.api.redact import RedactionFilter

    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RedactionFilter())
    handler.setFormatter(_VisibleFormatter("%(message)s"))
    for name, level in (("giftdesk.receiver.access", logging.INFO), ("giftdesk.receiver", logging.WARNING)):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(min(logger.level or level, level))
    logging.getLogger("giftdesk.receiver.access").propagate = False


class _VisibleFormatter(logging.Formatter):
    """Every line on stderr with C0, C1 and bidi controls shown, not obeyed (rule 8): errors quote outside text."""

    def format(self, record: logging.LogRecord) -> str:
        return visible(super().format(record), multiline=True)


def _introduce(receiver, settings, verifies_webhooks: bool) -> None:
    if not settings.loopback_only:
        say("!" * 72)
        say(f"WARNING: listening on {settings.host}: reachable from the network, not only this machine.")
        say("Serve it to the provider only through a TLS-terminating reverse proxy (docs/receiver.md).")
        say("!" * 72)
    say(f"Listening for order callbacks on {receiver.url} and webhooks on {receiver.webhook_url}")
    say(f"Health: {receiver.base_url}/health")
    say(
        "The service needs public HTTPS URLs: put a reverse proxy in front and set them with "
        "`giftdesk notifications set` and in the provider's webhook portal (docs/receiver.md)."
    )
    if not receiver.verifies:
        say("WARNING: --allow-unverified: no callback secret, so callbacks are acknowledged UNVERIFIED")
    if not verifies_webhooks:
        say("WARNING: --allow-unverified: no webhook secret, so every webhook will be refused")
    if settings.forwarded_allow_ips:
        say(f"X-Forwarded-For is believed from {visible(', '.join(settings.forwarded_allow_ips))} only")
    say("Waiting for deliveries (Ctrl+C to stop).")


def _show_delivery(options: Options, delivery) -> None:
    if options.json:
        emit_json_line(
            {
                "eventId": delivery.event_id,
                "kind": delivery.kind,
                "verdict": delivery.verdict,
                "reason": delivery.reason or None,
                "at": delivery.received_at.isoformat(),
            }
        )
        return
    line = f"{delivery.received_at:%H:%M:%S} {delivery.kind} {delivery.event_id}: {delivery.verdict}"
    click.echo(visible(line + (f" ({delivery.reason})" if delivery.reason else "")))


def _show_outcome(options: Options, event_id: str, outcome: str) -> None:
    if options.json:
        emit_json_line({"eventId": event_id, "outcome": outcome})
    else:
        click.echo(visible(f"  {event_id}: {outcome}"))
