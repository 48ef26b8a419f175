"""`giftdesk --demo`: the simulator in a child process and two demo profiles on it.

`DemoBackend.start()` runs first thing on `giftdesk --demo`, before Textual
loads: it binds a loopback socket (so the port, and the demo profiles' base
URL, are known at once) and hands it to a child interpreter (`python -m
tui.demo FD`), which imports Starlette and uvicorn, builds the catalog and
serves on it, on its own CPU and its own interpreter lock, while this process
imports and composes the TUI. When the start draws the catalog's kept first
page (which needs no service), the child starts once that frame is drawn
(`start(now=False)`, `begin`): where a core is short, the service's start
would otherwise take half of it from the TUI's first frame. Connections made before the child serves wait
in the socket's queue. The child says "ready" (or why it failed) on a pipe;
the first request waits for that line (`wait_ready`). The child ends when
its stdin closes: when we stop it, and also when this process dies.

Demo profiles hold their secrets in memory only; the config file is never
touched. No Textual.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING

from tui.local.demo_data import enter_demo_data_dir

if TYPE_CHECKING:
    from tui.local.config import Profile
    from tui.simulator.settings import SimulatorSettings

# The demo credentials giftdesk opens with, by the simulator's names.
_DEMO_PROFILES = {"demo-sandbox": "acme-sandbox", "demo-production": "acme-production"}
DEMO_CATALOG_REFRESH_SECONDS = 120.0  # the demo catalog changes a little this often: the mirror has changes to show
READY = "ready"
PAST_LATEST_SECONDS = 1.0  # the demo's past is seeded after its first catalog page, or after this at the latest
STOP_TIMEOUT_SECONDS = 5.0


def _loopback_listener() -> socket.socket:
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so
    # (tui/simulator/server.py), and without it keep-alive requests wait on delayed ACKs.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    return listener


class DemoBackend:
    default_profile_name = "demo-sandbox"

    def __init__(self, folder: Path, listener: socket.socket) -> None:
        self.port = listener.getsockname()[1]
        self._folder = folder
        self._listener: socket.socket | None = listener  # until the child holds it
        self._child: subprocess.Popen[str] | None = None
        self._answer: str | None = None  # the child's first line, once read
        self._answer_lock = threading.Lock()  # held by the thread reading the answer, while it waits for it
        self._spawn_lock = threading.Lock()  # never held while waiting: `begin` runs on the TUI's event loop

    @classmethod
    def start(cls, *, now: bool = True) -> DemoBackend:
        """The demo's folder and socket, and its service's process at once (`now`), or at the first `wait_ready`
        or `begin`: a start whose first frame needs no service (the catalog's kept first page) draws it before the
        service's start takes half of a core where cores are short."""
        folder = enter_demo_data_dir()  # the demo's audit log, recent orders, exports and log are its own
        backend = cls(folder, _loopback_listener())
        if now:
            backend.begin()
        return backend

    def begin(self) -> None:
        """Start the service's process, if it is not started yet (never waits for it to answer)."""
        with self._spawn_lock:
            if self._listener is None:
                return
            with self._listener as listener:
                self._child = subprocess.Popen(
                    # -P: the current directory is not put on the path, so no folder there can pass for tui.
                    # The child removes the demo's folder once this process is gone, however it ended.
                    [sys.executable, "-P", "-m", "tui.demo", str(listener.fileno()), str(self._folder)],
                    pass_fds=(listener.fileno(),),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                    start_new_session=True,  # the terminal's Ctrl-C is the TUI's key, not the child's signal
                )
            self._listener = None  # the child holds the socket from here on
        # The answer is read as soon as it comes (the thread waits on the pipe, not on the interpreter),
        # so the first request finds it there instead of waiting for a thread of its own.
        threading.Thread(target=self._read_answer, name="demo-ready", daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _read_answer(self) -> str:
        with self._answer_lock:
            if self._answer is None:
                assert self._child is not None and self._child.stdout is not None
                self._answer = self._child.stdout.readline().strip() or "it exited"
            return self._answer

    @property
    def ready(self) -> bool:
        """The child said it serves (never blocks: False until its answer came)."""
        return self._answer == READY

    async def wait_ready(self) -> None:
        self.begin()
        answer = self._answer if self._answer is not None else await asyncio.to_thread(self._read_answer)
        if answer != READY:
            raise RuntimeError(f"the demo simulator did not start: {answer}")

    def profiles(self) -> dict[str, Profile]:
        from tui.local.profiles import demo_profile
        from tui.simulator.credentials import DEMO_CREDENTIALS

        by_name = {credential.name: credential for credential in DEMO_CREDENTIALS}
        return {
            profile_name: demo_profile(
                profile_name,
                by_name[sim_name].environment,
                self.base_url,
                by_name[sim_name].client_id,
                by_name[sim_name].client_secret,
            )
            for profile_name, sim_name in _DEMO_PROFILES.items()
        }

    def stop(self) -> None:
        """End the child (closing its stdin asks it to stop) and wait for it; safe to call twice."""
        if self._child is None:  # never started: its socket and folder go now
            if self._listener is not None:
                self._listener.close()
                self._listener = None
            shutil.rmtree(self._folder, ignore_errors=True)
            return
        if self._child.stdin is not None and not self._child.stdin.closed:
            self._child.stdin.close()
        try:
            self._child.wait(timeout=STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()
        if self._child.stdout is not None:
            self._child.stdout.close()


def draws_a_kept_page(profile_name: str) -> bool:
    """Whether a start on this demo profile draws the catalog's kept first page (tui.local.first_pages) in its first
    frame: one that needs no service."""
    from tui.local.first_pages import first_page_path
    from tui.simulator.credentials import DEMO_CREDENTIALS

    environments = {credential.name: credential.environment for credential in DEMO_CREDENTIALS}
    sim_name = _DEMO_PROFILES.get(profile_name)
    return sim_name is not None and first_page_path(profile_name, environments[sim_name], demo=True).exists()


def demo_settings() -> SimulatorSettings:
    """The demo's simulator: its past, the provider's pacing, a catalog that changes now and then."""
    from tui.simulator.settings import DEMO_HISTORY, SimulatorSettings

    return SimulatorSettings(
        timing="fast", history=DEMO_HISTORY, place_limits=True, catalog_refresh_seconds=DEMO_CATALOG_REFRESH_SECONDS
    )


def serve_child(listener_fd: int, demo_folder: Path, stdin: IO[str], stdout: IO[str]) -> None:
    """The child: serve the demo simulator on the inherited socket until stdin closes, then
    remove the demo's folder (the parent may have been killed, with no chance to)."""
    try:
        serve_until_parent_ends(listener_fd, stdin, stdout)
    finally:
        shutil.rmtree(demo_folder, ignore_errors=True)


def serve_until_parent_ends(listener_fd: int, stdin: IO[str], stdout: IO[str]) -> None:
    try:
        from tui.simulator import SimulatorServer

        listener = socket.socket(fileno=listener_fd)
        server = SimulatorServer(demo_settings(), listener=listener, past_later=True).start()
    except Exception as error:  # said to the parent, which shows it when the first request waits
        stdout.write(f"{type(error).__name__}: {error}\n")
        stdout.flush()
        stdin.read()  # the parent goes on (it shows the error): its folder stays until it ends
        return
    stdout.write(f"{READY}\n")  # the catalog answers now: the first page need not wait for the past
    stdout.flush()
    try:
        server.seed_past_when_wanted(PAST_LATEST_SECONDS)  # any other request waits for it (SimulatorState.past)
        stdin.read()  # returns at end of file: the parent stopped us, or is gone
    finally:
        server.stop()


async def register_demo_webhooks(profile: Profile, url: str) -> list[str]:
    """Point the demo simulator's webhooks for this profile at `url`, as one does in the provider's
    portal (docs/simulator.md), and return the signing secrets it shows."""
    import httpx

    from tui.local.secret_sources import resolve_secret
    from tui.simulator.webhooks import PORTAL_PATH

    auth = (profile.client_id, resolve_secret(profile).get_secret_value())
    async with httpx.AsyncClient(timeout=10.0) as http:
        response = await http.post(profile.base_url.rstrip("/") + PORTAL_PATH, json={"url": url}, auth=auth)
        response.raise_for_status()
    secrets = response.json().get("secrets")
    return [secret for secret in secrets if isinstance(secret, str)] if isinstance(secrets, list) else []


if __name__ == "__main__":
    serve_child(int(sys.argv[1]), Path(sys.argv[2]), sys.stdin, sys.stdout)
