"""What every giftdesk screen shares: the context bar, the footer, read-only
hiding of actions that change anything, errors from workers shown as
notifications instead of crashing the app, and the status line (issue 35):
a failed refresh of the screen's data (its REFRESH_GROUPS' workers) is said
stale there, with its age and the error, while the data stays; retries and
waits are said there too, in place."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import ScreenResume
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Input
from textual.worker import Worker, WorkerState

from tui.core.words import counted
from tui.screens.host import WatchListUnavailable
from widgets.context_bar import ContextBar
from widgets.footer import KeysFooter
from widgets.status_line import StatusLine
from widgets.textual_private import breakpoint_classes, in_batch, is_text_area
from widgets.too_small import TooSmall

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tui.local.exports import ExportFormat
    from tui.screens.host import GiftdeskHost


EXPORT_BINDING = Binding("e", "export", "Export", id="screen.export")


# The actions that open a field on this screen for what is typed next (`/attention⏎`, quick). Their bindings are
# priority ones, taken as the key comes: a binding of the focused widget's is answered once the key has bubbled up,
# and the keys after it had gone to that widget (and run its keys: `t`, today's range) by then.
TYPED_AHEAD = frozenset({"filter", "filter_rows"})


class BaseScreen(Screen):
    # The name of this screen in tui.core.navigation.DESTINATIONS.
    destination: ClassVar[str] = ""
    # Actions that change something at the service: never offered read-only.
    WRITE_ACTIONS: ClassVar[frozenset[str]] = frozenset()
    # A list screen names what it exports (`e`): the rows of its table as shown.
    EXPORT_NAME: ClassVar[str | None] = None
    # A footer with less space between keys, composed so (setting it after mounting restyles every key).
    COMPACT_FOOTER: ClassVar[bool] = False
    # The worker groups that load the screen's data: their successes and failures say how fresh it is.
    REFRESH_GROUPS: ClassVar[frozenset[str]] = frozenset()

    # A screen opens on its table, never in a text field: the digit keys that
    # move between screens must not be typed into a form (its own key focuses it).
    AUTO_FOCUS = "DataTable"
    # esc first leaves a text field (so digits navigate again), then goes back.
    BINDINGS = [Binding("escape", "leave_field_or_back", "Back", id="screen.back")]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A list screen's `e` comes after its own keys: the footer keeps the everyday ones first.
        if cls.__dict__.get("EXPORT_NAME"):
            cls.BINDINGS = [*cls.__dict__.get("BINDINGS", []), EXPORT_BINDING]
        super().__init_subclass__(**kwargs)

    app: GiftdeskHost
    _resumed = False

    def compose(self) -> ComposeResult:
        self._take_breakpoint_classes()
        yield ContextBar()
        yield TooSmall()
        yield from self.compose_body()
        yield StatusLine()
        yield KeysFooter(compact=self.COMPACT_FOOTER)

    def compose_body(self) -> ComposeResult:
        raise NotImplementedError

    # --- styling each widget once on the way to the first frame (issue 16) -------------------

    def _take_breakpoint_classes(self) -> None:
        """The breakpoint classes (e.g. `-wide`) for the app's size, set before any child mounts.

        Textual sets them on the first Resize, after the children mounted, and a changed class
        restyles every widget of the screen; set now, the Resize finds nothing to change.
        """
        horizontal = (
            self.app.HORIZONTAL_BREAKPOINTS if self.HORIZONTAL_BREAKPOINTS is None else self.HORIZONTAL_BREAKPOINTS
        ) or []
        vertical = (
            self.app.VERTICAL_BREAKPOINTS if self.VERTICAL_BREAKPOINTS is None else self.VERTICAL_BREAKPOINTS
        ) or []
        if horizontal or vertical:
            width, height = self.app.size
            chosen = breakpoint_classes(self, width, horizontal) | breakpoint_classes(self, height, vertical)
            self.update_classes({name: name in chosen for _, name in [*horizontal, *vertical]}, animate=False)

    def _compositor_refresh(self) -> None:
        # The top screen's frame made during a batch is dropped, though the compositor takes it as drawn: not made,
        # its regions stay to be drawn after the batch (the start's first frame, made in Textual's start-up batch,
        # cost its render). A screen below passes its regions up to the top one as Textual does.
        if not (in_batch(self.app) and self is self.app.screen):
            super()._compositor_refresh()

    def _on_screen_resume(self, event: ScreenResume) -> None:
        # Runs before Textual's handler. The first resume follows the mount, which styled every
        # widget moments ago: Textual would restyle them all again. Later resumes restyle as usual.
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Textual: False hides a binding (footer, palette) and refuses it; None only dims it.
        if action in self.WRITE_ACTIONS and self.app.readonly:
            return False  # read-only: not offered at all
        if action == "export":
            return self.EXPORT_NAME is not None  # only list screens export
        if action in TYPED_AHEAD:
            return not self._in_text_field()  # there the key is text
        stack = self.app.screen_stack
        at_start = action == "leave_field_or_back" and not self._in_text_field() and self in stack[:2]
        return not at_start  # the start screen: nothing to go back to

    def _in_text_field(self) -> bool:
        return is_text_field(self.focused)

    async def action_leave_field_or_back(self) -> None:
        if self._in_text_field():
            self.set_focus(None)
        else:
            await self.app.action_back()

    def export_table(self) -> DataTable:
        """The table `e` exports; a screen with several names its own."""
        return self.query_one(DataTable)

    def export_rows(self) -> tuple[list[str], Sequence[Sequence[object]]]:
        """Column titles and rows `e` writes: the export table as drawn; a screen without a DataTable gives its own."""
        return table_as_shown(self.export_table())

    def action_export(self) -> None:
        from tui.local.exports import write_export  # loaded on the first export, not on every start
        from widgets.export_dialog import ExportDialog

        headers, rows = self.export_rows()

        def write(fmt: ExportFormat | None) -> None:
            if fmt is None or self.EXPORT_NAME is None:
                return
            try:
                path = write_export(self.EXPORT_NAME, headers, rows, fmt)
            except OSError as error:
                self.notify(
                    f"Export failed: {error}. Check that the export folder is writable (GIFTDESK_EXPORT_DIR).",
                    severity="error",
                    title="Export",
                )
                return
            self.notify(f"{counted(len(rows), 'row')} written to {path}", title="Exported")

        self.app.push_screen(ExportDialog(self.EXPORT_NAME or "", len(rows)), write)

    def pin_order(self, request_id: str) -> None:
        """Add an order to the watch list: followed until final, also after a restart."""
        self.pin(lambda: self.app.watch_list.add_order(request_id), f"order {request_id}")

    def pin(self, add: Callable[[], object], shown_as: str) -> None:
        """Run one watch-list addition and say how it went (`shown_as` is already masked where it must be)."""
        from tui.local.watchlist import NotWatched

        try:
            add()
        except WatchListUnavailable as problem:
            self.notify(str(problem), title="Watch list", severity="error", timeout=10)
            return
        except NotWatched as error:
            self.notify(str(error), title="Watch list", severity="warning")
            return
        self.notify(f"Watching {shown_as} until it is final (9: Watch list).", title="Watch list")

    def accept_jump(self, argument: str) -> None:
        """Handle `:<destination> ARGUMENT`; screens that take one override this."""

    def team_changed(self, change: Mapping[str, Any]) -> None:
        """Team mode: another giftdesk changed something of this profile (`change["what"]`: "watch",
        "note", "inbox", or "all" when the database is back); screens that show it override this."""

    @property
    def status_line(self) -> StatusLine:
        return self.query_one(StatusLine)

    def refreshing(self, table: Widget, has_rows: bool, group: str) -> None:
        """A refresh of what `table` shows starts, by a worker of `group`: rows already shown stay (DESIGN rule 12:
        a slow or absent service hid them under the loading indicator), said refreshing on the status line until
        it ends; an empty table shows the loading indicator."""
        table.loading = not has_rows
        if has_rows:
            self.status_line.refresh_started(group)

    def data_as_of(self, group: str) -> float | None:
        """When the data a refresh of `group` just brought came from the service (None: now); a screen that
        takes a local copy says the copy's time."""
        return None

    def working(self, group: str) -> bool:
        """Whether a worker of this screen's `group` is still to end."""
        return any(worker.node is self and worker.group == group and not worker.is_finished for worker in self.workers)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group in self.REFRESH_GROUPS and event.worker.node is self:
            if event.state == WorkerState.SUCCESS:
                self.status_line.succeeded(self.data_as_of(event.worker.group), part=event.worker.group)
            elif event.state == WorkerState.ERROR and event.worker.error is not None:
                self.status_line.failed(event.worker.error, part=event.worker.group)
            elif event.state == WorkerState.CANCELLED and not self.working(event.worker.group):
                self.status_line.refresh_ended(event.worker.group)  # given up, not replaced by another
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.app.report_error(event.worker.error)


def is_text_field(widget: Widget | None) -> bool:
    """Whether keys typed now are text (an Input, a TextArea), not commands."""
    return isinstance(widget, Input) or is_text_area(widget)


def table_as_shown(table: DataTable) -> tuple[list[str], list[list[str]]]:
    """Column titles and every row as the table draws them (masked values stay masked)."""
    headers = [column.label.plain for column in table.columns.values()]
    rows = [[_plain(cell) for cell in table.get_row_at(index)] for index in range(table.row_count)]
    return headers, rows


def _plain(cell: object) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)
