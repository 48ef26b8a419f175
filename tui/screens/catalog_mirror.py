"""The Catalog screen's local mirror (tui.local.mirror): search as you type, sync, changes.

With a mirror (a finished sync of this profile and environment), the Catalog
screen pages through it: `/` searches every brand, product, category name and
description of every country as you type, the v2 filters apply locally, and
the pager says "mirror, synced 5 min ago". `l` switches to the live service
and back; prices in another currency and catalog v1 are live only. Without a
mirror the screen is as it was; `S` syncs one (a progress bar meanwhile),
`H` shows what the syncs found changed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from tui.core.words import counted
from tui.local.fileio import mirror_path
from tui.screens.catalog_filters import mirror_filters
from widgets.fitted_table import FittedTable
from widgets.money import format_money, format_range
from widgets.pager import PageState
from widgets.safe_text import safe

if TYPE_CHECKING:  # the models (pydantic) load with the first page, the mirror's module with a mirror
    from textual.widgets import ProgressBar

    from tui.api.models import Brand
    from tui.local.mirror import Change, Mirror
    from tui.screens.base import BaseScreen

IDLE_TOTAL = 1

MIRROR_BINDINGS = [
    Binding("S", "sync_mirror", "Sync mirror", id="catalog.sync"),
    Binding("H", "mirror_changes", "Changes", id="catalog.changes"),
    Binding("l", "toggle_live", "Live/mirror", id="catalog.live"),
]


class CatalogState(Protocol):
    """What the mirror side reads of the Catalog screen's query (tui.screens.catalog), and asks of it."""

    version: int  # of the catalog: 1 (the flat list) or 2
    filters: dict[str, str]
    page: PageState

    def reload(self) -> None: ...

    def reload_from_start(self) -> None: ...


class CatalogMirror:
    """The Catalog screen's mirror side, which the screen owns: whether its rows come from the mirror, the
    mirror's pages and note, its sync (`S`), changes (`H`) and `l` (the screen's actions call these).

    `screen`: where it draws (the sync's bar) and what it says; `catalog`: the same screen's query, read as
    `CatalogState` so that this module need not import the screen's."""

    def __init__(self, screen: BaseScreen, catalog: CatalogState) -> None:
        self.screen = screen
        self.catalog = catalog
        self.mirror: Mirror | None = None
        # The last page's brands by id, as read and as shown (`page` shows an unchanged brand again).
        self.last_page: dict[str, tuple[dict[str, Any], Brand]] = {}
        self.live = False  # `l`: the live service although a mirror exists

    def open(self) -> None:
        session = self.screen.app.session
        if self.mirror is None and mirror_path(session.profile.mirror_name, session.environment).exists():
            from tui.local.mirror import Mirror, has_mirror  # no file, no mirror: the module need not load

            if has_mirror(session.profile.mirror_name, session.environment):
                self.mirror = Mirror(mirror_path(session.profile.mirror_name, session.environment))

    def close(self) -> None:
        if self.mirror is not None:
            self.mirror.close()
            self.mirror = None

    @property
    def from_mirror(self) -> bool:
        """Whether the rows come from the mirror: one exists, `l` did not ask for live, nothing live-only is asked."""
        return (
            self.mirror is not None
            and not self.live
            and self.catalog.version == 2
            and not self.catalog.filters.get("target_currency")
        )

    def note(self) -> str:
        """What the pager says of the mirror ("" without one)."""
        if self.mirror is None:
            return ""
        last = self.mirror.last_sync()
        age = f"synced {last.age()}" if last else "never synced"
        if self.from_mirror:
            return f"mirror, {age}"
        # Short: beside the page count and the go-to box, whole at 80 columns.
        target = self.catalog.filters.get("target_currency")
        return f"live: prices in {target.upper()}, not in the mirror" if target else f"live; mirror {age}"

    def page(self, search: str) -> tuple[PageState, list[Brand]]:
        """The screen's page of the mirror; a brand the last page showed exactly so is that same Brand, not a new
        one (typing on often keeps brands: no model to build, and the table keeps their drawn lines)."""
        from tui.api.models import Brand

        assert self.mirror is not None
        page = self.catalog.page
        filters = mirror_filters(self.catalog.filters)
        hits = self.mirror.search(search, filters, offset=page.index * page.size, limit=page.size)
        last, self.last_page = self.last_page, {}
        for wire in hits.brands:
            kept = last.get(wire["internalId"])
            self.last_page[wire["internalId"]] = (
                kept if kept is not None and kept[0] == wire else (wire, Brand.model_validate(wire))
            )
        return PageState(page.index, page.size, hits.count), [self.last_page[b["internalId"]][1] for b in hits.brands]

    # --- keys -----------------------------------------------------------------------------

    def check_action(self, action: str) -> bool | None:
        """`H` and `l` need a mirror (dimmed without one); `S` is always there."""
        if action in ("mirror_changes", "toggle_live"):
            return None if self.mirror is None else True
        return True

    def toggle_live(self) -> None:
        if self.mirror is not None:
            self.live = not self.live
            self.catalog.reload_from_start()

    def show_changes(self) -> None:
        if self.mirror is not None:
            self.screen.app.push_screen(ChangesScreen(self.mirror))

    async def sync(self) -> None:
        """`S`, in a worker of the screen: the mirror synced with the service, a progress bar under the pager."""
        from tui.local.mirror import Mirror
        from tui.local.mirror_sync import sync

        screen = self.screen
        session = screen.app.session
        bar = await self._sync_bar()
        pages = screen.query_one("#sync-pages", Static)
        bar.update(total=None, progress=0)
        bar.display = pages.display = True
        pages.update("Catalog sync: asking how many pages…")

        def advance(steps: int = 1, total: int | None = None) -> None:
            bar.update(total=total if total is not None else bar.total, advance=steps)
            if bar.total:  # the pages said in words beside the bar's percentage and time left
                pages.update(f"Catalog sync: page {int(bar.progress):,} of {int(bar.total):,}")

        try:
            client = await session.client()
            # Its own connection: the screen keeps reading the previous mirror until the sync commits.
            with Mirror(mirror_path(session.profile.mirror_name, session.environment)) as writer:
                result = await sync(writer, client, advance=advance)
        finally:
            bar.display = pages.display = False
            bar.update(total=IDLE_TOTAL, progress=0)  # no indeterminate animation while hidden
        screen.notify(
            f"Catalog mirror synced ({result.record.kind}): {counted(result.record.products, 'product')}, "
            f"{counted(result.changes, 'change')} (H shows them)."
        )
        self.open()
        screen.refresh_bindings()
        self.catalog.reload()

    async def _sync_bar(self) -> ProgressBar:
        """The sync's progress bar, mounted under the pager by the first sync: a screen's start makes no
        widget it may never need. Hidden between syncs, with a total: a bar without one animates 15
        times a second, hidden or not."""
        from textual.widgets import ProgressBar

        bar = next(self.screen.query("#sync-progress").results(ProgressBar), None)
        if bar is None:
            bar = ProgressBar(total=IDLE_TOTAL, id="sync-progress", show_eta=True)
            await self.screen.mount(bar, after="#pager")
            await self.screen.mount(Static(id="sync-pages"), after=bar)
        return bar

    async def order_live_product(self, product_id: int) -> None:
        """Orders start from the live product: stock and price may have moved since the sync."""
        from tui.api.models import CatalogQuery

        app = self.screen.app
        page = await (await app.session.client()).catalog(CatalogQuery(product_id=product_id))
        found = page.product(product_id)
        if found is None:
            self.screen.notify(f"Product {product_id} is no longer in the live catalog.", severity="warning")
        elif found[0].count == 0:
            self.screen.notify(f"{found[0].name} is out of stock now.", severity="warning")
        else:
            app.open_new_order(*found)


