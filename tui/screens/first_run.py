"""Shown when there is no profile yet: how to add one, or try the demo."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Markdown, Static

from tui.screens.base import BaseScreen
from widgets.safe_text import safe

_TEXT = """\
# Welcome to giftdesk

There is no profile yet. A profile is one set of API credentials for one
environment (sandbox or production) of the gift-card service.

**Add one here** on the Profiles screen (press `6`), or from a shell:

```
giftdesk profiles add support-sandbox \\
    --environment sandbox --base-url https://api.example.com \\
    --client-id YOUR_ID --secret-env GIFTDESK_SECRET
```

The secret itself is never written to the config file: it comes from the
system keyring, an environment variable, or a command (a password manager).

**Or just look around:** the demo runs a local simulator of the service, with a
sandbox and a production profile. Nothing to configure, no real money.
"""


class FirstRunScreen(BaseScreen):
    destination = "first-run"
    BINDINGS = [Binding("d", "demo", "Start the demo", id="first-run.demo")]

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="first-run"):
            problem = self.app.config_problem
            if problem:
                yield Markdown("> **The config file could not be read, and was left as it is.**")
                yield Static(safe(problem, multiline=True), id="config-problem")  # may quote the file
            yield Markdown(_TEXT)
            with Horizontal(id="first-run-actions"):
                yield Button("Start the demo (d)", id="demo", variant="primary")
                yield Button("Add a profile (6)", id="profiles")

    @on(Button.Pressed, "#demo")
    async def action_demo(self) -> None:
        await self.app.start_demo()

    @on(Button.Pressed, "#profiles")
    async def open_profiles(self) -> None:
        await self.app.navigate("profiles")
