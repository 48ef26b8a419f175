"""Running a command: its profile, its connection to the service (`CommandConnection`), the run itself with
the contract's exit codes, and Ctrl-C/SIGTERM.

httpx, pydantic and the client are imported inside the functions that need
them, so `--help` stays fast. Most commands make their requests one after the
other; they drive the async client without an event loop (`run_inline`), so
asyncio is never imported: a one-shot command pays for it in full.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from tui.commands.options import DEMO_CREDENTIAL, Options
from tui.commands.output import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    exit_code_for,
    fail,
    handled_errors,
    say,
)
from tui.core.safe_text import visible

if TYPE_CHECKING:
    from tui.api.client import ServiceClient
    from tui.api.limits import Limit
    from tui.local.config import Profile
    from tui.local.report_copies import ReportCopies
    from tui.money import MoneyWrites
    from tui.team.mode import TeamMode

# --- profile and connection -----------------------------------------------------------------


@contextmanager
def opened_profile(options: Options) -> Iterator[Profile]:
    """The profile to talk to: --demo (a simulator for the duration), --profile, GIFTDESK_*, current."""
    from tui.local.config_file import ProfileStore
    from tui.local.profiles import choose_profile, demo_profile, profile_from_env

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
    from tui.local.config import team_settings
    from tui.local.config_file import ProfileStore

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
class CommandConnection:
    """One command's connection: the profile, its client, the flags, and how it waits."""

    profile: Profile
    client: ServiceClient
    options: Options
    sleep: Sleep = blocking_sleep
    team: TeamMode | None = None  # team mode (docs/team.md): the team's stores; its audit log is installed

    @property
    def readonly(self) -> bool:
        from tui.local.profiles import effective_readonly

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
        from tui.profile_services import profile_copies

        return profile_copies(self.profile)

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
    from tui.api.client import tls_verify
    from tui.api.transport import InlineTransport, ThreadedTransport
    from tui.profile_services import profile_client

    verify = tls_verify(profile.base_url)
    if concurrent:
        client_options.setdefault("transport", ThreadedTransport(verify=verify))
    else:
        client_options.setdefault("transport", InlineTransport(verify=verify))
        client_options.setdefault("sleep", blocking_sleep)
    return profile_client(profile, on_retry=_say_retry, on_wait=_say_wait, ends_by=ends_by, **client_options)


def run(
    options: Options,
    work: Callable[[CommandConnection], Awaitable[None]],
    *,
    concurrent: bool = False,
    endless: bool = False,
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
                CommandConnection(
                    profile, client, options, sleep=_loop_sleep() if concurrent else blocking_sleep, team=team
                )
            )

    from tui.core.signals import Terminated

    try:
        with opened_profile(options) as profile, team_mode(options) as team, terminated_as_exception():
            if concurrent:
                import asyncio

                asyncio.run(session_main(profile, team))
            else:
                run_inline(session_main(profile, team))
    except handled_errors() as error:
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
