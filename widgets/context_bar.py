"""The bar at the top of every screen: profile, environment, account, read-only.

Production must be unmistakable (DESIGN rule 7): the bar turns red and says
PRODUCTION in words, not only in colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from textual.widgets import Static

from widgets.safe_text import safe


@dataclass(frozen=True)
class Context:
    profile: str | None = None
    environment: str | None = None  # "sandbox" | "production"
    account: str | None = None  # e.g. "1001 USD"
    readonly: bool = False
    demo: bool = False
    watching: int = 0  # watch list: items not final yet
    attention: int = 0  # watch list: items that ended badly
    team: str | None = None  # team mode: "team", or "team database unreachable, retrying"; None: local
    unknown_outcomes: int = 0  # money actions whose outcome is unknown, until checked (`giftdesk audit pending`)


def describe(context: Context, width: int | None = None) -> str:
    """The bar's text: the longest form that fits `width` (what matters most is kept in every form)."""
    forms = [_parts(context, short) for short in (0, 1, 2)]
    if width is None:
        return " │ ".join(forms[0])
    for parts in forms:
        text = " │ ".join(parts)
        if cell_len(text) <= width:
            return text
    shortest = forms[-1]
    return _squeezed(shortest, width, [0] + ([shortest.index(context.team)] if context.team in shortest else []))


SQUEEZABLE = 12  # a profile name or the team's words are cut to no fewer cells than this (with "…")


def _squeezed(parts: list[str], width: int, squeezable: list[int]) -> str:
    """Even the shortest form is too wide (a long profile name, the team's words): the longest of those two is
    cut with "…", so the watch counts at the end stay whole instead of ending in a bare `watching`."""
    parts = list(parts)
    while (over := cell_len(" │ ".join(parts)) - width) > 0:
        candidates = [i for i in squeezable if len(parts[i]) > SQUEEZABLE]
        if not candidates:
            break
        longest = max(candidates, key=lambda i: len(parts[i]))
        parts[longest] = parts[longest][: max(SQUEEZABLE - 1, len(parts[longest]) - over - 1)] + "…"
    return " │ ".join(parts)


def _parts(context: Context, short: int) -> list[str]:
    """Short 0: every word; 1: the app's name and the labels dropped; 2: the watch counts in signs too."""
    if context.profile is None:
        return [" giftdesk", "no profile"]
    parts = [] if short else [" giftdesk"]
    parts += [
        f" {context.profile}" if short else f"profile {context.profile}",
        (context.environment or "?").upper(),
        (context.account if short else f"account {context.account}")
        if context.account
        else ("no account" if short else "no account chosen"),
    ]
    if context.readonly:
        parts.append("READ-ONLY")
    if context.demo:
        parts.append("demo")
    if context.team:
        parts.append(context.team)
    if context.unknown_outcomes:
        parts.append(
            f"⚠ {context.unknown_outcomes} unknown"
            if short >= 2
            else f"⚠ {context.unknown_outcomes} outcome(s) unknown: giftdesk audit pending"
        )
    if context.watching or context.attention:
        parts.append(
            f"watch {context.watching} · ⚑ {context.attention}"
            if short >= 2
            else f"watching {context.watching} · {context.attention} need attention"
        )
    return parts


class ContextBar(Static):
    DEFAULT_CSS = """
    ContextBar {
        dock: top;
        height: 1;
        width: 100%;
        background: $primary-background;
        color: $text;
        text-style: bold;
    }
    ContextBar.-production {
        background: $error;
        color: $text;
    }
    ContextBar.-readonly {
        text-style: bold italic;
    }
    """

    def on_mount(self) -> None:
        self.watch(self.app, "context", self.show_context)

    shown = Context()

    def on_resize(self) -> None:
        self.show_context(self.shown)

    shown_text = ""

    def show_context(self, context: Context) -> None:
        self.shown = context
        text = describe(context, self.size.width or None)
        if text != self.shown_text:  # the app sets its context on every change of the watch list's counts
            self.shown_text = text
            # The account's currency came from the service: shown literally. One line, always: no layout.
            self.update(safe(text), layout=False)
        self.set_class(context.environment == "production", "-production")
        self.set_class(context.readonly, "-readonly")
