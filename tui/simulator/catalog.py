"""The seeded catalog: generation, indexes, and the v2 query.

A few "showcase" brands with fixed ids come first so tests and the demo can
name products (docs/simulator.md lists them); the rest is generated from the
seed. Everything is immutable after generation, so one catalog per
(seed, brands) is built once and shared.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import lru_cache

from .rates import USD_RATES, convert

EPOCH = datetime(2022, 1, 1)
SPREAD_SECONDS = 3 * 365 * 24 * 3600  # modifiedDate spans three years from EPOCH

COUNTRIES = [  # (country, currency, weight)
    ("US", "USD", 30),
    ("GB", "GBP", 12),
    ("DE", "EUR", 8),
    ("FR", "EUR", 6),
    ("ES", "EUR", 4),
    ("IE", "EUR", 2),
    ("CA", "CAD", 8),
    ("AU", "AUD", 6),
    ("JP", "JPY", 4),
    ("CH", "CHF", 2),
    ("MX", "MXN", 3),
]
SYLLABLES = ["ka", "lo", "mi", "ra", "ven", "tor", "zu", "bel", "qui", "nor", "ta", "sé", "fa", "dü", "ri", "on"]
KINDS = ["Market", "Books", "Café", "Games", "Travel", "Outfitters", "Cinema", "Grocer", "Spa", "Music", "Home", "Tech"]
FIXED_AMOUNTS = [5, 10, 15, 20, 25, 50, 75, 100, 150, 200, 250, 500]


@dataclass(frozen=True, slots=True)
class Category:
    id: int
    name: str
    description: str | None


CATEGORIES = [
    Category(1, "Food & Drink", "Restaurants, cafés and groceries"),
    Category(2, "Entertainment", None),
    Category(3, "Fashion", ""),
    Category(4, "Gaming", "Games and consoles"),
    Category(5, "Travel", "Flights, hotels and trips"),
    Category(6, "Home", None),
    Category(7, "Books", "Books and e-books"),
    Category(8, "Payouts", "Cash-out to a wallet"),
]


@dataclass(frozen=True, slots=True)
class Product:
    id: int
    brand_id: int
    name: str
    min_face: Decimal
    max_face: Decimal
    count: int | None  # None: unrestricted; 0: out of stock
    discount: Decimal  # price = face value * (1 - discount)
    modified: int  # seconds after EPOCH

    @property
    def is_payout(self) -> bool:
        return "Payout" in self.name

    @property
    def is_slow(self) -> bool:
        return "Slow" in self.name


@dataclass(frozen=True, slots=True)
class Brand:
    id: int
    name: str
    country: str
    currency: str
    description: str | None
    disclaimer: str | None
    redemption: str | None
    terms: str | None
    products: tuple[Product, ...]
    categories: tuple[Category, ...]
    has_pin: bool
    updated: int = 0  # seconds after EPOCH of a change to the brand itself (a product removed)

    @property
    def modified(self) -> int:
        return max(self.updated, *(p.modified for p in self.products))


def timestamp(seconds_after_epoch: int) -> str:
    """ISO 8601 style, no zone (SPEC: modifiedDate)."""
    return (EPOCH + timedelta(seconds=seconds_after_epoch)).isoformat(timespec="seconds")


def parse_after(text: str) -> int:
    """A ModifiedDate parameter (date or date-time) as seconds after EPOCH."""
    parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return int((parsed - EPOCH).total_seconds())


def price_of(product: Product, face: Decimal) -> Decimal:
    return (face * (1 - product.discount)).quantize(Decimal("0.01"))


# --- generation ---------------------------------------------------------------


def _d(value: float | int | str) -> Decimal:
    return Decimal(str(value))


def showcase_brands() -> list[Brand]:
    """Fixed brands and products every layer's tests may name (docs/simulator.md)."""
    when = int((datetime(2024, 6, 1, 12) - EPOCH).total_seconds())
    zero = Decimal("0")

    def product(pid: int, bid: int, name: str, lo: float, hi: float, count: int | None = None) -> Product:
        return Product(pid, bid, name, _d(lo), _d(hi), count, zero, when + pid)

    def brand(bid, name, country, currency, products, categories, texts="Shown on the card.", pin=False) -> Brand:
        return Brand(bid, name, country, currency, texts, texts, texts, texts, tuple(products), tuple(categories), pin)

    c = {cat.id: cat for cat in CATEGORIES}
    return [
        brand(
            1,
            "Acme Books",
            "US",
            "USD",
            [product(101, 1, "Acme Books $25", 25, 25), product(102, 1, "Acme Books eGift", 5, 500)],
            [c[7]],
        ),
        brand(2, "Giftdesk Payout", "US", "USD", [product(201, 2, "Giftdesk USD Payout", 1, 2000)], [c[8]]),
        brand(3, "Slowpoke Games", "US", "USD", [product(301, 3, "Slowpoke Slow eGift", 5, 500)], [c[4]]),
        brand(
            4,
            "Scarce Sneakers",
            "US",
            "USD",
            [
                product(401, 4, "Scarce Sneakers $50", 50, 50, count=0),
                product(402, 4, "Scarce Sneakers eGift", 10, 200, count=3),
            ],
            [c[3]],
        ),
        brand(
            5,
            "Tea & Co",
            "GB",
            "GBP",
            [product(501, 5, "Tea & Co £20", 20, 20), product(502, 5, "Tea & Co eGift", 5, 250)],
            [c[1]],
            pin=True,
        ),
        brand(6, "Bäckerei Blau", "DE", "EUR", [product(601, 6, "Bäckerei Blau Gutschein", 5, 150)], [], texts=None),
    ]


