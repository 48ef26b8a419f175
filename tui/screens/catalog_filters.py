"""The Catalog screen's filters: the filter bar's fields, and what their values ask of the service
(`catalog_query`, catalog v2) or of the mirror (`mirror_filters`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from widgets.filter_bar import FilterField, int_between, letters, positive_int, real_date

if TYPE_CHECKING:  # the models (pydantic) load with the first live page, the mirror's module with a mirror
    from tui.api.models import CatalogQuery
    from tui.local.mirror import SearchFilters
    from widgets.pager import PageState

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100  # DESIGN: the service publishes no maximum; we cap at 100

CATALOG_FILTERS = (
    FilterField("country", "Country", "US", 4, (letters(2, "US"),)),
    FilterField("currency", "Currency", "USD", 5, (letters(3, "USD"),)),
    FilterField("name", "Name", "part of name", 14),
    FilterField("brand_id", "Brand id", "", 8, (positive_int(),)),
    FilterField("product_id", "Product id", "", 8, (positive_int(),)),
    FilterField("modified_since", "Since", "YYYY-MM-DD", 11, (real_date(),)),
    FilterField("target_currency", "Prices in", "EUR", 5, (letters(3, "EUR"),)),
    FilterField("page_size", "Per page", str(DEFAULT_PAGE_SIZE), 5, (int_between(1, MAX_PAGE_SIZE),)),
)


def catalog_query(filters: dict[str, str], page: PageState) -> CatalogQuery:
    """Validated filter values (FilterBar) -> the v2 query for one page."""
    from tui.api.models import CatalogQuery

    def code(name: str) -> str | None:
        value = filters.get(name)
        return value.upper() if value else None

    def number(name: str) -> int | None:
        value = filters.get(name)
        return int(value) if value else None

    return CatalogQuery(
        country_code=code("country"),
        currency_code=code("currency"),
        name=filters.get("name"),
        brand_id=number("brand_id"),
        product_id=number("product_id"),
        modified_date=filters.get("modified_since"),
        target_currency=code("target_currency"),
        page_size=page.size,
        page_index=page.index,
    )


def mirror_filters(filters: dict[str, str]) -> SearchFilters:
    """The screen's validated v2 filters, as the mirror applies them."""
    from tui.local.mirror import SearchFilters

    product_id = filters.get("product_id")
    return SearchFilters(
        country=filters.get("country") or None,
        currency=filters.get("currency") or None,
        name=filters.get("name") or None,
        brand_id=filters.get("brand_id") or None,
        product_id=int(product_id) if product_id else None,
        modified_since=filters.get("modified_since") or None,
    )
