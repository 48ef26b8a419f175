"""Products by name on the Order screen (docs/decisions.md, "Glossary"): the board says `Vennor Music eGift`,
so the order does too, not `10519`.

Names are kept for the session (Session.cache), asked of the catalog once per product (its ProductId
filter), in a worker; until one comes, or when the catalog does not know it, the id stands alone.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from typing import Any

from tui.api.errors import ServiceError
from tui.api.models import CatalogQuery

PRODUCT_NAMES = "product-names"  # key in Session.cache: product id -> name, or None once asked and not found


def known_names(cache: MutableMapping[str, Any]) -> dict[int, str | None]:
    names: dict[int, str | None] = cache.setdefault(PRODUCT_NAMES, {})
    return names


def product_label(product_id: int, names: dict[int, str | None]) -> str:
    name = names.get(product_id)
    return f"{product_id} {name}" if name else str(product_id)


async def look_up_names(client: Any, product_ids: Iterable[int], names: dict[int, str | None]) -> bool:
    """Ask the catalog for each product not asked yet; True when a name was learnt."""
    learnt = False
    for product_id in dict.fromkeys(product_ids):
        if product_id in names:
            continue
        try:
            found = (await client.catalog(CatalogQuery(product_id=product_id))).product(product_id)
        except ServiceError:
            return learnt  # asked again when the order is shown again
        names[product_id] = found[0].name if found else None
        learnt = learnt or found is not None
    return learnt
