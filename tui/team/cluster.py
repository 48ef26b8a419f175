"""A throwaway PostgreSQL cluster: initdb + pg_ctl in a temporary folder, on a free loopback port.

For `giftdesk --demo --team` and the tests (tests/pg_fixtures.py). The server
refuses to run as root, so under root every server command runs as the
`postgres` user (`runuser -u postgres --`), which the distribution's server
package creates. It trusts loopback connections and is tuned for throwing
away, not for keeping data: no fsync, nothing synchronous. No Textual.
"""

from __future__ import annotations

import glob
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

HOW_TO_GET = (
    "install the PostgreSQL server: `apt-get install postgresql` (Debian, Ubuntu), `dnf install postgresql-server` "
    "(Fedora), `brew install postgresql@16` (macOS); or set PG_BINDIR to the folder holding initdb and pg_ctl"
)


def server_bindir() -> Path | None:
    """Where initdb and pg_ctl are: $PG_BINDIR, the PATH, else the newest /usr/lib/postgresql/N/bin."""
    candidates = [os.environ.get("PG_BINDIR", "")]
    on_path = shutil.which("initdb")
    candidates.append(str(Path(on_path).parent) if on_path else "")
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(Path(path).parent.name), reverse=True
    )
    for folder in filter(None, candidates):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ClusterError(RuntimeError):
    """A server command failed; the message holds its output."""


@dataclass
class Cluster:
    bindir: Path
    folder: Path
    port: int
    # While stopped, its port is held by a socket of ours, so that no other cluster picking a free port takes it
    # (seen: another test's cluster came up on a stopped one's port, and the restart found it taken).
    _held: socket.socket | None = field(default=None, repr=False)

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _command(self, *args: str) -> list[str]:
        command = [str(self.bindir / args[0]), *args[1:]]
        return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command

    def _run(self, *args: str) -> None:
        command = self._command(*args)
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise ClusterError(f"{' '.join(args[:2])} failed ({result.returncode}): {result.stderr or result.stdout}")

    def start(self) -> None:
        if self._held is not None:
            self._held.close()
            self._held = None
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            "pg_ctl",
            "start",
            "-w",
            "-t",
            "60",
            "-D",
            str(self.data),
            "-l",
            str(self.folder / "server.log"),
            "-o",
            options,
        )

    def stop(self) -> None:
        # "fast", not "immediate": with synchronous_commit off, an immediate stop is a crash that may lose the last
        # commits (a role just made: "role ana does not exist" after the restart, seen under load).
        self._run("pg_ctl", "stop", "-w", "-m", "fast", "-D", str(self.data))
        held = socket.socket()
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            held.bind(("127.0.0.1", self.port))
        except OSError:  # taken already: the restart will say so
            held.close()
            return
        self._held = held

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def create_database(self) -> str:
        """A new empty database of its own (a test's, the demo's); its URL."""

        name = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def running_cluster(bindir: Path) -> Iterator[Cluster]:
    """initdb, start; on leaving, stop and remove everything."""
    folder = Path(tempfile.mkdtemp(prefix="giftdesk-pg-"))
    try:
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        cluster = Cluster(bindir, folder, _free_port())
        cluster._run("initdb", "-D", str(cluster.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        cluster.start()
        guard = _guard(cluster)
        try:
            yield cluster
        finally:
            guard.terminate()
            if cluster.running():
                cluster.stop()
            if cluster._held is not None:  # gone for good: its port is nobody's to keep
                cluster._held.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _guard(cluster: Cluster) -> subprocess.Popen[bytes]:
    """A watcher that stops and removes the cluster if this process dies without doing it (killed by a
    signal, a test run's timeout): a throwaway cluster outlives nobody. Stopped first on a normal exit."""
    stop = " ".join(
        shlex.quote(part) for part in cluster._command("pg_ctl", "stop", "-m", "immediate", "-D", str(cluster.data))
    )
    script = (
        f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done; "
        f"{stop} >/dev/null 2>&1; rm -rf {shlex.quote(str(cluster.folder))}"
    )
    return subprocess.Popen(
        ["sh", "-c", script],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
