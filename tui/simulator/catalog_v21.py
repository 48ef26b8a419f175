"""The provider's newer catalog ("v2.1", DESIGN.md "What the real provider sends and enforces").

One item of `brands` per product of the seeded catalog (the v2.1 shape has a face-value range and a SKU
per item); its `status` is `TemporaryInactive` where the product is out of stock, else `Live`. Stock
answers for one SKU and face value; checkout by SKU is Place order with each SKU read as its product.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from .catalog import CATEGORIES, COUNTRIES, Catalog, CatalogQueryError, Product, parse_after, price_of, timestamp
from .order_records import Order
from .orders import OrderRejected, body_field

SKU_PREFIX = "SIM-"
UNLIMITED_STOCK = 1000  # what stock says of a product without a count
COUNTRY_NAMES = {  # code: (name, ISO 3166 alpha-3)
    "US": ("United States", "USA"),
    "GB": ("United Kingdom", "GBR"),
    "DE": ("Germany", "DEU"),
    "FR": ("France", "FRA"),
    "ES": ("Spain", "ESP"),
    "IE": ("Ireland", "IRL"),
    "CA": ("Canada", "CAN"),
    "AU": ("Australia", "AUS"),
    "JP": ("Japan", "JPN"),
    "CH": ("Switzerland", "CHE"),
    "MX": ("Mexico", "MEX"),
}


def sku_of(product: Product) -> str:
    return f"{SKU_PREFIX}{product.id}"


def product_of_sku(catalog: Catalog, sku: str) -> Product | None:
    """The product a SKU names, in any case (ASP.NET compares them so), or None."""
    number = sku.strip().upper().removeprefix(SKU_PREFIX)
    return catalog.product_by_id.get(int(number)) if number.isdecimal() else None


def categories() -> list[dict]:
    return [{"id": c.id, "name": c.name, "description": c.description} for c in CATEGORIES]


def countries() -> list[dict]:
    currency_of = {code: currency for code, currency, _weight in COUNTRIES}
    return [
        {"code": code, "name": name, "defaultCurrencyCode": currency_of[code], "alpha3Code": alpha3}
        for code, (name, alpha3) in COUNTRY_NAMES.items()
    ]


def brands_page(catalog: Catalog, params: dict[str, str]) -> dict:
    """The v2.1 brands: filters as catalog v2's, plus `sku` and `categoryId`; paged over items."""
    given = {key.lower(): value for key, value in params.items() if value != ""}

    def number(key: str, default: int | None) -> int | None:
        value = given.get(key.lower())
        if value is None:
            return default
        if not value.strip().lstrip("-").isdecimal():
            raise CatalogQueryError(f"Invalid {key}")
        return int(value)

    page_size, page_index = number("PageSize", 100), number("PageIndex", 0)
    category = number("CategoryId", None)
    if page_size is None or not 1 <= page_size <= 1000:
        raise CatalogQueryError("Invalid PageSize")
    if page_index is None or page_index < 0:
        raise CatalogQueryError("Invalid PageIndex")
    try:
        modified_after = parse_after(given["modifieddate"]) if "modifieddate" in given else None
    except ValueError:
        raise CatalogQueryError("Invalid ModifiedDate") from None
    currency, country = given.get("currencycode", "").upper(), given.get("countrycode", "").upper()
    name, sku = given.get("name", "").lower(), given.get("sku", "").upper()
    items = [
        _item(catalog, product)
        for brand in catalog.brands
        if (not currency or brand.currency == currency)
        and (not country or brand.country == country)
        and (category is None or any(c.id == category for c in brand.categories))
        for product in brand.products
        if (not name or name in product.name.lower())
        and (not sku or sku_of(product) == sku)
        and (modified_after is None or product.modified > modified_after)
    ]
    start = page_index * page_size
    return {
        "pageIndex": page_index,
        "pageSize": page_size,
        "count": len(items),
        "items": items[start : start + page_size],
    }


def _item(catalog: Catalog, product: Product) -> dict:
    brand = catalog.brand_of(product)
    return {
        "id": product.id,
        "name": product.name,
        "sku": sku_of(product),
        "countryCode": brand.country,
        "currencyCode": brand.currency,
        "description": brand.description,
        "redemptionInstructions": brand.redemption,
        "terms": brand.terms,
        "status": "TemporaryInactive" if product.count == 0 else "Live",
        "logoUrl": f"https://img.sim.giftdesk.test/logos/{brand.id}.png",
        "modifiedDate": timestamp(product.modified),
        "faceValues": [{"min": float(product.min_face), "max": float(product.max_face)}],
        "categories": [c.id for c in brand.categories],
    }


def stock(catalog: Catalog, sku: str, face_value: str) -> dict:
    """Stock of one SKU at one face value; an unknown SKU is InvalidProduct, a value outside its range
    InvalidDenomination (Place order's reasons)."""
    product = product_of_sku(catalog, sku)
    if product is None:
        raise OrderRejected("InvalidProduct")
    try:
        face = Decimal(face_value)
    except InvalidOperation:
        raise OrderRejected("InvalidDenomination") from None
    if not face.is_finite() or not product.min_face <= face <= product.max_face:
        raise OrderRejected("InvalidDenomination")
    quantity = UNLIMITED_STOCK if product.count is None else product.count
    return {
        "faceValue": float(face),
        "quantity": quantity,
        "isStocked": quantity > 0,
        "price": float(price_of(product, face)),
        "currencyCode": catalog.brand_of(product).currency,
    }


def checkout_by_product(catalog: Catalog, body: object) -> object:
    """A checkout-by-SKU body as Place order's: each `Sku` read as its `ProductId` (InvalidProduct if none);
    anything else left for Place order's own checks."""
    if not isinstance(body, dict) or not isinstance(products := body_field(body, "Products"), list):
        return body
    lines = []
    for line in products:
        sku = body_field(line, "Sku") if isinstance(line, dict) else None
        if not isinstance(line, dict) or not isinstance(sku, str):
            raise OrderRejected("InvalidRequest")
        product = product_of_sku(catalog, sku)
        if product is None:
            raise OrderRejected("InvalidProduct")
        kept = {key: value for key, value in line.items() if key.lower() != "sku"}
        lines.append({**kept, "ProductId": product.id})
    return {**{key: value for key, value in body.items() if key.lower() != "products"}, "Products": lines}


def checkout_answer(order: Order) -> dict:
    """Checkout by SKU's answer: the order in brief (Get order has the whole of it)."""
    return {
        "requestId": order.request_id,
        "orderNumber": str(order.order_id),
        "status": order.status(order.elapsed()),
        "currencyCode": order.account.currency,
        "totalCards": len(order.cards),
    }
