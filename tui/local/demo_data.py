"""The demo's own data folder: `--demo` never touches the real audit log, recent orders, chosen
accounts, exports, screenshots or log.

A demo's simulator starts fresh every run, so what the demo records (audit
entries, recent RequestIds, the chosen account, its log) is about a service that
is gone when it ends. All of it, and the exports and screenshots a person asks
for, go to a new temporary folder (0700), removed however the demo ends: at exit,
and by the demo's simulator process when this one is gone (tui.demo), killed or
not. Nothing else is written outside it: the one thing a demo keeps between
starts is the catalog's first page its start drew, in the cache dir, as every
profile keeps its own (tui.local.first_pages).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import MutableMapping
from pathlib import Path

DEMO_DIR_PREFIX = "giftdesk-demo-"
# Where else giftdesk writes, each into the demo's folder (the audit log and the rest follow GIFTDESK_DATA_DIR).
DEMO_SUBFOLDERS = {
    "GIFTDESK_LOG_DIR": "log",
    "GIFTDESK_EXPORT_DIR": "exports",
    "GIFTDESK_SCREENSHOT_DIR": "screenshots",
}


def enter_demo_data_dir(environ: MutableMapping[str, str] = os.environ) -> Path:
    """Point GIFTDESK_DATA_DIR at a fresh demo folder for the rest of this process; returns it."""
    current = environ.get("GIFTDESK_DATA_DIR", "")
    if Path(current).name.startswith(DEMO_DIR_PREFIX):
        return Path(current)  # already in one (the first-run screen's demo after a --demo start, say)
    folder = Path(tempfile.mkdtemp(prefix=DEMO_DIR_PREFIX))  # 0700
    environ["GIFTDESK_DATA_DIR"] = str(folder)
    for variable, name in DEMO_SUBFOLDERS.items():
        environ[variable] = str(folder / name)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
