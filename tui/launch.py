"""The `giftdesk` command's door (and `python -m tui`'s): the start a person makes every day, `giftdesk` or
`giftdesk --demo`, opens the TUI without loading the command line's parser; anything else is the command line's
(tui.cli).

click costs that start about 13 ms of ~280 (issue 33, figure 1), for an argument list that has one meaning. Only these
exact lists take the plain way, and only when no shell is asking click to complete a word (`_GIFTDESK_COMPLETE`):
everything else, `--help` and typos included, meets click as before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

PLAIN_STARTS = {(): False, ("--demo",): True}  # argument list: whether it is the demo


def main() -> None:
    demo = PLAIN_STARTS.get(tuple(sys.argv[1:]))
    if demo is None or completing(os.environ):
        from tui.cli import main as command_line

        command_line()
        return
    from tui.startup import open_tui

    sys.exit(open_tui(demo=demo))


def completing(environ: Mapping[str, str]) -> bool:
    """Whether a shell asks click for completions (`_<PROG>_COMPLETE=...`, whatever the program is called)."""
    return any(name.startswith("_") and name.endswith("_COMPLETE") for name in environ)
