"""Notifications: where the service sends order callbacks, and a local listener to watch them arrive.

Configuration: production URL, sandbox URL and secret (masked unless shown on
request, or generated). Saving validates first (production must be https; an
empty production URL turns callbacks off, said plainly before saving), asks
for confirmation (typed in production), then POSTs and reads back with GET:
the read-back is shown, and a difference is an error (SPEC Events rule 6).

Listener: a loopback receiver (tui.listener_hub: callbacks and signed webhooks)
owned by the session, not the screen, so it keeps receiving while the person
places an order elsewhere; the screen hears of its changes by a message. What
it keeps goes to the profile's inbox (the team's in team mode), shown live
below it (also what `giftdesk listen` keeps); order events settle watched
orders after Get order (SPEC Events rule 4), product events sync the mirror.
When another process receives into the same inbox (its heartbeat is fresh),
the tab says which instead of "stopped".
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Static, TabbedContent, TabPane

from styles import STYLES
from tui.api.errors import ServiceError
from tui.api.models import NotificationConfig
from tui.api.redact import mask_secret, register_secret
from tui.core.names import CALLBACKS_PHRASE
from tui.listener_hub import ListenerHub
from tui.local.inbox import Delivery
from tui.local.storage import NOTIFICATION_CHANGE, audit_log
from tui.screens.base import BaseScreen
from widgets.confirm import ConfirmScreen
from widgets.fitted_table import FittedTable
from widgets.private import PRIVATE
from widgets.safe_text import VisibleControls, safe, safe_row

if TYPE_CHECKING:
    from tui.session import Session

PRODUCTION_PHRASE = CALLBACKS_PHRASE  # the CLI's `notifications set` asks the same (tui.core.names)
SECRET_BYTES = 32
CALLBACKS_OFF = (
    "Callbacks are OFF: the production URL is empty, so the service sends no callbacks at all, "
    "sandbox included (SPEC Events rule 2)."
)
FIELD_LABELS = {
    "notification_url": "production URL",
    "notification_url_sandbox": "sandbox URL",
    "secret_key": "secret key",
}


# --- rules, no widgets ---------------------------------------------------------------------


def url_problem(url: str, *, production: bool) -> str | None:
    """Why `url` cannot be saved, or None. Empty is allowed: for production it means callbacks off."""
    if not url:
        return None
    parts = urlsplit(url)
    schemes = ("https",) if production else ("https", "http")
    if parts.scheme.lower() not in schemes or not parts.hostname:
        if production:
            return "The production URL must be a public https:// URL (SPEC Events rule 5)."
        return "The sandbox URL must be an http:// or https:// URL."
    return None


def config_problem(config: NotificationConfig) -> str | None:
    return url_problem(config.notification_url, production=True) or url_problem(
        config.notification_url_sandbox, production=False
    )


def differing_fields(sent: NotificationConfig, stored: NotificationConfig) -> list[str]:
    return [label for name, label in FIELD_LABELS.items() if getattr(sent, name) != getattr(stored, name)]


def secret_change(wanted: NotificationConfig, previous: NotificationConfig | None) -> str:
    return "unchanged" if previous is not None and previous.secret_key == wanted.secret_key else "changed"


def save_summary(wanted: NotificationConfig, previous: NotificationConfig | None, session: Session) -> list[str]:
    lines = [
        f"Environment:    {session.environment.upper()} (profile {session.profile.name})",
        f"Production URL: {wanted.notification_url or '(empty)'}",
        f"Sandbox URL:    {wanted.notification_url_sandbox or '(empty)'}",
        f"Secret key:     {mask_secret(wanted.secret_key) or '(none)'} ({secret_change(wanted, previous)})",
    ]
    if not wanted.notification_url:
        lines += ["", CALLBACKS_OFF]
    return lines


# --- the inbox as shown ----------------------------------------------------------------------

INBOX_REFRESH_SECONDS = 2.0  # the inbox is read again this often: another process (`giftdesk listen`) may write to it


INBOX_COLUMNS = ("Received", "Kind", "Event id", "Verdict", "Outcome")


def row_cells(delivery: Delivery) -> tuple[Text, ...]:
    received = f"{delivery.received_at.astimezone():%H:%M:%S}"
    if not delivery.accepted:
        verdict = Text.assemble(("✗ refused: ", "bold yellow"), safe(delivery.reason, style="yellow"))
        return (
            *safe_row(received, delivery.kind, delivery.event_id),
            verdict,
            Text("nothing in it was used", style="dim"),
        )
    outcome = safe(delivery.outcome) if delivery.outcome else Text("processing…", style="dim")
    return (*safe_row(received, delivery.kind, delivery.event_id), Text("✓ accepted", style="green"), outcome)


# --- the screen ------------------------------------------------------------------------------


class NotificationsScreen(BaseScreen):
    destination = "notifications"
    CSS_PATH = STYLES / "notifications.tcss"
    # Generating only edits the form, but a form that cannot be saved should not be edited.
    WRITE_ACTIONS = frozenset({"save", "generate_secret", "use_listener_url"})
    AUTO_FOCUS = "Tabs"  # opens on Configuration; a table would pull the Listener tab forward
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="notifications.save"),
        Binding("r", "reload", "Reload", id="notifications.reload"),
        Binding("ctrl+r", "reload", "Reload", id="notifications.reload-in-form", show=False),  # from a text field
        Binding("ctrl+o", "toggle_secret", "Show/hide secret", id="notifications.reveal"),
        Binding("ctrl+g", "generate_secret", "Generate secret", id="notifications.generate", show=False),
        Binding("ctrl+l", "toggle_listener", "Listener on/off", id="notifications.listener"),
        Binding("ctrl+n", "use_listener_url", "Use as sandbox URL", id="notifications.use-url"),
        # The tabs' own keys (← →) work only while the tab strip has focus; this one works from the form too.
        Binding("ctrl+t", "other_tab", "Other tab", id="notifications.tab"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.stored: NotificationConfig | None = None  # as last read from the service
        self.hub: ListenerHub  # the session's, set on mount

    def compose_body(self) -> ComposeResult:
        readonly = self.app.readonly
        with TabbedContent(id="notifications-tabs"):
            with TabPane("Configuration", id="config-tab"), Vertical(id="config-form"):
                yield Static("Reading the configuration…", id="config-state")
                yield from _field(
                    "Production URL",
                    Input(
                        id="production-url",
                        disabled=readonly,
                        highlighter=VisibleControls(),
                        placeholder="https://… (empty: callbacks off)",
                    ),
                )
                yield from _field(
                    "Sandbox URL",
                    Input(
                        id="sandbox-url", disabled=readonly, highlighter=VisibleControls(), placeholder="http(s)://…"
                    ),
                )
                with Horizontal(classes="field"):
                    yield Label("Secret key", classes="field-label")
                    yield Input(id="secret", password=True, disabled=readonly, placeholder="(none)", classes=PRIVATE)
                    yield Button("Show", id="reveal")
                    if not readonly:
                        yield Button("Generate", id="generate")
                yield Static("", id="verdict")
                if not readonly:
                    with Horizontal(classes="actions"):
                        yield Button("Save", id="save", variant="primary")
            with TabPane("Listener", id="listener-tab"):
                yield Static("", id="listener-state")
                with Horizontal(classes="actions"):
                    yield Button("Start listener", id="listener-toggle")
                    if not readonly:
                        yield Button("Use as sandbox URL", id="use-url")
                yield FittedTable(id="inbox", cursor_type="row")

    def action_other_tab(self) -> None:
        tabs = self.query_one("#notifications-tabs", TabbedContent)
        tabs.active = "listener-tab" if tabs.active == "config-tab" else "config-tab"

    def on_mount(self) -> None:
        table = self.query_one("#inbox", DataTable)
        table.add_columns(*INBOX_COLUMNS)
        self._shown: list[tuple[str, str | None]] = []
        self.hub = ListenerHub.of(self.app.session, self.app.watch_list, self.app.team, self.app.notify)
        self.hub.on_change = self._hub_changed
        self.show_listener()
        # Live, whoever writes the inbox; and whether another process receives into it.
        self.set_interval(INBOX_REFRESH_SECONDS, self.show_listener)
        self.load()

    def on_unmount(self) -> None:
        if self.hub.on_change == self._hub_changed:
            self.hub.on_change = None

    class ListenerChanged(Message):
        """The session's receiver, or its inbox, changed."""

    def _hub_changed(self) -> None:
        self.post_message(self.ListenerChanged())

    def on_notifications_screen_listener_changed(self, _message: ListenerChanged) -> None:
        self.show_listener()

    # --- configuration -----------------------------------------------------------------

    def action_reload(self) -> None:
        self.load()

    _shown_before = False
    _under_dialog = False  # a dialog of this screen's (the save's confirmation) covered it: nothing to re-read

    def on_screen_suspend(self) -> None:
        self._under_dialog = isinstance(self.app.screen, ModalScreen)

    def on_screen_resume(self) -> None:
        # Shown again: `giftdesk notifications set` (or a teammate) may have changed it meanwhile (issue 35).
        if self._shown_before and not self._under_dialog:
            self.load(keep_edits=True)
        self._shown_before = True

    @work(exclusive=True, exit_on_error=False, group="config")
    async def load(self, keep_edits: bool = False) -> None:
        """GET notification into the form; `keep_edits`: a form edited and not saved keeps its edits (the
        service's values are read, and said when they changed)."""
        form = self.query_one("#config-form")
        before = self.stored
        edited = before is not None and bool(differing_fields(self._form(), before))
        form.loading = True
        try:
            self.stored = await (await self.app.session.client()).get_notifications()
        finally:
            form.loading = False
        changed = differing_fields(self.stored, before) if before is not None else []
        elsewhere = f" Changed elsewhere since last read: {', '.join(changed)}." if changed else ""
        if keep_edits and edited:
            self._say_state(
                f"Read again from the service.{elsewhere} Your unsaved edits are kept (r takes the service's)."
            )
        else:
            self._fill(self.stored)
            self._say_state(f"Read from the service (GET notification).{elsewhere}")
        self.show_verdict()  # also when nothing changed, e.g. an empty production URL

    def _fill(self, config: NotificationConfig) -> None:
        self.query_one("#production-url", Input).value = config.notification_url
        self.query_one("#sandbox-url", Input).value = config.notification_url_sandbox
        self.query_one("#secret", Input).value = config.secret_key

    def _form(self) -> NotificationConfig:
        return NotificationConfig(
            notification_url=self.query_one("#production-url", Input).value.strip(),
            notification_url_sandbox=self.query_one("#sandbox-url", Input).value.strip(),
            secret_key=self.query_one("#secret", Input).value,
        )

    def _say_state(self, text: str, style: str = "") -> None:
        self.query_one("#config-state", Static).update(safe(text, style=style))

    @on(Input.Changed)
    def show_verdict(self) -> None:
        """Live: what is wrong with the form, or that callbacks would be off."""
        wanted = self._form()
        problem = config_problem(wanted)
        verdict = self.query_one("#verdict", Static)
        if problem:
            verdict.update(safe(problem, style="bold red"))
        elif not wanted.notification_url:
            verdict.update(Text(CALLBACKS_OFF, style="bold yellow"))
        else:
            verdict.update("")

    def action_toggle_secret(self) -> None:
        secret = self.query_one("#secret", Input)
        secret.password = not secret.password
        self.query_one("#reveal", Button).label = "Show" if secret.password else "Hide"

    def action_generate_secret(self) -> None:
        secret = secrets.token_urlsafe(SECRET_BYTES)
        register_secret(secret)
        self.query_one("#secret", Input).value = secret
        self._say_state("A new secret was generated: save to use it.", "bold")

    def action_save(self) -> None:
        wanted = self._form()
        problem = config_problem(wanted)
        if problem:
            self.show_verdict()
            self.notify(problem, title="Not saved", severity="error")
            return
        phrase = PRODUCTION_PHRASE if self.app.is_production else None
        confirm = ConfirmScreen(
            "Save the callback configuration?",
            save_summary(wanted, self.stored, self.app.session),
            typed_phrase=phrase,
            confirm_label="Save",
        )

        def save_if_confirmed(confirmed: bool | None) -> None:
            if confirmed:
                self.save(wanted)

        self.app.push_screen(confirm, save_if_confirmed)

    @work(exclusive=True, exit_on_error=False, group="config")
    async def save(self, wanted: NotificationConfig) -> None:
        """POST, then GET: the read-back, not the POST's echo, says what is stored."""
        if self.app.readonly:
            return
        client = await self.app.session.client()
        previous = self.stored
        form = self.query_one("#config-form")
        form.loading = True
        try:
            current = await client.get_notifications()
            if previous is not None and (changed := differing_fields(current, previous)):
                # Changed elsewhere (a shell, a teammate) since this form was read: saving would overwrite it unseen.
                self.stored = current
                self._say_state(
                    f"Not saved: changed elsewhere since this form was read ({', '.join(changed)}). Your edits are "
                    "kept: check them against the service's (r shows those), then save again.",
                    "bold red",
                )
                self.notify("Changed elsewhere since it was read: nothing saved.", title="Not saved", severity="error")
                return
            await client.set_notifications(wanted)
            self.stored = await client.get_notifications()
        except ServiceError as error:
            self._audit(wanted, previous, f"failed: {error}")
            raise
        finally:
            form.loading = False
        differs = differing_fields(wanted, self.stored)
        self._fill(self.stored)
        if differs:
            self._audit(wanted, previous, "read-back differs: " + ", ".join(differs))
            self._say_state(
                f"Saved, but the read-back differs in: {', '.join(differs)}. Check the service.", "bold red"
            )
            self.notify(
                "The stored configuration differs from what was sent.", title="Read-back mismatch", severity="error"
            )
            return
        self._audit(wanted, previous, "saved; read-back matches")
        self.hub.expect_secret(self.stored.secret_key)
        self._say_state("Saved. Read back with GET notification: matches what was sent ✓", "bold green")

    def _audit(self, wanted: NotificationConfig, previous: NotificationConfig | None, outcome: str) -> None:
        session = self.app.session
        audit_log().record(
            profile=session.profile.name,
            environment=session.environment,
            action=NOTIFICATION_CHANGE,
            subject="notification configuration",
            outcome=outcome,
            detail=(
                f"production URL {wanted.notification_url or '(empty: callbacks off)'}; "
                f"sandbox URL {wanted.notification_url_sandbox or '(empty)'}; secret {secret_change(wanted, previous)}"
            ),
        )

    # --- listener ------------------------------------------------------------------------

    def action_toggle_listener(self) -> None:
        self.toggle_listener()

    @work(exclusive=True, exit_on_error=False, group="listener")
    async def toggle_listener(self) -> None:
        await (self.hub.stop() if self.hub.running else self.hub.start())

    def action_use_listener_url(self) -> None:
        """Fill the sandbox URL with the listener's: the demo's callbacks then arrive here."""
        listener = self.hub.listener
        if listener is None:
            self.notify("Start the listener first (ctrl+l).", severity="warning")
            return
        self.query_one("#sandbox-url", Input).value = listener.url
        self.query_one(TabbedContent).active = "config-tab"
        production = self.query_one("#production-url", Input)
        if production.value.strip():
            self.query_one("#save", Button).focus()
            self._say_state("Sandbox URL set to the listener's: save to use it.", "bold")
        else:  # with an empty production URL no callback is sent at all
            production.focus()
            self._say_state("Sandbox URL set to the listener's. Also set a production https URL, then save.", "bold")

    def show_listener(self) -> None:
        hub = self.hub
        listener = hub.listener
        state = self.query_one("#listener-state", Static)
        if listener is not None:
            lines = [
                f"Callbacks: {listener.url}   Webhooks: {listener.webhook_url}",
                "Set the callback URL as the sandbox URL. For the service to reach it from outside, run "
                "`giftdesk listen` behind an HTTPS reverse proxy (docs/receiver.md).",
            ]
            if not listener.verifies:
                lines.append(
                    "No callback secret is configured: callbacks are acknowledged UNVERIFIED (anyone could forge "
                    "one). Set a secret on the Configuration tab."
                )
            if not listener.webhook_secrets:
                lines.append("No webhook secret (GIFTDESK_WEBHOOK_SECRET): webhooks are refused.")
            state.update(safe("\n".join(lines), multiline=True))
        elif (beat := hub.elsewhere()) is not None:
            state.update(
                safe(
                    f"Another process receives into this inbox: {beat.who} on {beat.host} (pid {beat.pid}) at "
                    f"{beat.url}. The inbox below shows what it keeps.",
                    multiline=True,
                )
            )
        else:
            state.update(
                "The receiver is stopped. Start it to receive callbacks and webhooks on 127.0.0.1. "
                "The inbox below shows what was kept."
            )
        self.query_one("#listener-toggle", Button).label = "Stop listener" if hub.running else "Start listener"
        self.show_inbox()

    def show_inbox(self) -> None:
        """The inbox, newest first; redrawn only when something in it changed."""
        deliveries = self.hub.deliveries()
        shown = [(d.event_id, d.outcome) for d in deliveries]
        if shown == self._shown:
            return
        self._shown = shown
        table = self.query_one("#inbox", DataTable)
        table.clear()
        for delivery in deliveries:
            table.add_row(*row_cells(delivery))

    @on(Button.Pressed)
    async def button_pressed(self, event: Button.Pressed) -> None:
        actions = {
            "reveal": "toggle_secret",
            "generate": "generate_secret",
            "save": "save",
            "listener-toggle": "toggle_listener",
            "use-url": "use_listener_url",
        }
        if event.button.id in actions:
            await self.run_action(actions[event.button.id])


def _field(label: str, field: Input) -> ComposeResult:
    with Horizontal(classes="field"):
        yield Label(label, classes="field-label")
        yield field
