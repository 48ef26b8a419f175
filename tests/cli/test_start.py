"""Issue 16, starting fast: the demo's simulator in a child process, the loading
state before the first answer, and what a one-shot command does not import.

(How fast is `make bench`'s business, figures 1 and 2; these check behaviour.)
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from apps import app_on, demo_profiles, settle
from textual.app import App, ComposeResult
from textual.widgets import Input

from tui.app import build_app
from tui.demo import DemoBackend, draws_a_kept_page
from tui.local.first_pages import first_page_path
from tui.session import Session
from tui.simulator import SimulatorServer, SimulatorSettings, demo_credential
from tui.simulator.history import HISTORY_CREDENTIAL, HISTORY_PATH
from tui.startup import load_settings
from widgets.pager import Pager, PageState
from widgets.row_table import RowTable

ACCOUNTS = "/api/integration/v1.0/accounts"


def refused(base_url: str) -> bool:
    try:
        httpx.get(base_url + ACCOUNTS, timeout=5)
    except httpx.ConnectError:
        return True
    return False


# --- the demo's simulator: a child process on a socket bound by the parent ---------------


async def test_the_demo_service_runs_in_a_child_process_and_stops_with_it():
    backend = DemoBackend.start()
    try:
        profile = backend.profiles()[backend.default_profile_name]
        assert profile.base_url == backend.base_url  # known at once: the parent bound the socket
        assert not backend.ready  # nobody asked yet
        await backend.wait_ready()
        assert backend.ready
        session = Session(profile)
        client = await session.client()
        accounts = await client.accounts()
        assert 1001 in [account.id for account in accounts]  # the simulator's acme account
        await session.close()
    finally:
        backend.stop()
    backend.stop()  # a second stop is harmless
    assert refused(backend.base_url)


async def test_a_demo_service_put_off_starts_when_first_asked_for_and_stops_with_it():
    # A start that draws the kept first page puts its service off until that frame (issue 26: on a busy core the
    # service's start came before the TUI's first frame).
    backend = DemoBackend.start(now=False)
    try:
        profile = backend.profiles()[backend.default_profile_name]
        assert profile.base_url == backend.base_url
        with pytest.raises(httpx.ReadTimeout):  # bound, nobody serving: the connection waits in the queue
            httpx.get(backend.base_url + ACCOUNTS, timeout=1)
        session = Session(profile, wait_ready=backend.wait_ready, start_service=backend.begin)
        session.start_service()
        session.start_service()  # once only
        client = await session.client()
        assert 1001 in [account.id for account in await client.accounts()]
        await session.close()
    finally:
        backend.stop()
    assert refused(backend.base_url)


def test_a_demo_service_never_started_stops_and_takes_its_folder_with_it():
    backend = DemoBackend.start(now=False)
    folder = backend._folder
    assert folder.exists()
    backend.stop()
    backend.stop()
    assert refused(backend.base_url) and not folder.exists()


def test_the_demo_puts_its_service_off_only_when_a_first_page_is_kept():
    assert not draws_a_kept_page("demo-sandbox")
    first_page_path("demo-sandbox", "sandbox", demo=True).parent.mkdir(parents=True)
    first_page_path("demo-sandbox", "sandbox", demo=True).write_text("{}")
    assert draws_a_kept_page("demo-sandbox") and not draws_a_kept_page("demo-production")


def test_the_catalog_answers_before_the_seeded_past_and_every_other_request_waits_for_it():
    # The demo's child says "ready" once the catalog can be served and seeds its past after.
    credential = demo_credential(HISTORY_CREDENTIAL)
    today = datetime.now(UTC).date()
    days = {"startDate": (today - timedelta(days=31)).isoformat(), "endDate": today.isoformat()}
    with SimulatorServer(SimulatorSettings(history=12), past_later=True) as sim:
        catalog = httpx.get(sim.base_url + "/api/integration/v2.0/catalog", auth=credential.auth, timeout=10)
        assert catalog.status_code == 200 and catalog.json()["items"]  # no past yet, and no wait
        answers: list[httpx.Response] = []
        early = threading.Thread(
            target=lambda: answers.append(
                httpx.get(sim.base_url + HISTORY_PATH, params=days, auth=credential.auth, timeout=30)
            )
        )
        early.start()
        early.join(0.5)
        assert early.is_alive() and not answers  # asked before the past exists: it waits, it is not told "none"
        sim.seed_past()
        early.join()
        lines = answers[0].json()
        assert answers[0].status_code == 200 and len({line["clientReferenceNumber"] for line in lines}) == 12
        order = httpx.get(
            f"{sim.base_url}/api/integration/v1.0/orders/{lines[0]['clientReferenceNumber']}",
            auth=credential.auth,
            timeout=10,
        )
        assert order.status_code == 200


def seeding_when_wanted(sim: SimulatorServer) -> threading.Thread:
    """The demo child's order: the past is seeded once wanted (an hour at the latest: never, in a test)."""
    seeder = threading.Thread(target=sim.seed_past_when_wanted, args=(3600,), daemon=True)
    seeder.start()
    return seeder


