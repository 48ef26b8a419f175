"""A brand and its products as the Catalog screen shows them: the brands table's row, the detail pane's
parts (widgets.brand_detail draws them) and what the `/` filter matches.

Every cell is built from outside strings through widgets.safe_text; the models are only types here (pydantic
loads with the first live page, not before the first frame).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from tui.screens.catalog_kept import KeptBrand
from widgets.brand_detail import PAYOUT_MARK, TEXT_SECTIONS, Detail
from widgets.money import format_amount, format_range, to_decimal
from widgets.row_table import RowColumn
from widgets.safe_text import CELL_LIMIT, safe, safe_row

if TYPE_CHECKING:
    from tui.api.models import Brand, Product

# Fixed widths: a new page then only repaints the table, with no layout pass
# (a whole-screen reflow); the detail pane holds the full name.
# The brand's name takes what room there is: every column shows whole in 80 columns and in the wide layout's 78.
BRAND_COLUMNS = (("Brand", 17), ("Ctry", 4), ("Cur", 3), ("Prods", 5), ("Price", 18), ("Stock", 17))
BRAND_TABLE_COLUMNS = tuple(
    RowColumn(label.lower(), label, width, grow=int(label == "Brand")) for label, width in BRAND_COLUMNS
)


def is_payout_product(product: Product) -> bool:
    """Payout products are known by name (their card codes are payout URLs)."""
    return "payout" in product.name.lower()


def stock_words(count: int | None) -> str:
    if count is None:
        return "unrestricted"
    if count == 0:
        return "out of stock"
    return f"{count:,} left"


def stock_summary(products: list[Product]) -> str:
    if not products:
        return "no products"
    out = sum(1 for p in products if p.count == 0)
    limited = sum(1 for p in products if p.count)
    if out == len(products):
        return "out of stock"
    parts = ([f"{out} out"] if out else []) + ([f"{limited} limited"] if limited else [])
    return " · ".join(parts) or "in stock"


def price_span(products: list[Product]) -> str:
    """Cheapest to dearest client price over the brand's products."""
    if not products:
        return "—"
    currencies = {p.price.currency_code for p in products}
    if len(currencies) > 1:
        return "mixed currencies"
    low = min(to_decimal(p.price.min) for p in products)
    high = max(to_decimal(p.price.max) for p in products)
    return format_range(low, high, currencies.pop())


def face_value(product: Product, currency: str) -> str:
    """Fixed, or the allowed range; the currency is said once, in the detail title."""
    if product.is_fixed_value:
        return format_amount(product.min_face_value, currency)
    return f"{format_amount(product.min_face_value, currency)}–{format_amount(product.max_face_value, currency)}"


def brand_row(brand: Brand) -> tuple[Text, ...]:
    return safe_row(
        brand.name,
        brand.country_code,
        brand.currency_code,
        str(len(brand.products)),
        price_span(brand.products),
        stock_summary(brand.products),
    )


def detail_title(brand: Brand, country_name: str | None = None) -> Text:
    title = safe(brand.name, style="bold")  # the whole line's style: the dim part is bold too
    country = f"{brand.country_code} {country_name}" if country_name else brand.country_code
    title.append_text(
        safe(
            f"  id {brand.internal_id or '(none: v1)'} · {country} · face values in {brand.currency_code}",
            style="dim",
        )
    )
    if not brand.products:
        title.append(" · no products", style="italic")
    return title


def brand_sections(brand: Brand) -> dict[str, str]:
    """The detail pane's texts by section (TEXT_SECTIONS, and the categories)."""
    sections = {attribute: getattr(brand, attribute) or "" for attribute, _ in TEXT_SECTIONS}
    sections["categories"] = ", ".join(category.name for category in brand.categories)
    return sections


def product_row(product: Product, currency: str) -> tuple[Text, ...]:
    name = safe(product.name, limit=CELL_LIMIT)
    if is_payout_product(product):
        name.append(PAYOUT_MARK, style="bold magenta")
    stock = Text(stock_words(product.count), style="bold red" if product.count == 0 else "")
    return safe_row(
        product.id,
        name,
        face_value(product, currency),
        format_range(product.price.min, product.price.max, product.price.currency_code),
        stock,
        (product.modified_date or "")[:10],
    )


def row_matches(brand: Brand, needle: str) -> bool:
    """The `/` filter: brand name, id, country or currency, or a product's name or id."""
    needle = needle.strip().lower()
    if not needle:
        return True
    haystack = [brand.name, brand.internal_id or "", brand.country_code, brand.currency_code]
    haystack += [f"{p.id} {p.name}" for p in brand.products]
    return any(needle in text.lower() for text in haystack)


def brand_detail(brand: Brand, country_name: str | None = None) -> Detail:
    """The detail pane's parts for `brand`: title (the country's name beside its code when known), products, texts."""
    return (
        detail_title(brand, country_name),
        [product_row(product, brand.currency_code) for product in brand.products],
        brand_sections(brand),
    )


def brand_cells(brand: Brand | KeptBrand) -> tuple[Text, ...]:
    return brand.row if isinstance(brand, KeptBrand) else brand_row(brand)
