"""The yardstick: a bare Textual app with a Header, a DataTable and a Footer.

Without a base URL it shows one row of its own (the launch figure: Textual's
own start-up). With one, it shows catalog pages fetched with giftdesk's client
and `n` fetches the next page (paging, memory and idle CPU figures).
"""

from __future__ import annotations

from textual import work
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header

COLUMNS = ("Brand", "Country", "Currency", "Products")


class BareApp(App[None]):
    BINDINGS = [("n", "next_page", "Next page")]

    def __init__(self, base_url: str | None = None, page_size: int = 50) -> None:
        super().__init__()
        self.base_url = base_url
        self.page_size = page_size
        self.wanted = 0
        self.shown = -1  # index of the page in the table
        self.client = None  # made on the first fetch: the static mode never loads the client

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        if self.base_url is None:
            table.add_row("Amazon", "US", "USD", "3")
            self.shown = 0
        else:
            self.load(0)

    def action_next_page(self) -> None:
        self.wanted += 1
        self.load(self.wanted)

    @work(exclusive=True)
    async def load(self, index: int) -> None:
        from tui.api.models import CatalogQuery

        if self.client is None:
            self.client = sandbox_client(self.base_url)
        page = await self.client.catalog(CatalogQuery(page_size=self.page_size, page_index=index))
        table = self.query_one(DataTable)
        table.clear()
        table.add_rows((b.name, b.country_code, b.currency_code, str(len(b.products))) for b in page.items)
        self.shown = index


def sandbox_client(base_url: str):
    """giftdesk's own client on the simulator's acme sandbox credential."""
    from tui.api.client import ServiceClient
    from tui.simulator import demo_credential

    credential = demo_credential("acme-sandbox")
    return ServiceClient(base_url, credential.client_id, credential.client_secret)


if __name__ == "__main__":  # the launch figure's yardstick (bench/demo_launch.py): one row of its own
    BareApp().run()
