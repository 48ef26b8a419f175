"""What the app is started with (`AppSettings`, which tui.startup reads from the config or the demo, and tests
build), and the cyclic collector's pause on the way to the first frame. No Textual: tui.startup imports it
before Textual loads."""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from tui.demo import DemoBackend
    from tui.local.config import Profile
    from tui.local.config_file import ProfileStore
    from tui.team.mode import TeamMode

# The command line starts the TUI with the cyclic collector off: it resumes after the start screen's first
# content, or this long after mounting at the latest (a loaded machine's first rows came after 3 s, and the
# collection, ~0.3 s there, came before them).
START_COLLECTOR_PAUSE_SECONDS = 10.0


@dataclass
class AppSettings:
    """Everything the app is started with; tests build their own."""

    store: ProfileStore | None = None  # None in the demo: its profiles live in memory only
    profiles: dict[str, Profile] = field(default_factory=dict)
    profile_name: str | None = None
    readonly: bool = False
    order: str | None = None
    demo: DemoBackend | None = None
    client_options: dict[str, Any] = field(default_factory=dict)  # e.g. retry=RetryPolicy(...) in tests
    config_problem: str | None = None  # a config that could not be read: shown, never overwritten
    # The config's look and keys (docs/decisions.md, issue 17): sandbox theme, status palette, keymap.
    theme: str | None = None
    palette: str = "standard"
    keymap: dict[str, str] = field(default_factory=dict)
    user: str | None = None  # who signs notes (the config's `user`, else the OS user)
    team: TeamMode | None = None  # team mode: the shared stores (tui.team); None: this machine's
    # The file of the styles parsed at the last start, which answer this one's (widgets.kept_styles); None: parse all.
    kept_styles: Path | None = None


def resume_collector() -> None:
    """Collect what the start left, keep the rest out of every later full collection, and go on collecting
    (once: the collector on means it was resumed, or never paused)."""
    if gc.isenabled():
        return
    gc.collect()
    gc.freeze()  # modules, styles, widgets: what the start made lives as long as the app
    gc.enable()
