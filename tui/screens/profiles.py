"""Profiles: list, add, edit, remove, and switch (which rebuilds everything).

The profiles file may change under the screen (`giftdesk profiles add` in a shell, an editor): it is
read again when it changes on disk (looked at every CONFIG_CHECK_SECONDS while shown), when the screen
is shown again, and on `r` (issue 35)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from tui.local.config import Config, ConfigError, Profile
from tui.screens.base import BaseScreen
from tui.screens.profile_form import ProfileForm
from widgets.confirm import ConfirmScreen
from widgets.fitted_table import FittedTable
from widgets.safe_text import safe, safe_row

CONFIG_CHECK_SECONDS = 2.0  # how often the shown screen looks whether the profiles file changed


class ProfilesScreen(BaseScreen):
    destination = "profiles"
    BINDINGS = [
        Binding("u", "use", "Use (switch)", id="profiles.use"),
        Binding("a", "add", "Add", id="profiles.add"),
        Binding("e", "edit", "Edit", id="profiles.edit"),
        Binding("x", "remove", "Remove", id="profiles.remove"),
        Binding("r", "reload", "Reload", id="profiles.reload"),
    ]
    _file_seen: tuple[int, int] | None = None  # the profiles file's (mtime, size) when last read
    _from_file: frozenset[str] = frozenset()  # the profiles that came from the file when last read

    def compose_body(self) -> ComposeResult:
        yield Static(safe(self._where()), id="profiles-where")
        yield FittedTable(id="profiles-table", cursor_type="row")

    def _where(self) -> str:
        store = self.app.profile_store
        if store is None:
            return "Demo profiles: kept in memory for this run only."
        return f"Profiles file: {store.path}"

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # The short columns first: at 80 columns the long URL and id are the ones cut, not the secret's source.
        table.add_columns("", "Name", "Environment", "Secret from", "Read-only", "Base URL", "Client id")
        self._file_seen = self._file_state()
        self.refresh_table()
        self.set_interval(CONFIG_CHECK_SECONDS, self._reread_if_changed)

    def on_screen_resume(self) -> None:
        self._reread_if_changed()

    def _file_state(self) -> tuple[int, int] | None:
        store = self.app.profile_store
        try:
            info = store.path.stat() if store is not None else None
        except OSError:
            return None
        return (info.st_mtime_ns, info.st_size) if info is not None else None

    def _reread_if_changed(self) -> None:
        if self._file_state() != self._file_seen:
            self.action_reload()

    def action_reload(self) -> None:
        """The profiles file read again: profiles added, changed or removed elsewhere are shown (the one in use
        stays while it is used; the demo's and the environment's are not in the file)."""
        store = self.app.profile_store
        if store is None:
            return
        self._file_seen = self._file_state()
        try:
            stored = store.load().profiles
        except ConfigError as error:
            self.app.report_error(error)
            return
        current = self.app.current_session.profile.name if self.app.current_session else None
        known = self.app.profiles
        if not self._from_file:
            self._from_file = frozenset(name for name in known if name in stored)
        for name in [name for name in known if name in self._from_file and name not in stored and name != current]:
            del known[name]  # removed from the file elsewhere
        known.update(stored)
        self._from_file = frozenset(stored)
        self.refresh_table()

    def refresh_table(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        current = self.app.current_session.profile.name if self.app.current_session else None
        for profile in self.app.profiles.values():
            environment = profile.environment.upper() if profile.environment == "production" else profile.environment
            # From the config file: outside text too.
            table.add_row(
                *safe_row(
                    "●" if profile.name == current else "",
                    profile.name,
                    environment,
                    profile.secret.kind,
                    "yes" if profile.readonly else "",
                    profile.base_url,
                    profile.client_id,
                ),
                key=profile.name,
            )

    def _selected(self) -> Profile | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.app.profiles.get(key) if key is not None else None

    def accept_jump(self, argument: str) -> None:
        self.run_worker(self.app.switch_profile(argument), exit_on_error=False)  # a failure is said (BaseScreen)

    async def on_data_table_row_selected(self) -> None:
        await self.action_use()

    async def action_use(self) -> None:
        profile = self._selected()
        if profile is not None:
            # The env profile and demo profiles are not in the file: nothing to remember.
            self._save(lambda config: config.using(profile.name) if profile.name in config.profiles else config)
            await self.app.switch_profile(profile.name)

    def action_add(self) -> None:
        self.app.push_screen(ProfileForm(), lambda profile: self._keep(profile, replace=False))

    def action_edit(self) -> None:
        profile = self._selected()
        if profile is not None and not profile.is_demo:
            self.app.push_screen(ProfileForm(profile), lambda edited: self._keep(edited, replace=True))
        elif profile is not None:
            self.notify("Demo profiles cannot be edited.", severity="warning")

    def _keep(self, profile: Profile | None, *, replace: bool) -> None:
        if profile is None:
            return
        if not replace and profile.name in self.app.profiles:
            self.notify(f"A profile named {profile.name} exists already.", severity="error")
            return
        if self._save(lambda config: config.with_profile(profile, replace=replace)):
            self.app.profiles[profile.name] = profile
            self.refresh_table()
            self.notify(f"Profile {profile.name} saved.")

    def action_remove(self) -> None:
        profile = self._selected()
        if profile is None:
            return
        if self.app.current_session and profile.name == self.app.current_session.profile.name:
            self.notify("That is the profile in use: switch to another one first.", severity="warning")
            return

        def remove(confirmed: bool | None) -> None:
            if confirmed and self._save(lambda config: config.without_profile(profile.name)):
                del self.app.profiles[profile.name]
                self.refresh_table()

        self.app.push_screen(
            ConfirmScreen(
                f"Remove profile {profile.name}?",
                [
                    f"{profile.environment} · {profile.base_url}",
                    "Its secret stays where it is (keyring, variable or command).",
                ],
                confirm_label="Remove",
            ),
            remove,
        )

    def _save(self, change) -> bool:
        """Apply `change` to the stored config; the demo keeps its profiles in memory."""
        store = self.app.profile_store
        if store is None:
            return True
        try:
            config: Config = change(store.load())
            store.save(config)
        except ConfigError as error:
            self.app.report_error(error)
            return False
        return True
