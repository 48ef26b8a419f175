"""The file of the app's styles as Textual parsed them at the last start (widgets.kept_styles), kept for the next.

A cache (<cache dir>/styles/parsed.pickle, 0600 in a 0700 folder, written atomically): one that is missing,
unreadable, too large or not to be trusted costs a start only its head start (~10 ms), so none of that is an error to
show. It is a pickle, and loading a pickle runs what it names, as loading a .pyc does: it is read only when it is this
user's own regular file (not a link) in this user's own folder, and neither is writable by anyone else, so that a
second local user cannot plant one whatever the umask was. No Textual here: the caller unpickles.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from tui.local.fileio import atomic_write, cache_dir, read_private

MAX_FILE_BYTES = 2 * 1024 * 1024  # the start's rules are ~70 KB
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def kept_styles_path() -> Path:
    return cache_dir() / "styles" / "parsed.pickle"


def read_kept_styles(path: Path) -> bytes | None:
    """The file's bytes when it can be trusted (see above), else None."""
    try:
        folder = os.stat(path.parent, follow_symlinks=False)
        if not stat.S_ISDIR(folder.st_mode) or folder.st_uid != os.getuid() or folder.st_mode & _OTHERS_WRITE:
            return None
        data = read_private(path)  # this user's own regular file, never through a link (else NotPrivateFile)
        if os.stat(path, follow_symlinks=False).st_mode & _OTHERS_WRITE:
            return None
    except OSError:
        return None
    return data if 0 < len(data) <= MAX_FILE_BYTES else None


def write_kept_styles(path: Path, data: bytes) -> None:
    """Keep `data` for the next start; a folder that cannot be written costs only that head start."""
    with contextlib.suppress(OSError):
        atomic_write(path, data)
