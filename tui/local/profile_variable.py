"""Which profile a start names: --profile, else $GIFTDESK_PROFILE. Light on purpose: the command line's options and
the TUI's plain start (tui.launch, which imports no click) both read it before anything else is loaded."""

from __future__ import annotations

import os
from collections.abc import Mapping

PROFILE_VARIABLE = "GIFTDESK_PROFILE"  # names the profile, like --profile (DESIGN "Command line contract")


def profile_name(flag: str | None, demo: bool, environ: Mapping[str, str] = os.environ) -> str | None:
    """The profile a command or the TUI opens by name: --profile, else GIFTDESK_PROFILE (ignored with --demo)."""
    if flag or demo:
        return flag or None
    return environ.get(PROFILE_VARIABLE) or None