def test_the_demo_seeds_its_past_once_the_first_catalog_page_is_out():
    credential = demo_credential(HISTORY_CREDENTIAL)
    with SimulatorServer(SimulatorSettings(history=3), past_later=True) as sim:
        seeder = seeding_when_wanted(sim)
        seeder.join(0.3)
        assert seeder.is_alive() and not sim.state.past.is_set()  # nothing asked yet: the first page gets the CPU
        catalog = httpx.get(sim.base_url + "/api/integration/v2.0/catalog", auth=credential.auth, timeout=10)
        assert catalog.status_code == 200
        assert sim.state.past.wait(30)  # then the past follows without being asked for


def test_a_request_that_needs_the_past_starts_the_seeding_and_gets_its_answer():
    credential = demo_credential(HISTORY_CREDENTIAL)
    with SimulatorServer(SimulatorSettings(history=3), past_later=True) as sim:
        seeding_when_wanted(sim)
        accounts = httpx.get(sim.base_url + ACCOUNTS, auth=credential.auth, timeout=30)  # no catalog first
        assert accounts.status_code == 200 and accounts.json()["accounts"]
        assert sim.state.past.is_set()


def test_the_demo_service_ends_when_its_parent_dies_without_stopping_it():
    # A parent that starts the demo, says the URL once it serves, and dies on the spot.
    parent = subprocess.run(
        [
            sys.executable,
            "-c",
            "import asyncio, os\nfrom tui.demo import DemoBackend\nbackend = DemoBackend.start()\n"
            "asyncio.run(backend.wait_ready())\nprint(backend.base_url, flush=True)\nos._exit(0)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    base_url = parent.stdout.strip()
    deadline = time.monotonic() + 30  # the orphan sees its stdin close and shuts down
    while not refused(base_url):
        assert time.monotonic() < deadline, "the demo service outlived its parent"
        time.sleep(0.1)


async def test_a_session_says_it_waits_for_its_service_until_its_client_is_built(sim):
    profile = demo_profiles(sim.base_url)["demo-sandbox"]
    waiting = Session(profile, wait_ready=_ready)
    assert waiting.service_starting
    await waiting.client()
    assert not waiting.service_starting
    await waiting.close()
    assert not Session(profile).service_starting  # nothing to wait for


async def test_after_the_demo_service_is_up_a_new_session_waits_for_nothing():
    settings = load_settings(None, demo=True, readonly=False, order=None)
    app = build_app(settings)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert settings.demo.ready and brands_shown(app) > 0
            await app.switch_profile("demo-production")
            assert not app.session.service_starting  # so the pager never says "starting" again
            await settle(pilot)
            assert status(app.screen) == "page 1 of 6 · 300 brands"
    finally:
        settings.demo.stop()


def brands_shown(app) -> int:
    return app.screen.query_one("#brands", RowTable).row_count


async def _ready() -> None:
    """A service that is up already (the real one is tested above)."""


# --- what the pager says before the first answer -----------------------------------------


class PagerApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Pager("brand")


def status(node) -> str:
    return str(node.query_one("#pager-status").render())


async def test_the_pager_makes_up_no_page_count_before_the_first_answer():
    app = PagerApp()
    async with app.run_test() as pilot:
        pager = app.query_one(Pager)
        pager.activity, pager.busy = "starting the demo service…", True
        await pilot.pause()
        assert status(app) == "starting the demo service…"
        assert app.query_one("#pager-jump", Input).placeholder == ""  # no made-up range either
        pager.activity = "loading page 1…"
        await pilot.pause()
        assert status(app) == "loading page 1…"
        pager.state, pager.busy = PageState(0, 50, 0), False
        await pilot.pause()
        assert status(app) == "page 1 of 1 · 0 brands"  # now an answer said so
        assert app.query_one("#pager-jump", Input).placeholder == "1–1"


async def test_the_catalog_says_which_page_it_is_loading(sim_factory):
    # Each answer is held back 3 s, so the screen is seen while it waits.
    slow = sim_factory(SimulatorSettings(faults="latency=3s"))
    async with app_on(slow).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert status(screen) == "loading page 1…"
        await settle(pilot)
        assert status(screen) == "page 1 of 6 · 300 brands"
        await pilot.press("n")
        await pilot.pause()
        assert status(screen) == "page 1 of 6 · 300 brands · loading page 2…"
        await settle(pilot)
        assert status(screen) == "page 2 of 6 · 300 brands"


# --- one-shot commands ------------------------------------------------------------------


@pytest.mark.parametrize("module", ["rich.syntax", "pygments.lexers"])
def test_a_one_shot_command_does_not_load_httpx_command_line_tool(module):
    code = (
        "import sys\nfrom tui.cli import main\n"
        "try:\n    main(['--demo', 'accounts', '--json'])\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
        f"assert {module!r} not in sys.modules, 'loaded {module}'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_asking_for_a_started_service_again_never_waits_for_its_answer():
    # start_service() runs on the TUI's event loop: it must not wait on the lock the thread reading the
    # service's "ready" holds meanwhile (a service slow to start froze the loop that long; a hung one, for good).
    backend = DemoBackend.start()
    try:
        with backend._answer_lock:  # as the reader holds it while the service starts
            asked = threading.Thread(target=backend.begin, daemon=True)
            asked.start()
            asked.join(10)
            assert not asked.is_alive()
    finally:
        backend.stop()
