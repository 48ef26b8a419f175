"""Where giftdesk keeps its local files, and how it writes them safely.

Shared by tui.local.config, tui.local.storage and tui.local.logs so that there is one atomic
writer and one place that knows the directories. No Textual, no pydantic:
this module is imported on every command's start.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

APP_NAME = "giftdesk"
PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700


def _platform_dir(kind: str) -> Path:
    import platformdirs  # lazy: only needed when no override is set

    getter = getattr(platformdirs, f"user_{kind}_dir")
    return Path(getter(APP_NAME, appauthor=False))


def config_path(environ: Mapping[str, str] = os.environ) -> Path:
    """The profiles file: GIFTDESK_CONFIG, else <user config dir>/giftdesk/config.toml."""
    override = environ.get("GIFTDESK_CONFIG")
    return Path(override) if override else _platform_dir("config") / "config.toml"


def data_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Audit log, recent orders, chosen accounts: GIFTDESK_DATA_DIR, else the user data dir."""
    override = environ.get("GIFTDESK_DATA_DIR")
    return Path(override) if override else _platform_dir("data")


def log_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Log files: GIFTDESK_LOG_DIR, else the user log dir."""
    override = environ.get("GIFTDESK_LOG_DIR")
    return Path(override) if override else _platform_dir("log")


def cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """What giftdesk can do without and make again (the catalog's first page as the last start drew it):
    GIFTDESK_CACHE_DIR, else the user cache dir. The demo's folder does not move it: a demo's next start
    draws the page its last one kept."""
    override = environ.get("GIFTDESK_CACHE_DIR")
    return Path(override) if override else _platform_dir("cache")


def mirror_path(profile_name: str, environment: str) -> Path:
    """The catalog mirror (tui.local.mirror): one database per profile and environment (profile
    names are file-safe: tui.local.config)."""
    return data_dir() / "catalog" / f"{profile_name}-{environment}.sqlite3"


def ensure_private_dir(path: Path) -> None:
    """Create `path` (and parents) readable by the owner only, if it does not exist yet.

    An existing directory keeps its mode: it may be shared on purpose (e.g. $HOME/.config).
    """
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` all at once, mode 0600.

    A temp file in the same directory is written, fsynced and renamed over the
    target, so a crash leaves either the old file or the new one, never half of each.
    """
    ensure_private_dir(path.parent)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as tmp:
            os.fchmod(tmp.fileno(), PRIVATE_FILE_MODE)  # mkstemp gives 0600 already; be explicit
            tmp.write(data)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    # Makes the rename itself durable; not every platform allows opening a directory.
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def append_line(path: Path, line: bytes) -> None:
    """Append one newline-terminated record with a single write on an O_APPEND fd, then fsync.

    If an earlier crash left a torn last line (no trailing newline), a newline is
    written first so that the new record never glues onto the broken one.
    """
    if not line.endswith(b"\n"):
        raise ValueError("a record must end with a newline")
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, PRIVATE_FILE_MODE)
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


TAIL_BYTES = 64 * 1024  # more than any one record: the last line is within it


def append_chained(
    path: Path, make_line: Callable[[list[bytes]], bytes], then: Callable[[], None] | None = None
) -> None:
    """`append_line` of `make_line(the file's last lines, oldest first)`, under an exclusive lock, so
    that two processes appending at once each see the other's line (the audit chain's previous hash);
    `then()` after it, still under the lock (the chain's head follows the line in the same order)."""
    import fcntl

    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, PRIVATE_FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        tail = os.pread(fd, min(size, TAIL_BYTES), max(0, size - TAIL_BYTES))
        lines = tail.splitlines()[1 if size > TAIL_BYTES else 0 :]  # the first may be cut by the tail's start
        append_line(path, make_line(lines))
        if then is not None:
            then()
    finally:
        os.close(fd)  # and the lock with it
