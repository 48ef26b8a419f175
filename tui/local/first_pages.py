"""The catalog's first page as the last start drew it, kept per profile and environment.

The next start draws it in its first frame, labelled with its age, while the
live page is asked for; the live page replaces it (tui/screens/catalog.py).
The file is a cache (<cache dir>/first-pages/, 0600, written atomically): one
that is missing, unreadable or of another shape only costs a start its head
start, so none of that is an error to show. Its text came from the service:
whoever reads it shows it as outside text. No Textual here.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from tui.local.fileio import atomic_write, cache_dir

# A page of 100 brands as drawn is about 100 KB: a file far larger is not one, and reading it would hold up a start.
MAX_FILE_BYTES = 4 * 1024 * 1024


def first_page_path(mirror_name: str, environment: str, *, demo: bool) -> Path:
    """A profile's kept first page (`mirror_name`: tui.local.config.Profile.mirror_name, file-safe);
    the demo's in a folder of its own, so that no real profile of the same name shows the demo's."""
    folder = cache_dir() / "first-pages"
    return (folder / "demo" if demo else folder) / f"{mirror_name}-{environment}.json"


def read_first_page(path: Path) -> dict[str, Any] | None:
    """The page kept at `path`, as written; None when there is none or it cannot be read."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            return None
        page = json.loads(data)
    except (OSError, ValueError, RecursionError):  # RecursionError: nested too deep to be a page
        return None
    return page if isinstance(page, dict) else None


def write_first_page(path: Path, page: dict[str, Any]) -> None:
    """Keep `page` for the next start; a folder that cannot be written costs only that head start."""
    with contextlib.suppress(OSError):
        atomic_write(path, json.dumps(page, ensure_ascii=False).encode())
