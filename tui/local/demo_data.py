"""The demo's own data folder: `--demo` never touches the real audit log, recent orders or chosen accounts.

A demo's simulator starts fresh every run, so what the demo records (audit
entries, recent RequestIds, the chosen account) is about a service that is gone
when it ends. It goes to a new temporary folder (0700), removed at exit.
Exports and screenshots are what a person asked for: they stay in the real
folders, said in their toasts.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import MutableMapping
from pathlib import Path

from tui.local.exports import export_dir, screenshot_dir

DEMO_DIR_PREFIX = "giftdesk-demo-"


def enter_demo_data_dir(environ: MutableMapping[str, str] = os.environ) -> Path:
    """Point GIFTDESK_DATA_DIR at a fresh demo folder for the rest of this process; returns it."""
    current = environ.get("GIFTDESK_DATA_DIR", "")
    if Path(current).name.startswith(DEMO_DIR_PREFIX):
        return Path(current)  # already in one (the first-run screen's demo after a --demo start, say)
    environ.setdefault("GIFTDESK_EXPORT_DIR", str(export_dir(environ)))
    environ.setdefault("GIFTDESK_SCREENSHOT_DIR", str(screenshot_dir(environ)))
    folder = Path(tempfile.mkdtemp(prefix=DEMO_DIR_PREFIX))  # 0700
    environ["GIFTDESK_DATA_DIR"] = str(folder)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
