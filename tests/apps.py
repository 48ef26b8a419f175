"""Build the giftdesk app against a running simulator, for Pilot tests.

Profiles are the demo ones (secrets in memory only): "demo-sandbox",
"demo-production" (client acme) and "demo-other" (a second client).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from textual.pilot import Pilot
from textual.worker import WorkerFailed

from tui.app import AppSettings, GiftdeskApp, build_app
from tui.local.profiles import demo_profile
from tui.simulator import DEMO_CREDENTIALS, SimulatorServer, SimulatorSettings

T = TypeVar("T")

PROFILE_FOR_CREDENTIAL = {
    "acme-sandbox": "demo-sandbox",
    "acme-production": "demo-production",
    "other-sandbox": "demo-other",
}


def demo_profiles(
    base_url: str, *, readonly_profiles: frozenset[str] = frozenset(), limits: dict | None = None
) -> dict:
    """`limits`: every profile's overrides of the provider's limits (tui.api.limits)."""
    profiles = {}
    for credential in DEMO_CREDENTIALS:
        if credential.name not in PROFILE_FOR_CREDENTIAL:  # e.g. acme-catalog-only: tests that want it make its profile
            continue
        name = PROFILE_FOR_CREDENTIAL[credential.name]
        profile = demo_profile(name, credential.environment, base_url, credential.client_id, credential.client_secret)
        if name in readonly_profiles:
            profile = dataclasses.replace(profile, readonly=True)
        if limits:
            profile = dataclasses.replace(profile, limits=limits)
        profiles[name] = profile
    return profiles


def app_on(
    sim, profile: str = "demo-sandbox", *, readonly: bool = False, order: str | None = None, **settings
) -> GiftdeskApp:
    """The app on `sim` (a SimulatorServer), opened on `profile`."""
    return build_app(
        AppSettings(
            profiles=demo_profiles(sim.base_url, **settings.pop("profile_options", {})),
            profile_name=profile,
            readonly=readonly,
            order=order,
            **settings,
        )
    )


# --- waiting for and reading the screen, shared by the Pilot tests ----------------------


async def settle(pilot) -> None:
    """Every request answered (or failed: the screen reports that itself) and drawn."""
    with contextlib.suppress(WorkerFailed):
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()  # what a screen fills in the frame after (e.g. the catalog's detail pane)


async def until(pilot, condition: Callable[[], object], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the screen"
        await pilot.pause(0.05)


def notifications(app) -> list[str]:
    return [n.message for n in app._notifications]


def screen_lines(app) -> list[str]:
    """The screen as a person sees it, line by line."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def rendered(screen, selector: str) -> str:
    """What a Static (or any simple widget) shows, as text."""
    return str(screen.query_one(selector).render())


async def export_shown(pilot, fmt: str, data_dir: Path) -> Path:
    """`e`, then the format in the dialog (c: CSV, j: JSON); the one file written, checked private."""
    await pilot.press("e")
    await pilot.pause()
    await pilot.press(fmt[0])
    await pilot.pause()
    folder = data_dir / "exports"
    [path] = list(folder.iterdir())
    assert folder.stat().st_mode & 0o777 == 0o700 and path.stat().st_mode & 0o777 == 0o600
    assert path.suffix == f".{fmt}"
    return path


# --- an app that stops answering fails the test, never hangs it (issue 26) -----------------------

ANSWER_SECONDS = 20.0  # far beyond a loaded machine's slowest step; a frozen app never answers


class Driven:
    """An app run by Pilot on an event loop of its own thread, so a freeze fails the test.

    A frozen Textual app cannot even be shut down (its screen waits for itself), so a test that
    awaited it in its own loop would hang the suite: here a step that does not finish in time
    raises AssertionError, and the frozen app's thread is left behind (a daemon).
    """

    def __init__(self, app: GiftdeskApp, size: tuple[int, int]) -> None:
        self.app = app
        self.frozen = False
        self._size = size
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._steps: (
            asyncio.Queue[tuple[Callable[[Pilot], Awaitable[Any]], concurrent.futures.Future] | None] | None
        ) = None
        self._thread = threading.Thread(
            target=self._loop.run_until_complete, args=(self._main(),), name=f"driven {type(app).__name__}", daemon=True
        )

    async def _main(self) -> None:
        # The steps run here, in run_test's own task, as a Pilot test's body would (Textual's context is set).
        self._steps = asyncio.Queue()
        async with self.app.run_test(size=self._size) as pilot:
            self._started.set()
            while (step := await self._steps.get()) is not None:
                function, outcome = step
                try:
                    outcome.set_result(await function(pilot))
                except Exception as error:
                    outcome.set_exception(error)

    def __enter__(self) -> Driven:
        self._thread.start()
        if not self._started.wait(ANSWER_SECONDS):
            raise AssertionError(f"the app did not start within {ANSWER_SECONDS:g} s")
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.frozen or self._steps is None:
            return  # left behind: it would never end
        self._loop.call_soon_threadsafe(self._steps.put_nowait, None)
        self._thread.join(ANSWER_SECONDS)
        if self._thread.is_alive():
            raise AssertionError("the app did not shut down: it stopped answering")
        self._loop.close()

    def run(self, step: Callable[[Pilot], Awaitable[T]], what: str = "", seconds: float = ANSWER_SECONDS) -> T:
        """Run `step(pilot)` on the app's loop; a step that does not finish within `seconds` fails."""
        assert self._steps is not None
        if self.frozen:
            raise AssertionError("the app stopped answering earlier")
        outcome: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(self._steps.put_nowait, (step, outcome))
        try:
            return outcome.result(seconds)
        except concurrent.futures.TimeoutError:
            self.frozen = True
            raise AssertionError(
                f"the app stopped answering: {what or step.__name__} did not finish within {seconds:g} s"
            ) from None

    def press(self, *keys: str, seconds: float = ANSWER_SECONDS) -> None:
        self.run(lambda pilot: pilot.press(*keys), what=" ".join(keys), seconds=seconds)


class Outage:
    """A simulator that goes away (its port refuses connections) and comes back on the same port (issue 35):
    its state starts afresh, its seeded past is the same. `server` is the one serving, or the stopped one."""

    def __init__(self, settings: SimulatorSettings) -> None:
        self.server = SimulatorServer(settings).start()
        self.settings = dataclasses.replace(settings, port=self.server.port)
        self.up_now = True

    def down(self) -> None:
        self.server.stop()
        self.up_now = False

    def up(self) -> None:
        self.server = SimulatorServer(self.settings).start()
        self.up_now = True

    def stop(self) -> None:
        if self.up_now:
            self.down()
