"""The bar at the top of every screen: profile, environment, account, read-only.

Production must be unmistakable (DESIGN rule 7): the bar turns red and says
PRODUCTION in words, not only in colour.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def describe(context: Context) -> str:
    if context.profile is None:
        return " giftdesk │ no profile"
    parts = [
        " giftdesk",
        f"profile {context.profile}",
        (context.environment or "?").upper(),
        f"account {context.account}" if context.account else "no account chosen",
    ]
    if context.readonly:
        parts.append("READ-ONLY")
    if context.demo:
        parts.append("demo")
    if context.watching or context.attention:
        parts.append(f"watching {context.watching} · {context.attention} need attention")
    return " │ ".join(parts)


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

    def show_context(self, context: Context) -> None:
        self.update(safe(describe(context)))  # the account's currency came from the service
        self.set_class(context.environment == "production", "-production")
        self.set_class(context.readonly, "-readonly")
