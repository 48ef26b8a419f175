"""The Catalog screen's use of the v2.1 catalog: a product's stock before ordering, categories, country names.

Catalog v2's products carry ids, not SKUs: a product's SKU is its own `sku` where the service sends one,
else the v2.1 item with the product's id, found by the product's name (one request). A product with
neither has no SKU, and the check says so. Categories and countries' names are asked once a session
(Session.cache).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from tui.api.errors import ServiceError

if TYPE_CHECKING:
    from tui.api.client import ServiceClient
    from tui.api.models import Category, Product, Stock
    from tui.session import Session

COUNTRY_NAMES = "catalog-countries"  # the Session.cache key: {code: name}, {} when they could not be read
CATEGORIES = "catalog-categories"  # the Session.cache key: the categories, in the service's order


async def product_sku(client: ServiceClient, product: Product) -> str | None:
    """The product's SKU, or None when the v2.1 catalog has none for it."""
    from tui.api.models import BrandsQuery

    own = (product.model_extra or {}).get("sku")
    if isinstance(own, str) and own.strip():
        return own.strip()
    items = (await client.brands(BrandsQuery(name=product.name))).items
    return next((item.sku for item in items if item.id == product.id and item.sku), None)


async def stock_check(session: Session, product: Product) -> tuple[str, bool]:
    """What `s` says of the product's stock at its face value (the least of a range), and whether it is stocked."""
    from widgets.money import to_decimal

    client = await session.client()
    sku = await product_sku(client, product)
    if sku is None:
        return f"{product.name} has no SKU in the v2.1 catalog: its stock cannot be checked.", False
    face_value = to_decimal(product.min_face_value)
    stock = await client.stock(sku, face_value)
    return stock_answer_words(product, face_value, stock), bool(stock.is_stocked)


def stock_answer_words(product: Product, face_value: Decimal, stock: Stock) -> str:
    """One line for a person: quantity, whether stocked, price (each "not stated" when the answer has none)."""
    from widgets.money import format_money

    currency = stock.currency_code or ""
    quantity = "quantity not stated" if stock.quantity is None else f"{stock.quantity:,} left"
    stocked = {True: "in stock", False: "NOT in stock", None: "stock not stated"}[stock.is_stocked]
    price = "price not stated" if stock.price is None else f"price {format_money(stock.price, currency)}"
    return f"{product.name} at {format_money(face_value, currency)}: {stocked}, {quantity}, {price}."


async def country_names(session: Session) -> dict[str, str]:
    """{code: name} of the catalog's countries, asked once a session; {} when they could not be read."""
    names = session.cache.get(COUNTRY_NAMES)
    if names is None:
        try:
            countries = await (await session.client()).catalog_countries()
        except ServiceError:  # the names are a help, not the catalog: the codes stay
            countries = []
        names = session.cache[COUNTRY_NAMES] = {c.code: c.name for c in countries if c.name}
    return names


async def categories(session: Session) -> list[Category]:
    """The catalog's categories, asked once a session (an error is said by the screen, and asked again next time)."""
    found = session.cache.get(CATEGORIES)
    if found is None:
        found = session.cache[CATEGORIES] = await (await session.client()).categories()
    return found


def next_category(known: list[Category], current: Category | None) -> Category | None:
    """The category after `current` (the first after none); after the last, none: every category again."""
    ids = [category.id for category in known]
    if current is None or current.id not in ids:
        return known[0] if known else None
    position = ids.index(current.id) + 1
    return known[position] if position < len(known) else None
