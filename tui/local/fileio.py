"""Where giftdesk keeps its local files, and how it writes them safely.

Shared by tui.local.config, tui.local.storage and tui.local.logs so that there is one atomic
writer and one place that knows the directories. No Textual, no pydantic:
this module is imported on every command's start.
"""

from __future__ import annotations

import os
import stat
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


AUDIT_FILE = "audit.jsonl"  # the money actions' log (tui.local.storage), in the data folder


def audit_path() -> Path:
    return data_dir() / AUDIT_FILE


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
    """Create `path`, and each of its parents that is missing, readable by the owner only (0700, whatever
    the umask: `mkdir(parents=True)` gives the parents the umask's mode, 0777 under umask 000).

    An existing directory keeps its mode: it may be shared on purpose (e.g. $HOME/.config).
    """
    missing = []
    for folder in (path, *path.parents):
        if folder.is_dir():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR_MODE)
        except FileExistsError:
            if not folder.is_dir():
                raise
            continue  # another process made it meanwhile (0700 too)
        os.chmod(folder, PRIVATE_DIR_MODE)  # a umask taking the owner's own bits away leaves it unusable


class NotPrivateFile(OSError):
    """One of giftdesk's files is not its own regular file: a symbolic link, something else than a file,
    or another user's. Never written to, never read: someone replaced it."""


def _checked(path: Path, info: os.stat_result) -> None:
    """NotPrivateFile unless `info` (of `path`, not followed) is a regular file of this user."""
    if stat.S_ISLNK(info.st_mode):
        found = f"a symbolic link to {os.readlink(path)}"
    elif not stat.S_ISREG(info.st_mode):
        found = "not a regular file"
    elif info.st_uid != os.getuid():
        found = f"a file of another user (uid {info.st_uid})"
    else:
        return
    raise NotPrivateFile(
        f"{path} is {found}, not giftdesk's own file: it was replaced. giftdesk neither reads nor writes it; "
        "move it aside (and find out who replaced it)"
    )


def open_private(path: Path, flags: int) -> int:
    """`os.open` of one of giftdesk's own files (created 0600 with O_CREAT), never through a symbolic link,
    and checked to be this user's regular file (NotPrivateFile otherwise)."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, PRIVATE_FILE_MODE)
    except OSError as error:
        if not isinstance(error, FileNotFoundError) and os.path.islink(path):
            _checked(path, os.lstat(path))
        raise
    try:
        _checked(path, os.fstat(fd))
    except NotPrivateFile:
        os.close(fd)
        raise
    return fd


def read_private(path: Path) -> bytes:
    """The whole of one of giftdesk's own files (b"" when there is none); NotPrivateFile when it was replaced."""
    try:
        fd = open_private(path, os.O_RDONLY)
    except FileNotFoundError:
        return b""
    with os.fdopen(fd, "rb") as file:
        return file.read()


def mentions(path: Path, text: str) -> bool:
    """Whether one of giftdesk's own files holds `text` (False for one missing or replaced): a cheap look
    before parsing it."""
    try:
        return text.encode() in read_private(path)
    except OSError:
        return False


def ensure_private_file(path: Path) -> None:
    """Create `path` empty and private (0600, in a 0700 folder) when it is missing; either way, check that
    it is this user's own regular file, not a symbolic link (NotPrivateFile): for a database SQLite opens."""
    ensure_private_dir(path.parent)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC, PRIVATE_FILE_MODE))
    except FileExistsError:
        _checked(path, os.lstat(path))


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
    fd = open_private(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
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
    fd = open_private(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
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
