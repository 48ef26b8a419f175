"""Catalog changes on demand, so that a client's incremental sync can be tested: the hourly refresh.

`refreshed(catalog, ...)` returns a new Catalog in which some products have a
new price, some flip between out of stock and in stock, and some are gone;
each changed product (and each brand that lost one) gets modifiedDate = now.
The catalog a server starts with is shared and never changes; a server that
is asked for changes swaps in its own copy (`SimulatorServer.change_catalog`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal

from .catalog import EPOCH, Brand, Catalog, Product


@dataclass(frozen=True)
class CatalogChanges:
    """What one refresh changed (product ids), for tests to check a client against."""

    priced: tuple[int, ...] = ()
    out_of_stock: tuple[int, ...] = ()
    back_in_stock: tuple[int, ...] = ()
    removed: tuple[int, ...] = ()


def now_seconds() -> int:
    """Now, as seconds after the catalog's EPOCH (the clock modifiedDate counts in)."""
    return int((datetime.now(UTC).replace(tzinfo=None) - EPOCH).total_seconds())


def refreshed(
    catalog: Catalog, *, seed: int, prices: int = 0, stock: int = 0, removed: int = 0, when: int | None = None
) -> tuple[Catalog, CatalogChanges]:
    """A copy of `catalog` with `prices` re-priced, `stock` stock flips and `removed` products gone.

    Showcase brands (ids below 1000) are left alone: tests name their products.
    A brand keeps at least one product, and loses at most one per refresh.
    """
    rng = random.Random(seed)
    when = now_seconds() if when is None else when
    candidates = [p for brand in catalog.brands if brand.id >= 1000 for p in brand.products]
    chosen = rng.sample(candidates, min(len(candidates), prices + stock))
    to_price, to_flip = chosen[:prices], chosen[prices:]
    # Removals come from brands nothing else changed in: a brand's modifiedDate then moves
    # beyond its products', which is how a client can tell that one of them went.
    touched = {p.brand_id for p in chosen}
    others = [p for p in candidates if p.brand_id not in touched and len(catalog.brand_by_id[p.brand_id].products) > 1]
    to_remove: list[Product] = []
    for product in rng.sample(others, min(len(others), removed * 4)):
        if len(to_remove) < removed and product.brand_id not in {p.brand_id for p in to_remove}:
            to_remove.append(product)
    new_products: dict[int, Product] = {}
    for product in to_price:
        discount = (
            (product.discount + Decimal(rng.choice((-20, -10, 10, 20))) / 1000).max(Decimal("0")).min(Decimal("0.2"))
        )
        if discount == product.discount:
            discount = product.discount + Decimal("0.005")
        new_products[product.id] = replace(product, discount=discount, modified=when)
    out: list[int] = []
    back: list[int] = []
    for product in to_flip:
        base = new_products.get(product.id, product)
        count = rng.randint(1, 50) if product.count == 0 else 0
        (back if count else out).append(product.id)
        new_products[product.id] = replace(base, count=count, modified=when)
    removing = {p.id for p in to_remove}
    gone: set[int] = set()
    brands: list[Brand] = []
    for brand in catalog.brands:
        products = tuple(new_products.get(p.id, p) for p in brand.products)
        kept = tuple(p for p in products if p.id not in removing)
        gone.update(p.id for p in products if p.id in removing)
        if products != brand.products or kept != products:
            brand = replace(brand, products=kept, updated=when if kept != products else brand.updated)
        brands.append(brand)
    changes = CatalogChanges(
        priced=tuple(sorted(p.id for p in to_price)),
        out_of_stock=tuple(sorted(out)),
        back_in_stock=tuple(sorted(back)),
        removed=tuple(sorted(gone)),
    )
    return Catalog(brands), changes
