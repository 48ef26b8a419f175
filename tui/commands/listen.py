"""`giftdesk listen`: receive order callbacks on this machine, verify them, show each order's final state.

The expected secret is the one the service has stored: it is read with
GET notification when the listener starts (the payload carries the
configured secret, SPEC Events rule 3). `--secret-env VAR` expects another
value instead, e.g. a secret about to be configured. Progress and warnings
go to stderr; each callback's outcome goes to stdout (a JSON object per
callback with --json). Card codes are never printed: a card summary is.
"""

from __future__ import annotations

import asyncio
import os

import click

from tui.commands.common import EXIT_BAD_INPUT, Options, Session, emit_json, fail, run, say, service_options
from tui.core.safe_text import visible

DEFAULT_PORT = 8787  # fixed, so the configured sandbox URL stays valid from one run to the next


@click.command("listen")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True, metavar="N",
              help="Loopback port to listen on (0: any free port).")
@click.option("--secret-env", metavar="VAR",
              help="Expect the secret in this environment variable instead of the one stored at the service.")
@service_options
def command(options: Options, port: int, secret_env: str | None) -> None:
    """Receive order callbacks locally and show them.

    Listens on 127.0.0.1, checks each callback's secret, then shows the
    order's final state. Set the printed URL as the sandbox notification URL. Production callbacks
    need a public HTTPS endpoint that forwards to it. Stop with Ctrl+C.

    \b
    Examples:
      giftdesk listen
      giftdesk listen --port N --json
    """
    expected_override = _secret_from_env(secret_env)

    async def work(session: Session) -> None:
        from tui.api.redact import register_secret
        from tui.listener import CallbackListener

        expected = expected_override
        if expected is None:
            expected = (await session.client.get_notifications()).secret_key
        register_secret(expected)
        try:
            listener = CallbackListener(expected, port=port)
        except OSError as error:
            fail(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}", EXIT_BAD_INPUT,
                 "choose another port with --port")
        _introduce(listener.url, listener.verifies)
        events: asyncio.Queue = asyncio.Queue()
        listener.subscribe(events.put_nowait)  # serve() runs in this loop: no thread hand-over
        shower = asyncio.create_task(_show_events(session, events))
        try:
            await listener.serve()
        finally:
            shower.cancel()

    run(options, work, concurrent=True, endless=True)


def _secret_from_env(variable: str | None) -> str | None:
    if variable is None:
        return None
    value = os.environ.get(variable)
    if value is None:
        fail(f"environment variable {variable} is not set", EXIT_BAD_INPUT)
    return value


def _introduce(url: str, verifies: bool) -> None:
    say(f"Listening for order callbacks on {url}")
    say(f"Set it as the sandbox notification URL:  giftdesk notifications set --sandbox-url {url}")
    say("Production callbacks need a public HTTPS endpoint that forwards to this URL.")
    if not verifies:
        say("warning: no callback secret is configured, so callbacks cannot be verified")
    say("Waiting for callbacks (Ctrl+C to stop).")


async def _show_events(session: Session, events: asyncio.Queue) -> None:
    from tui.listener import CallbackRejected

    while True:
        event = await events.get()
        if isinstance(event, CallbackRejected):
            say(f"warning: callback #{event.sequence} rejected: {event.reason}; nothing in it was used")
            _emit(session.options, {"sequence": event.sequence, "verified": False, "reason": event.reason})
            continue
        say(f"callback #{event.sequence}: order {event.request_id} {event.status}; fetching it")
        await _show_order(session, event)


async def _show_order(session: Session, event) -> None:
    """Get order is the source of truth (SPEC Events rule 4); a failure is shown and listening goes on."""
    from tui.api.errors import ServiceError
    from tui.core.order_watch import card_summary

    record = {"sequence": event.sequence, "verified": True, "requestId": event.request_id,
              "callbackStatus": event.status}
    try:
        order = await session.client.get_order(event.request_id)
    except ServiceError as error:
        say(f"warning: could not fetch order {event.request_id}: {error}")
        _emit(session.options, {**record, "error": str(error)})
        return
    summary = card_summary(card.status for card in order.cards)
    if session.options.json:
        emit_json({**record, "orderStatus": order.status, "cards": summary, "total": order.total,
                   "errorMessage": order.error_message})
        return
    line = f"order {order.request_id}: {order.status}, {summary}, total {order.total:,.2f}"
    click.echo(visible(line + (f" ({order.error_message})" if order.error_message else "")))


def _emit(options: Options, record: dict) -> None:
    if options.json:
        emit_json(record)
