"""The catalog's first page as the last start drew it (tui.local.first_pages), as the Catalog screen
keeps and draws it: each cell's text and its styles, and each brand's detail pane.

Drawing it needs neither pydantic nor httpx nor the service, so a start shows it
in its first frame; the live page replaces it. Its text is outside text: shown
through `visible()` (the spans' styles are ours).
"""

from __future__ import annotations

import time
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Span, Text

from tui.core.safe_text import visible
from tui.local.ages import ago
from tui.local.first_pages import first_page_path, read_first_page, write_first_page
from widgets.brand_detail import Detail
from widgets.pager import PageState

if TYPE_CHECKING:
    from pathlib import Path

    from tui.screens.base import BaseScreen

KEPT_PAGE_VERSION = 2  # the kept page's shape: a page kept in another is not shown (2: when it was kept)
RESEEN_SECONDS = 60.0  # an unchanged page is kept again (with the time it was seen) once what is kept is this old


class KeptBrand:
    """A brand of the kept first page: its row, and its detail pane as drawn (read when first shown:
    the first frame shows one brand's detail of the page's fifty)."""

    def __init__(self, row: tuple[Text, ...], detail: dict[str, Any]) -> None:
        self.row = row
        self._detail = detail

    @cached_property
    def detail(self) -> Detail:
        """Title, product rows and texts; a detail that cannot be read shows as none."""
        try:
            return (
                text_from_json(self._detail["title"]),
                [tuple(text_from_json(cell) for cell in product) for product in self._detail["products"]],
                {name: str(text) for name, text in self._detail["sections"].items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return Text("(this brand's detail was not kept)", style="italic"), [], {}


class KeptPage:
    """A kept first page: its brands, the pager's state then, and when it was kept."""

    def __init__(self, page: PageState, brands: list[KeptBrand], kept_at: float) -> None:
        self.page = page
        self.brands = brands
        self.kept_at = kept_at

    @property
    def label(self) -> str:
        """What the pager says of it, as long as it shows."""
        return f"rows from the last start, {ago(max(0.0, time.time() - self.kept_at))}"


def text_json(text: Text) -> list[Any]:
    return [text.plain, [[span.start, span.end, str(span.style)] for span in text.spans]]


def text_from_json(kept: list[Any]) -> Text:
    plain, spans = kept
    return Text(visible(plain), spans=[Span(start, end, Style.parse(style)) for start, end, style in spans], end="")


def kept_page_json(page: PageState, drawn: list[tuple[tuple[Text, ...], Detail]]) -> dict[str, Any]:
    """The page as drawn: each brand's row and detail pane."""
    return {
        "version": KEPT_PAGE_VERSION,
        "kept_at": time.time(),
        "page": [page.index, page.size, page.count],
        "brands": [
            {
                "row": [text_json(cell) for cell in row],
                "title": text_json(title),
                "products": [[text_json(cell) for cell in product] for product in products],
                "sections": sections,
            }
            for row, (title, products, sections) in drawn
        ],
    }


def worth_keeping(kept: dict[str, Any] | None, page: dict[str, Any]) -> bool:
    """Whether `page` should replace what is kept: it shows something else, or what is kept says a time more than
    `RESEEN_SECONDS` older (its label says when the rows were last seen). Most starts draw what they kept."""
    if kept is None or {**kept, "kept_at": None} != {**page, "kept_at": None}:
        return True
    return page["kept_at"] - kept["kept_at"] >= RESEEN_SECONDS


def kept_page(kept: dict[str, Any], size: int) -> KeptPage | None:
    """The kept page, if it is one of this size in this version's shape (else None: it is only a head start)."""
    try:
        if kept["version"] != KEPT_PAGE_VERSION or kept["page"][1] != size or len(kept["brands"]) > size:
            return None
        brands = [KeptBrand(tuple(text_from_json(cell) for cell in brand["row"]), brand) for brand in kept["brands"]]
        return KeptPage(PageState(*kept["page"]), brands, float(kept["kept_at"]))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


class FirstPageFile:
    """The screen's profile's kept first page on disk: read at the start; a live first page written in its
    place (in a thread) when it is `worth_keeping`."""

    def __init__(self, screen: BaseScreen) -> None:
        self.screen = screen
        self.json: dict[str, Any] | None = None  # what is kept, as read or last written

    @property
    def path(self) -> Path:
        session = self.screen.app.session
        return first_page_path(session.profile.mirror_name, session.environment, demo=session.profile.is_demo)

    def read(self, size: int) -> KeptPage | None:
        """The first page as the last start drew it, if one was kept (in this shape, of this page size)."""
        kept = read_first_page(self.path)
        found = kept_page(kept, size) if kept is not None else None
        if found is not None:
            self.json = kept
        return found

    def keep(self, page: PageState, drawn: list[tuple[tuple[Text, ...], Detail]]) -> None:
        """The page as drawn (each brand's row and detail pane), for the next start."""
        kept = kept_page_json(page, drawn)
        if worth_keeping(self.json, kept):
            self.json = kept
            self.screen.run_worker(
                partial(write_first_page, self.path, kept), thread=True, group="keep-first-page", exit_on_error=False
            )
