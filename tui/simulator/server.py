"""Serving the simulator with uvicorn: in a background thread, or in the foreground."""

from __future__ import annotations

import gc
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import uvicorn

from .app import SimulatorState, build_app
from .catalog import build_catalog
from .faults import FaultInjector, FaultSpec
from .history import seed_history
from .hostile import HostileText
from .pacing import PlaceOrderLimits
from .rate_limits import LoggedRequest, RateLimits

if TYPE_CHECKING:
    from starlette.types import ASGIApp
from .settings import SimulatorSettings

START_TIMEOUT_SECONDS = 30.0


class SimulatorServer:
    """The simulated service on 127.0.0.1.

    with SimulatorServer(SimulatorSettings(seed=1)) as sim:
        httpx.get(sim.base_url + "/api/integration/v1.0/accounts", auth=...)
    """

    def __init__(
        self,
        settings: SimulatorSettings | None = None,
        *,
        listener: socket.socket | None = None,
        past_later: bool = False,
    ):
        """`listener`: a socket already bound and listening to serve on instead of binding
        `settings.port` (the demo's parent process binds it and hands it to a child).
        `past_later`: the seeded past (`settings.history`) is made by `seed_past()`, called
        once serving; until then only the catalog answers, every other request waits for it."""
        self.settings = settings or SimulatorSettings()
        self._listener = listener
        faults = FaultSpec.parse(self.settings.faults)  # fail early on a bad spec
        self.state = SimulatorState(
            build_catalog(self.settings.seed, self.settings.brands),
            self.settings.resolved_timing(),
            self.settings.seed,
            RateLimits(self.settings.limits),
        )
        if not past_later:
            self.seed_past()
        if self.settings.place_limits:
            self.state.place_limits = PlaceOrderLimits()
        self.state.webhooks.hostile = self.settings.hostile
        # The catalog never changes: keep its (up to ~100,000 products') objects out of
        # the collector's full passes, which would otherwise pause the whole process,
        # the TUI beside it included, for every one of them.
        gc.freeze()
        app: ASGIApp = build_app(self.state)
        if self.settings.hostile:
            app = HostileText(app, self.settings.seed)
        if faults.active:
            app = FaultInjector(app, faults, self.settings.seed)
        self._server = uvicorn.Server(
            uvicorn.Config(
                app,
                log_level="warning",
                access_log=False,  # access logs would print weblink tokens
                lifespan="off",
                timeout_graceful_shutdown=2,
            )
        )
        self._refreshes = 0  # change_catalog calls so far
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        if self._socket is None:
            raise RuntimeError("the simulator is not bound yet; call start()")
        return self._socket.getsockname()[1]

    @property
    def base_url(self) -> str:
        return f"http://{self.settings.host}:{self.port}"

    def start(self) -> SimulatorServer:
        """Serve in a background thread; returns once requests are accepted."""
        sock = self._bind()
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="giftdesk-simulator", daemon=True
        )
        self._thread.start()
        if self.settings.catalog_refresh_seconds:
            threading.Thread(target=self._refresh_catalog, name="giftdesk-simulator-refresh", daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the simulator did not start")
            time.sleep(0.01)
        return self

    def seed_past(self) -> None:
        """The orders of the last 30 days (tui/simulator/history.py); requests waiting for them go on."""
        try:
            seed_history(self.state.orders, self.settings.history, self.settings.seed)
            gc.freeze()  # the past never changes either (see __init__)
        finally:
            self.state.past.set()  # nothing waits forever

    def seed_past_when_wanted(self, latest: float) -> None:
        """`seed_past()` once a catalog page is answered or a request waits for the past, or after
        `latest` seconds: seeding takes the interpreter for a while, and the first page (the demo's
        first screen) would wait for it."""
        self.state.past_wanted.wait(latest)
        self.seed_past()

    def _refresh_catalog(self) -> None:
        """The hourly price refresh, every `catalog_refresh_seconds`, while the server runs."""
        interval = self.settings.catalog_refresh_seconds or 0
        while not self._server.should_exit:
            time.sleep(interval)
            if not self._server.should_exit:
                self.change_catalog(prices=20, stock=6, removed=2)

    def stop(self) -> None:
        self.state.webhooks.stop()
        if self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
            self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def serve_foreground(self, on_ready: Callable[[SimulatorServer], None]) -> None:
        """Serve in this thread until Ctrl-C; on_ready runs once the port is known."""
        sock = self._bind()
        on_ready(self)
        try:
            self._server.run(sockets=[sock])
        finally:
            sock.close()
            self._socket = None

    def __enter__(self) -> SimulatorServer:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    # --- inspection for tests -------------------------------------------------

    def change_catalog(self, *, prices: int = 0, stock: int = 0, removed: int = 0, seed: int | None = None):
        """The hourly refresh, now: re-price, flip stock of, and remove some products (catalog_changes)."""
        from .catalog_changes import refreshed

        self._refreshes += 1
        seed = self.settings.seed * 1000 + self._refreshes if seed is None else seed
        catalog, changes = refreshed(self.state.catalog, seed=seed, prices=prices, stock=stock, removed=removed)
        self.state.catalog = self.state.orders.catalog = catalog
        self.state.webhooks.catalog_changed(changes)  # productupdated.v1 per changed product
        return changes

    def requests(self, endpoint: str | None = None, credential: str | None = None) -> list[LoggedRequest]:
        """Every request answered so far (oldest first), of one endpoint and credential when named."""
        return [
            logged
            for logged in list(self.state.rate_limits.log)
            if (endpoint is None or logged.endpoint == endpoint)
            and (credential is None or logged.credential == credential)
        ]

    def set_webhook_endpoint(self, credential: str, url: str) -> dict:
        """As the provider's webhook portal does (tui/simulator/webhooks.py): {"url", "secrets"}."""
        return self.state.webhooks.set_url(credential, url)

    def rotate_webhook_secret(self, credential: str, *, grace_seconds: float | None = None) -> str:
        """A new signing secret; the old one stays valid for the grace (24 h unless given)."""
        from .webhooks import ROTATION_GRACE_SECONDS

        return self.state.webhooks.rotate(
            credential, grace_seconds=ROTATION_GRACE_SECONDS if grace_seconds is None else grace_seconds
        )

    def webhook_attempts(self, event_type: str | None = None) -> list[dict]:
        """Every webhook delivery attempt so far (credential, msgId, type, attempt, outcome, url, at)."""
        return [a for a in list(self.state.webhooks.attempts) if event_type is None or a["type"] == event_type]

    def payouts_for(self, token: str) -> list[dict]:
        """Payouts recorded for one weblink (raw token, `%3D` as on the wire): 0 or 1."""
        payout = self.state.payouts.payouts.get(token)
        return [payout.inspect()] if payout else []

    def callback_attempts(self, request_id: str | None = None) -> list[dict]:
        """Every callback delivery attempt so far (url, requestId, attempt, outcome, at)."""
        attempts = list(self.state.notifier.attempts)
        return [a for a in attempts if request_id is None or a["requestId"] == request_id]

    def _bind(self) -> socket.socket:
        if self._listener is not None:
            self._socket = self._listener
            return self._listener
        # Binding ourselves makes port 0 usable: the real port is known before serving.
        # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so,
        # and without it keep-alive requests wait ~40 ms on delayed ACKs.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.settings.host, self.settings.port))
        sock.listen(128)  # connections queue from here on, even before uvicorn serves
        sock.set_inheritable(True)
        self._socket = sock
        return sock