def _text(rng: random.Random, sentence: str) -> str | None:
    roll = rng.random()
    if roll < 0.15:
        return None
    if roll < 0.3:
        return ""
    return sentence


def _generated_product(rng: random.Random, pid: int, brand: str, bid: int, currency: str, kind: str) -> Product:
    scale = 100 if currency == "JPY" else 1
    roll = rng.random()
    count = None if roll < 0.6 else 0 if roll < 0.7 else rng.randint(1, 500)
    discount = _d(rng.randint(0, 50)) / 1000
    modified = rng.randrange(SPREAD_SECONDS)
    if kind == "fixed":
        amount = _d(rng.choice(FIXED_AMOUNTS) * scale)
        return Product(pid, bid, f"{brand} {amount} {currency}", amount, amount, count, discount, modified)
    low, high = _d(rng.choice((1, 5, 10)) * scale), _d(rng.choice((100, 200, 250, 500, 1000)) * scale)
    name = {"range": f"{brand} eGift", "payout": f"{brand} {currency} Payout", "slow": f"{brand} Slow eGift"}[kind]
    return Product(pid, bid, name, low, high, count, discount, modified)


def generate(seed: int, brands: int) -> list[Brand]:
    rng = random.Random(seed)
    result = showcase_brands()[: max(brands, 0)]
    places = [(country, currency) for country, currency, weight in COUNTRIES for _ in range(weight)]
    pid = 10_000
    for bid in range(1_000, 1_000 + max(brands - len(result), 0)):
        country, currency = rng.choice(places)
        name = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize() + " " + rng.choice(KINDS)
        kinds = ["fixed" if rng.random() < 0.55 else "range" for _ in range(rng.randint(1, 8))]
        roll = rng.random()
        if roll < 0.03:
            kinds.append("payout")
        elif roll < 0.04:
            kinds.append("slow")
        products = []
        for kind in kinds:
            products.append(_generated_product(rng, pid, name, bid, currency, kind))
            pid += 1
        categories = tuple(sorted(rng.sample(CATEGORIES[:7], rng.randint(0, 2)), key=lambda c: c.id))
        if "payout" in kinds:
            categories += (CATEGORIES[7],)
        result.append(
            Brand(
                bid,
                name,
                country,
                currency,
                _text(rng, f"{name}: gift cards for every occasion."),
                _text(rng, "Not redeemable for cash except where required by law."),
                _text(rng, "Present the code at checkout or enter it online."),
                _text(rng, "Valid for 12 months from purchase."),
                tuple(products),
                categories,
                rng.random() < 0.3,
            )
        )
    return result


