"""The catalog's products as a table or CSV: `giftdesk catalog` and `catalog search` print them alike."""

from __future__ import annotations

from tui.commands.output import print_csv, print_table
from widgets.money import format_range


def _stock(count: int | None) -> str:
    if count is None:
        return "unrestricted"
    return "out of stock" if count == 0 else str(count)


def print_products(brands) -> None:
    rows = []
    for brand in brands:
        for product in brand.products:
            face = format_range(product.min_face_value, product.max_face_value, brand.currency_code)
            price = format_range(product.price.min, product.price.max, product.price.currency_code)
            rows.append([brand.name, brand.country_code, product.id, product.name, face, price, _stock(product.count)])
    print_table(["BRAND", "COUNTRY", "PRODUCT", "NAME", "FACE VALUE", "PRICE", "STOCK"], rows)


def print_products_csv(brands) -> None:
    """One row per product, amounts plain and exact in their currency's minor units (as accounts --csv:
    a spreadsheet sums them), each beside its currency; stock a number (0: out of stock)."""
    from tui.core.safe_text import visible
    from widgets.money import exact_amount

    rows = [
        [
            visible(brand.name),
            visible(brand.country_code),
            product.id,
            visible(product.name),
            exact_amount(product.min_face_value, brand.currency_code),
            exact_amount(product.max_face_value, brand.currency_code),
            visible(brand.currency_code),
            exact_amount(product.price.min, product.price.currency_code),
            exact_amount(product.price.max, product.price.currency_code),
            visible(product.price.currency_code),
            "unrestricted" if product.count is None else product.count,
        ]
        for brand in brands
        for product in brand.products
    ]
    print_csv(
        [
            "BRAND",
            "COUNTRY",
            "PRODUCT",
            "NAME",
            "FACE MIN",
            "FACE MAX",
            "FACE CURRENCY",
            "PRICE MIN",
            "PRICE MAX",
            "PRICE CURRENCY",
            "STOCK",
        ],
        rows,
    )
