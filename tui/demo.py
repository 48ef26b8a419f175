"""`giftdesk --demo`: the simulator in a background thread and two demo profiles on it.

The simulator is imported, built and started in its own thread while the
first frame draws (the catalog's first request waits for it), so the demo
opens as fast as the app does: Starlette and uvicorn never load on the main thread. Demo profiles hold
their secrets in memory only; the config file is never touched. No Textual.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import TYPE_CHECKING

from tui.local.config import demo_profile
from tui.local.demo_data import enter_demo_data_dir

if TYPE_CHECKING:
    from tui.local.config import Profile
    from tui.simulator import SimulatorServer

# The demo credentials giftdesk opens with, by the simulator's names.
_DEMO_PROFILES = {"demo-sandbox": "acme-sandbox", "demo-production": "acme-production"}


def _free_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class DemoBackend:
    default_profile_name = "demo-sandbox"

    def __init__(self, port: int) -> None:
        self.port = port
        self.server: SimulatorServer | None = None  # built in the simulator's thread
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @classmethod
    def start(cls) -> DemoBackend:
        enter_demo_data_dir()  # the demo's audit log, recent orders and chosen accounts are its own
        backend = cls(_free_loopback_port())
        threading.Thread(target=backend._run, name="giftdesk-demo-simulator", daemon=True).start()
        return backend

    def _run(self) -> None:
        try:
            from tui.simulator import SimulatorServer, SimulatorSettings

            self.server = SimulatorServer(SimulatorSettings(port=self.port, timing="fast"))
            self.server.start()
        except BaseException as error:  # reported to whoever waits for the server
            self._error = error
        finally:
            self._ready.set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def wait_ready(self) -> None:
        if not self._ready.is_set():
            await asyncio.to_thread(self._ready.wait)
        if self._error is not None:
            raise RuntimeError(f"the demo simulator did not start: {self._error}")

    def profiles(self) -> dict[str, Profile]:
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
        self._ready.wait(timeout=10)
        if self.server is not None:
            self.server.stop()
