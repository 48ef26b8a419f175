"""Shared pytest fixtures: the embedded service simulator.

Fixtures (stable; other test modules rely on them):

- `sim`: one SimulatorServer per test session (per xdist worker), default
  seed 1, 300 brands, "fast" timing, no faults. Its state is shared, so use
  a fresh RequestId (e.g. uuid4) per order and do not drain account 1001.
  It enforces no rate limits (`limits=None`): hundreds of tests share its three
  credentials, and the provider's budget (4 transactions an hour) is one per
  credential.
- `demo_sim`: one SimulatorServer per test session with the settings of `giftdesk --demo`
  (tui.demo.demo_settings: 200 orders of past, place limits); shared like `sim`, so
  without rate limits either.
- `sim_factory(settings=None, **fields)`: start a server with custom
  SimulatorSettings (fields override `settings`, e.g.
  `sim_factory(faults="drop=1", timing=TIMING_PRESETS["fast"].replace(step_seconds=0.05))`);
  every server it started is stopped when the test ends. Without `settings` it
  enforces no rate limits unless the test asks (`limits=PROVIDER_LIMITS` from
  tui.simulator.rate_limits, or a shorter table).
- `unhurried_client` (autouse): GIFTDESK_LIMITS relaxes the client's table of the
  provider's limits (tui.api.limits) for tests that are not about them, whose
  simulators enforce none: catalog paging at 1 page a second alone would add
  minutes to the suite. Tests of the limits use `provider_limits` (DESIGN's table,
  as a user has it) or a stored profile's own `[limits]`.
- `isolated_dirs` (autouse): GIFTDESK_CONFIG, GIFTDESK_DATA_DIR, GIFTDESK_LOG_DIR and GIFTDESK_CACHE_DIR
  point into the test's tmp_path and the GIFTDESK_* profile and folder variables are
  unset (and put back after), so no test reads or writes the real user directories.
- `pg_cluster`, `team_url`, `own_cluster`: a real PostgreSQL (tests/pg_fixtures.py).
- `demo_credentials`: dict name -> DemoCredential ("acme-sandbox",
  "acme-production", "other-sandbox"); `.auth` is (client_id, client_secret)
  for httpx, `.environment` is "sandbox" or "production".

Credentials, accounts, showcase products and magic values: docs/simulator.md.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tui.api.limits import DEFAULT_LIMITS, LIMITS_VARIABLE
from tui.simulator import DEMO_CREDENTIALS, DemoCredential, SimulatorServer, SimulatorSettings

pytest_plugins = [
    "memory_keyring",
    "hostile_walk",
    "pg_fixtures",
]  # the in-memory keyring; the hostile simulator (hostile_sim, walk_data); PostgreSQL (pg_cluster, team_url, own_cluster)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch) -> Iterator[None]:
    monkeypatch.setenv("GIFTDESK_CONFIG", str(tmp_path / "config" / "config.toml"))
    monkeypatch.setenv("GIFTDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GIFTDESK_LOG_DIR", str(tmp_path / "log"))
    monkeypatch.setenv("GIFTDESK_CACHE_DIR", str(tmp_path / "cache"))  # the catalog's kept first pages
    # The folder variables too: a demo started in a test sets them for its process (tui.local.demo_data).
    for variable in (
        "GIFTDESK_BASE_URL",
        "GIFTDESK_CLIENT_ID",
        "GIFTDESK_CLIENT_SECRET",
        "GIFTDESK_ENVIRONMENT",
        "GIFTDESK_EXPORT_DIR",
        "GIFTDESK_SCREENSHOT_DIR",
        "GIFTDESK_DATABASE_URL",
    ):
        monkeypatch.delenv(variable, raising=False)
    # The log handlers too: one a demo installed into its temp folder outlives the test otherwise.
    root = logging.getLogger()
    handlers = list(root.handlers)
    levels = {name: logging.getLogger(name).level for name in (None, "httpx", "httpcore")}  # --debug sets them
    yield
    for handler in [h for h in root.handlers if h not in handlers]:
        root.removeHandler(handler)
        handler.close()
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


RELAXED_LIMITS = ",".join(f"{endpoint}=10000/s" for endpoint in DEFAULT_LIMITS)


@pytest.fixture(autouse=True)
def unhurried_client(monkeypatch) -> None:
    monkeypatch.setenv(LIMITS_VARIABLE, RELAXED_LIMITS)


@pytest.fixture
def provider_limits(monkeypatch) -> None:
    """The client keeps DESIGN's table of the provider's limits, as it does for a user."""
    monkeypatch.delenv(LIMITS_VARIABLE)


@pytest.fixture(scope="session")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(SimulatorSettings(limits=None)) as server:
        yield server


@pytest.fixture(scope="session")
def demo_sim() -> Iterator[SimulatorServer]:
    """The simulator `giftdesk --demo` runs (its past of orders, the provider's pacing), one per session."""
    from tui.demo import demo_settings

    with SimulatorServer(dataclasses.replace(demo_settings(), limits=None)) as server:  # shared: see `sim`
        yield server


@pytest.fixture
def sim_factory() -> Iterator[Callable[..., SimulatorServer]]:
    started: list[SimulatorServer] = []

    def start(settings: SimulatorSettings | None = None, **fields) -> SimulatorServer:
        base = settings or SimulatorSettings(limits=None)  # no limits unless asked for (see above)
        server = SimulatorServer(dataclasses.replace(base, **fields)).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def demo_credentials() -> dict[str, DemoCredential]:
    return {credential.name: credential for credential in DEMO_CREDENTIALS}


# `make test-fast` runs the tests that need no other process, no PostgreSQL, no pty and no running app
# (`-m "not outside and not screen"`): under a minute on 2 cores. Marked by what the code uses, so that a new test
# is sorted without anyone remembering to mark it: `outside` when its module reaches for a process or a pty, or it
# asks for a PostgreSQL fixture; `screen` when its module drives the TUI (Pilot, snapshots), the bulk of the time.
OUTSIDE_WORDS = re.compile(
    r"\b(subprocess|Popen|pty|pexpect|tmux|multiprocessing|ProcessPoolExecutor|os\.fork|giftdesk_process|mirror_sync)\b"
)  # mirror_sync: a sync starts the mirror's writer process
SCREEN_WORDS = re.compile(r"\b(run_test|app_on|pilot|snap_compare|Pilot)\b")
POSTGRES_FIXTURES = {"pg_cluster", "team_url", "own_cluster"}


@functools.cache
def module_text(module_path: str) -> str:
    return Path(module_path).read_text(encoding="utf-8")


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        text = module_text(str(item.path))
        if set(getattr(item, "fixturenames", ())) & POSTGRES_FIXTURES or OUTSIDE_WORDS.search(text):
            item.add_marker(pytest.mark.outside)
        if SCREEN_WORDS.search(text):
            item.add_marker(pytest.mark.screen)