# --- the queryable catalog ----------------------------------------------------


class CatalogQueryError(ValueError):
    """A bad query parameter; the message is the 400 body."""


@dataclass(frozen=True)
class CatalogQuery:
    currency: str | None = None
    country: str | None = None
    name: str | None = None
    modified_after: int | None = None
    product_id: int | None = None
    brand_id: int | None = None
    page_size: int = 100
    page_index: int = 0
    target_currency: str | None = None

    @classmethod
    def from_params(cls, params: dict[str, str]) -> CatalogQuery:
        """From query parameters, matched case-insensitively (as ASP.NET does)."""
        given = {key.lower(): value for key, value in params.items()}

        def text(key: str) -> str | None:
            value = given.get(key.lower())
            return value if value not in (None, "") else None

        def number(key: str) -> int | None:
            value = text(key)
            if value is None:
                return None
            try:
                return int(value)
            except ValueError:
                raise CatalogQueryError(f"Invalid {key}") from None

        modified = text("ModifiedDate")
        try:
            modified_after = parse_after(modified) if modified else None
        except ValueError:
            raise CatalogQueryError("Invalid ModifiedDate") from None
        target = text("TargetCurrency")
        if target is not None and target.upper() not in USD_RATES:
            raise CatalogQueryError("Unsupported TargetCurrency")
        page_size, page_index = number("PageSize"), number("PageIndex")
        query = cls(
            currency=(text("CurrencyCode") or "").upper() or None,
            country=(text("CountryCode") or "").upper() or None,
            name=text("Name"),
            modified_after=modified_after,
            product_id=number("ProductId"),
            brand_id=number("BrandId"),
            page_size=100 if page_size is None else page_size,
            page_index=0 if page_index is None else page_index,
            target_currency=target.upper() if target else None,
        )
        if not 1 <= query.page_size <= 1000:
            raise CatalogQueryError("Invalid PageSize")
        if query.page_index < 0:
            raise CatalogQueryError("Invalid PageIndex")
        return query


