"""Add or edit a profile. The secret is never stored here: only where it comes from."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select

from tui.local.config import ConfigError, Profile
from tui.local.profiles import make_profile
from tui.local.secret_sources import store_keyring_secret
from widgets.private import PRIVATE
from widgets.safe_text import safe
from widgets.toggles import StatedCheckbox

_SECRET_KINDS = [
    ("Environment variable (name)", "env"),
    ("Command printing the secret", "command"),
    ("System keyring", "keyring"),
]


class ProfileForm(ModalScreen[Profile | None]):
    DEFAULT_CSS = """
    ProfileForm { align: center middle; }
    ProfileForm > VerticalScroll { width: 76; max-width: 100%; height: auto; max-height: 100%; background: $surface; border: thick $accent; padding: 0 1; }
    ProfileForm Label { margin-top: 1; }
    ProfileForm #form-error { color: $error; }
    ProfileForm #form-buttons { height: auto; margin-top: 1; align-horizontal: right; }
    ProfileForm Button { margin-left: 2; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="profile-form.cancel"),
        Binding("ctrl+s", "save", "Save", id="profile-form.save", priority=True),  # as the other forms save
    ]

    def __init__(self, profile: Profile | None = None) -> None:
        super().__init__()
        self.editing = profile

    def compose(self) -> ComposeResult:
        p = self.editing
        with VerticalScroll():
            yield Label("Edit profile" if p else "Add a profile", classes="title")
            yield Label("Name")
            yield Input(p.name if p else "", id="name", disabled=p is not None)
            yield Label("Environment")
            yield Select(
                [("sandbox", "sandbox"), ("production", "production")],
                value=p.environment if p else "sandbox",
                allow_blank=False,
                id="environment",
            )
            yield Label("Base URL")
            yield Input(p.base_url if p else "", placeholder="https://api.example.com", id="base_url")
            yield Label("Client id")
            yield Input(p.client_id if p else "", id="client_id")
            yield Label("Secret comes from")
            kind = p.secret.kind if p and p.secret.kind != "inline-demo" else "env"
            yield Select(_SECRET_KINDS, value=kind, allow_blank=False, id="secret_kind")
            yield Input(
                p.secret.ref if p and kind != "keyring" else "",
                placeholder="GIFTDESK_SECRET, or: pass show giftdesk/prod",
                id="secret_ref",
            )
            yield Input(
                "",
                password=True,
                placeholder="secret to store in the keyring (kept there, never in the config)",
                id="secret_value",
                classes=PRIVATE,
            )
            yield Label("Default account id (optional)")
            yield Input(
                str(p.default_account) if p and p.default_account is not None else "",
                type="integer",
                id="default_account",
            )
            yield StatedCheckbox("Read-only", p.readonly if p else False, id="readonly")
            yield Label("", id="form-error")
            with Horizontal(id="form-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save (ctrl+s)", id="save", variant="primary")

    def on_mount(self) -> None:
        self._show_secret_fields()
        # The first field to fill: the name when adding, else the first that can be changed.
        self.query_one("#environment" if self.editing else "#name").focus()

    @on(Select.Changed, "#secret_kind")
    def _show_secret_fields(self) -> None:
        keyring = self.query_one("#secret_kind", Select).value == "keyring"
        self.query_one("#secret_ref").display = not keyring
        self.query_one("#secret_value").display = keyring

    def _value(self, field_id: str) -> str:
        return self.query_one(f"#{field_id}", Input).value.strip()

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        try:
            self.dismiss(self._build())
        except ConfigError as error:
            self.query_one("#form-error", Label).update(safe(error))  # quotes what was typed

    def _build(self) -> Profile:
        name = self._value("name")
        kind = self.query_one("#secret_kind", Select).value
        secret_value = self.query_one("#secret_value", Input).value
        if kind == "keyring" and secret_value:
            store_keyring_secret(name, secret_value)
        account = self._value("default_account")
        return make_profile(
            name=name,
            environment=self.query_one("#environment", Select).value,
            base_url=self._value("base_url"),
            client_id=self._value("client_id"),
            secret={"kind": kind, "ref": self._value("secret_ref") if kind != "keyring" else name},
            default_account=int(account) if account else None,
            readonly=self.query_one("#readonly", Checkbox).value,
        )

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
