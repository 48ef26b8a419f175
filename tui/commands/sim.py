"""`giftdesk sim`: the service simulator in the foreground, until Ctrl-C.

Prints the base URL and one paste-able `export ...` line per demo
credential. Those secrets are the simulator's own, fixed and documented in
docs/simulator.md: the one place giftdesk prints a secret on purpose.
The simulator (starlette, uvicorn) loads only when the command runs.
"""

from __future__ import annotations

import click

from tui.commands.options import debug_option
from tui.simulator.settings import DEMO_HISTORY


@click.command(name="sim")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    metavar="N",
    help="Port on 127.0.0.1; 0 picks a free one.",
)
@click.option(
    "--seed", type=int, default=1, show_default=True, metavar="N", help="Seed of the catalog, ids and faults."
)
@click.option(
    "--brands", type=click.IntRange(1), default=300, show_default=True, metavar="N", help="Number of catalog brands."
)
@click.option(
    "--faults", metavar="SPEC", default=None, help='Injected faults, e.g. "latency=50ms,5xx=0.1,drop=0.05,429=0.1".'
)
@click.option(
    "--history",
    type=click.IntRange(0),
    default=DEMO_HISTORY,
    show_default=True,
    metavar="N",
    help="Orders seeded over the last 30 days (Get order and the order history find them).",
)
@click.option(
    "--hostile", is_flag=True, help="Fill every free-text field with markup, escape sequences and control characters."
)
@click.option(
    "--limits",
    type=click.Choice(["on", "off"]),
    default="on",
    show_default=True,
    help="Enforce the provider's per-endpoint rate limits (429 with Retry-After); off for speed tests only.",
)
@debug_option
def command(port: int, seed: int, brands: int, faults: str | None, history: int, hostile: bool, limits: str) -> None:
    """Run the service simulator on a local port.

    Prints its base URL and an `export ...` line per demo credential; point
    GIFTDESK_* at one of them to use the commands against it. Stop with Ctrl+C.
    It enforces the provider's rate limits per credential (429 with
    Retry-After), as the real service does; --limits off is for speed tests.

    \b
    Examples:
      giftdesk sim --port 8080
      giftdesk sim --brands N --faults latency=50ms,5xx=0.1
      giftdesk sim --history 500 --seed 7 --hostile --limits off
    """
    from tui.simulator import DEMO_CREDENTIALS, SimulatorServer, SimulatorSettings
    from tui.simulator.rate_limits import PROVIDER_LIMITS
    from tui.simulator.webhooks import PORTAL_PATH, initial_secret

    try:
        server = SimulatorServer(
            SimulatorSettings(
                seed=seed,
                brands=brands,
                faults=faults,
                port=port,
                history=history,
                place_limits=True,
                hostile=hostile,
                limits=PROVIDER_LIMITS if limits == "on" else None,
            )
        )
    except ValueError as error:  # a bad --faults spec
        raise click.BadParameter(str(error), param_hint="--faults") from None

    def announce(sim: SimulatorServer) -> None:
        click.echo(f"giftdesk simulator on {sim.base_url}  (Ctrl-C to stop)")
        for credential in DEMO_CREDENTIALS:
            click.echo(f"\n# {credential.name}")
            click.echo(credential.export_line(sim.base_url))
            click.echo(
                f"export GIFTDESK_WEBHOOK_SECRET={initial_secret(seed, credential.name)}  "
                f"# webhooks: set the URL with POST {sim.base_url}{PORTAL_PATH}"
            )

    try:
        server.serve_foreground(announce)
    except KeyboardInterrupt:  # Ctrl-C before uvicorn took over the signal
        pass
    except OSError as error:  # e.g. the port is taken
        raise click.ClickException(f"cannot serve on port {port}: {error.strerror or error}") from None
