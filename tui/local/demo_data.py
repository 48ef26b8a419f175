"""The demo's own data folder: `--demo` never touches the real audit log, recent orders, chosen
accounts, exports, screenshots or log.

A demo's simulator starts fresh every run, so what the demo records (audit
entries, recent RequestIds, the chosen account, its log) is about a service that
is gone when it ends. All of it, and the exports and screenshots a person asks
for, go to a new temporary folder (0700), removed however the demo ends: at exit,
and by the demo's simulator process when this one is gone (tui.demo), killed or
not. The demo catalog's first page as the last demo start showed it
(`read_first_page`) is the one thing kept outside: the Catalog screen shows it at
once on the next start, while the demo service starts; it holds only the
simulator's made-up catalog.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

from tui.local.fileio import atomic_write, data_dir

DEMO_DIR_PREFIX = "giftdesk-demo-"
FIRST_PAGE_VARIABLE = "GIFTDESK_DEMO_FIRST_PAGE"  # set in demo mode only: the file of the page kept
FIRST_PAGE_FILE = "demo-catalog-first-page.json"
# Where else giftdesk writes, each into the demo's folder (the audit log and the rest follow GIFTDESK_DATA_DIR).
DEMO_SUBFOLDERS = {"GIFTDESK_LOG_DIR": "log", "GIFTDESK_EXPORT_DIR": "exports", "GIFTDESK_SCREENSHOT_DIR": "screenshots"}


def enter_demo_data_dir(environ: MutableMapping[str, str] = os.environ) -> Path:
    """Point GIFTDESK_DATA_DIR at a fresh demo folder for the rest of this process; returns it."""
    current = environ.get("GIFTDESK_DATA_DIR", "")
    if Path(current).name.startswith(DEMO_DIR_PREFIX):
        return Path(current)  # already in one (the first-run screen's demo after a --demo start, say)
    environ.setdefault(FIRST_PAGE_VARIABLE, str(data_dir(environ) / FIRST_PAGE_FILE))
    folder = Path(tempfile.mkdtemp(prefix=DEMO_DIR_PREFIX))  # 0700
    environ["GIFTDESK_DATA_DIR"] = str(folder)
    for variable, name in DEMO_SUBFOLDERS.items():
        environ[variable] = str(folder / name)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def keeping_first_page(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether this process keeps the demo's first page (the demo does; nothing else)."""
    return bool(environ.get(FIRST_PAGE_VARIABLE))


def read_first_page(environ: Mapping[str, str] = os.environ) -> dict[str, Any] | None:
    """The first catalog page as the last demo start showed it; None outside the demo, before
    a first demo start, or when the file cannot be read (it is only a head start)."""
    path = environ.get(FIRST_PAGE_VARIABLE)
    if not path:
        return None
    try:
        page = json.loads(Path(path).read_bytes())
    except (OSError, ValueError):
        return None
    return page if isinstance(page, dict) else None


def write_first_page(page: dict[str, Any], environ: Mapping[str, str] = os.environ) -> None:
    """Keep the demo's first catalog page for the next start (no-op outside the demo).

    A folder that cannot be written only costs the next start its head start: not an error to show."""
    path = environ.get(FIRST_PAGE_VARIABLE)
    if path:
        with contextlib.suppress(OSError):
            atomic_write(Path(path), json.dumps(page, ensure_ascii=False).encode())