def price_text(low: Decimal | None, high: Decimal | None, currency: str) -> str:
    return "" if low is None or high is None else format_range(low, high, currency)


def change_row(change: Change) -> tuple[str | Text, ...]:
    from tui.local.mirror import PRICE_DOWN, PRICE_UP

    difference = change.difference if change.kind in (PRICE_UP, PRICE_DOWN) else None
    shown = "" if difference is None else ("+" if difference > 0 else "") + format_money(difference, change.currency)
    style = {"out of stock": "bold red", "removed": "red", "back in stock": "green", "new": "green"}.get(
        change.kind, ""
    )
    return (
        change.at.replace("T", " "),
        Text(change.kind, style=style),
        str(change.product_id),
        safe(change.product),
        safe(change.brand),
        safe(change.country),
        price_text(change.old_min, change.old_max, change.currency),
        price_text(change.new_min, change.new_max, change.currency),
        shown,
    )


class ChangesScreen(ModalScreen[None]):
    """What the mirror's syncs found changed: the last sync's by default, `a` every one recorded."""

    DEFAULT_CSS = """
    ChangesScreen { align: center middle; }
    ChangesScreen > Vertical { width: 95%; height: 90%; border: round $primary; background: $surface; }
    ChangesScreen #changes-title { height: 1; padding: 0 1; }
    ChangesScreen DataTable { height: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="changes.close"),
        Binding("a", "toggle_all", "Last sync/all", id="changes.all"),
    ]
    COLUMNS = ("At (UTC)", "Change", "Id", "Product", "Brand", "Ctry", "Old price", "New price", "Difference")

    def __init__(self, mirror: Mirror) -> None:
        super().__init__()
        self.mirror = mirror
        self.all = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("", id="changes-title")
            yield FittedTable(id="changes", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*self.COLUMNS)
        self.show()

    def show(self) -> None:
        from datetime import datetime

        found = self.mirror.changes(datetime.min if self.all else None)
        table = self.query_one(DataTable)
        table.clear()
        table.add_rows(change_row(change) for change in reversed(found))  # newest first
        what = "every change recorded" if self.all else "changes found by the last sync"
        self.query_one("#changes-title", Static).update(
            Text(f"Catalog mirror: {what} ({len(found)}). a: {'last sync' if self.all else 'all'}", style="bold")
        )
        table.focus()

    def action_toggle_all(self) -> None:
        self.all = not self.all
        self.show()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