class Catalog:
    def __init__(self, brands: list[Brand]):
        self.brands = brands
        self.brand_by_id = {brand.id: brand for brand in brands}
        self.product_by_id = {p.id: p for brand in brands for p in brand.products}
        self.by_currency = _index(brands, lambda b: b.currency)
        self.by_country = _index(brands, lambda b: b.country)
        self._names = [brand.name.lower() for brand in brands]
        self._currencies = [brand.currency for brand in brands]
        self._countries = [brand.country for brand in brands]
        self._modified = [brand.modified for brand in brands]
        self._position = {brand.id: i for i, brand in enumerate(brands)}
        self._brand_cache: dict[int, dict] = {}
        self._product_cache: dict[int, dict] = {}

    def brand_of(self, product: Product) -> Brand:
        return self.brand_by_id[product.brand_id]

    def page(self, query: CatalogQuery) -> dict:
        """The v2 catalog page: count = all matching brands, items = one page."""
        positions = self._matching_positions(query)
        start = query.page_index * query.page_size
        items = [self._brand_json(self.brands[i], query) for i in positions[start : start + query.page_size]]
        return {"pageIndex": query.page_index, "pageSize": query.page_size, "count": len(positions), "items": items}

    def all_brands(self) -> dict:
        """Catalog v1: every brand, no filters, no paging, and no `internalId` (as the provider's version 1)."""
        brands = [self._brand_json(brand, CatalogQuery()) for brand in self.brands]
        return {"brands": [{key: value for key, value in brand.items() if key != "internalId"} for brand in brands]}

    def _matching_positions(self, query: CatalogQuery) -> list[int]:
        # Start from the narrowest index, then check only what that index does not guarantee.
        if query.product_id is not None:
            product = self.product_by_id.get(query.product_id)
            candidates = [self._position[product.brand_id]] if product else []
        elif query.brand_id is not None:
            candidates = [self._position[query.brand_id]] if query.brand_id in self._position else []
        elif query.currency and query.country:
            a, b = self.by_currency.get(query.currency, []), self.by_country.get(query.country, [])
            candidates = a if len(a) <= len(b) else b
        elif query.currency:
            candidates = self.by_currency.get(query.currency, [])
        elif query.country:
            candidates = self.by_country.get(query.country, [])
        else:
            candidates = list(range(len(self.brands)))

        # Each filter is one pass over the survivors; the index already used is re-checked cheaply.
        positions = candidates
        if query.currency and positions is not self.by_currency.get(query.currency):
            positions = [i for i in positions if self._currencies[i] == query.currency]
        if query.country and positions is not self.by_country.get(query.country):
            positions = [i for i in positions if self._countries[i] == query.country]
        if query.brand_id is not None:
            positions = [i for i in positions if self.brands[i].id == query.brand_id]
        if query.name:
            needle = query.name.lower()
            positions = [i for i in positions if needle in self._names[i]]
        if query.modified_after is not None:
            after = query.modified_after
            if query.product_id is not None:
                positions = [i for i in positions if self.product_by_id[query.product_id].modified > after]
            else:
                positions = [i for i in positions if self._modified[i] > after]
        return positions

    def _brand_json(self, brand: Brand, query: CatalogQuery) -> dict:
        products = brand.products
        if query.product_id is not None:
            products = tuple(p for p in products if p.id == query.product_id)
        if query.modified_after is not None:
            products = tuple(p for p in products if p.modified > query.modified_after)
        product_dicts = [self._product_json(p, brand.currency) for p in products]
        if query.target_currency:
            product_dicts = [_in_currency(d, brand.currency, query.target_currency) for d in product_dicts]
        return {**self._brand_fields(brand), "products": product_dicts}

    # JSON fragments are built once per brand/product and reused by later pages:
    # the catalog never changes, and building them dominates a page's cost.

    def _brand_fields(self, brand: Brand) -> dict:
        fields = self._brand_cache.get(brand.id)
        if fields is None:
            fields = self._brand_cache[brand.id] = {
                "internalId": str(brand.id),
                "name": brand.name,
                "countryCode": brand.country,
                "currencyCode": brand.currency,
                "description": brand.description,
                "disclaimer": brand.disclaimer,
                "redemptionInstructions": brand.redemption,
                "terms": brand.terms,
                "logoUrl": f"https://img.sim.giftdesk.test/logos/{brand.id}.png",
                "modifiedDate": timestamp(brand.modified),
                "categories": [{"id": c.id, "name": c.name, "description": c.description} for c in brand.categories],
            }
        return fields

    def _product_json(self, product: Product, currency: str) -> dict:
        cached = self._product_cache.get(product.id)
        if cached is None:
            cached = self._product_cache[product.id] = {
                "id": product.id,
                "name": product.name,
                "minFaceValue": float(product.min_face),
                "maxFaceValue": float(product.max_face),
                "count": product.count,
                "price": {
                    "min": float(price_of(product, product.min_face)),
                    "max": float(price_of(product, product.max_face)),
                    "currencyCode": currency,
                },
                "modifiedDate": timestamp(product.modified),
            }
        return cached


def _in_currency(product: dict, currency: str, target: str) -> dict:
    price = product["price"]
    low, high = (convert(Decimal(str(price[k])), currency, target) for k in ("min", "max"))
    return {**product, "price": {"min": float(low), "max": float(high), "currencyCode": target}}


def _index(brands: list[Brand], key) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for position, brand in enumerate(brands):
        index.setdefault(key(brand), []).append(position)
    return index


@lru_cache(maxsize=4)
def build_catalog(seed: int, brands: int) -> Catalog:
    """One immutable catalog per (seed, brands), shared by every server that asks."""
    return Catalog(generate(seed, brands))
