"""Parse what a person types after `:` (k9s-style jump-to).

`:order REQ-123`, `:profile production`, `:payout TOKEN`, `:catalog tea` (or a
brand id), `:rates eur`, or a screen name (`:audit`). No Textual here, so it is tested on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.navigation import BY_NAME

# Screens whose jump takes an argument (their screen's `accept_jump`): an order's RequestId,
# a payout weblink or card code, a profile name, a brand id or name for the catalog, a base currency.
_TAKES_ARGUMENT = {"order", "payout", "profiles", "catalog", "rates"}
# Short forms a person types without thinking.
_ALIASES = {
    "o": "order",
    "p": "payout",
    "payouts": "payout",
    "profile": "profiles",
    "account": "accounts",
    "acct": "accounts",
    "cat": "catalog",
    "notif": "notifications",
    "?": "help",
}


QUIT = "quit"  # `:q`, `:quit`, `:q!` (vi's and k9s's habit): not a screen, the app ends
_QUITS = {"q", "q!", "quit", "exit"}


def completions() -> list[str]:
    """What tab completes after `:`: every screen's name and the short forms, `quit` last."""
    return [*BY_NAME, *(alias for alias in _ALIASES if len(alias) > 2), QUIT]


class JumpError(ValueError):
    """The text is not a jump-to command; the message says what is."""


@dataclass(frozen=True)
class Jump:
    destination: str  # a name in tui.core.navigation.DESTINATIONS, or QUIT
    argument: str | None = None


def parse_jump(text: str) -> Jump:
    words = text.strip().lstrip(":").split(maxsplit=1)
    if not words:
        raise JumpError(usage())
    name = _ALIASES.get(words[0].lower(), words[0].lower())
    argument = words[1].strip() if len(words) > 1 else None
    if name in _QUITS and argument is None:
        return Jump(QUIT)
    if name not in BY_NAME:
        raise JumpError(f"Unknown jump '{words[0]}'. {usage()}")
    if argument and name not in _TAKES_ARGUMENT:
        raise JumpError(f":{words[0]} takes no argument. {usage()}")
    return Jump(name, argument)


def usage() -> str:
    screens = ", ".join(BY_NAME)
    return (
        f"Try :order REQUEST_ID, :payout TOKEN, :profile NAME, :catalog BRAND, :rates CUR, :q to quit, "
        f"or a screen: {screens}."
    )
