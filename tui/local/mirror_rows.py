"""A catalog v2 page as the rows the catalog mirror stores (tui.local.mirror).

A first sync reads about 100,000 products. Each page's body (JSON bytes, as
`ServiceClient.catalog_body` returns it) is read brand by brand straight into
tuples of the stored columns, with the checks the mirror needs: ids are whole
numbers, names are text, amounts are finite numbers kept as the exact text
they came as, modified dates normalised so that text order is time order. Building a
full model of every brand and product only to read these fields back cost
more than fetching the pages. A page that fails the checks is a
MalformedResponseError, as the models would raise.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from tui.api.bounds import Bounds, depth_exceeds, number_is_sane
from tui.api.errors import MalformedResponseError

# brands: id, name, country, currency, description, disclaimer, redemption, terms, logo_url, modified
BrandRow = tuple[str, str, str, str, str | None, str | None, str | None, str | None, str | None, str | None]
# products: id, brand_id, name, min_face, max_face, count, price_min, price_max, price_currency, modified
ProductRow = tuple[int, str, str, str, str, int | None, str, str, str, str | None]

# What `wire_time` gives back: a naive ISO 8601 time to the second (the service's usual form).
NORMAL_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def wire_time(text: str | None) -> str | None:
    """A modifiedDate, normalised so that text order is time order (naive UTC, ISO 8601)."""
    if not text:
        return None
    if NORMAL_TIME.fullmatch(text):
        return text  # already what the parsing below would give back
    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return text
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed.isoformat()


@dataclass
class CatalogRows:
    """One page of brands as rows of the mirror's tables."""

    count: int = 0  # brands matching the query in all (the page's `count`)
    brands: list[BrandRow] = field(default_factory=list)
    products: list[ProductRow] = field(default_factory=list)
    categories: dict[int, tuple[int, str, str | None]] = field(default_factory=dict)
    brand_categories: list[tuple[str, int]] = field(default_factory=list)

    @property
    def brand_ids(self) -> list[str]:
        return [brand[0] for brand in self.brands]

    def joined(self, more: CatalogRows) -> CatalogRows:
        """These rows and those of a later page, as one page."""
        return CatalogRows(
            more.count,
            self.brands + more.brands,
            self.products + more.products,
            {**self.categories, **more.categories},
            self.brand_categories + more.brand_categories,
        )

    def moved_brands(self) -> list[str]:
        """Brands whose own modifiedDate is newer than every product they came with (a product may have gone)."""
        newest: dict[str, str] = {}
        for product in self.products:
            if (product[9] or "") > newest.get(product[1], ""):
                newest[product[1]] = product[9] or ""
        return [brand[0] for brand in self.brands if (brand[9] or "") > newest.get(brand[0], "")]


class _Number(str):
    """A JSON number with a fraction, as the exact text it came as (never a float)."""


_DECODER = json.JSONDecoder(parse_float=_Number)
_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace
NOT_A_PAGE = "catalog v2: expected a catalog page ('count' and 'items')"


def catalog_rows(body: bytes) -> CatalogRows:
    """The rows of a catalog v2 page's body; MalformedResponseError names the first field not as the spec says.

    The page is read one brand at a time, each made rows and dropped before the next is parsed
    (`_read_page`): a whole page parsed at once is thousands of dicts and lists alive together,
    and the garbage collector, counting them, would walk everything the process holds several
    times a sync. The rows are tuples of text and numbers, which it soon stops looking at.
    """
    rows = CatalogRows()
    if depth_exceeds(body, Bounds.depth):  # before the parser recurses into it
        raise MalformedResponseError(f"catalog v2: nested deeper than {Bounds.depth} levels; not read")
    try:
        _read_page(body.decode(), rows)
    except (ValueError, IndexError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise MalformedResponseError("catalog v2: response is not JSON") from None
    return rows


def _read_page(text: str, rows: CatalogRows) -> None:
    """The page's members, as json.loads would read them, with `items` read brand by brand into `rows`."""
    count: object = None
    items: bool | None = None  # None: not seen; False: not a list
    index = _skip(text, 0)
    if text[index] != "{":
        raise MalformedResponseError(NOT_A_PAGE)
    index = _skip(text, index + 1)
    while text[index] != "}":
        if text[index] != '"':
            raise ValueError("expected a member name")
        key, index = _DECODER.raw_decode(text, index)
        index = _skip(text, index)
        if text[index] != ":":
            raise ValueError("expected ':'")
        index = _skip(text, index + 1)
        if key == "items" and items is not None:
            raise MalformedResponseError(NOT_A_PAGE)  # which one would count is anybody's guess
        if key == "items" and text[index] == "[":
            index, items = _read_items(text, index + 1, rows), True
        else:
            value, index = _DECODER.raw_decode(text, index)
            if key == "count":
                count = value
            elif key == "items":
                items = False
        index = _past_separator(text, index, "}")
    if _skip(text, index + 1) != len(text):
        raise ValueError("extra data after the page")
    if type(count) is not int or not items:
        raise MalformedResponseError(NOT_A_PAGE)
    rows.count = count


def _skip(text: str, index: int) -> int:
    """Past the whitespace at `index`."""
    space = _SPACE.match(text, index)
    assert space is not None  # it matches the empty string too
    return space.end()


def _past_separator(text: str, index: int, closing: str) -> int:
    """After a member or value: past its ',' to the next one, or at `closing` (whitespace skipped)."""
    index = _skip(text, index)
    if text[index] == ",":
        index = _skip(text, index + 1)
        if text[index] == closing:
            raise ValueError(f"expected something after ',' before {closing!r}")
    elif text[index] != closing:
        raise ValueError(f"expected ',' or {closing!r}")
    return index


def _read_items(text: str, index: int, rows: CatalogRows) -> int:
    """The brands of `items` from just after its '[' into `rows`; where the array ends."""
    index = _skip(text, index)
    position = 0
    while text[index] != "]":
        brand, index = _DECODER.raw_decode(text, index)
        _brand_rows(brand, position, rows)
        position += 1
        index = _past_separator(text, index, "]")
    return index + 1


def _brand_rows(brand: Any, index: int, rows: CatalogRows) -> None:
    """One brand of `items` (at `index`) as rows."""
    where = f"items.{index}"
    try:
        brand_id = _text(brand["internalId"])
        rows.brands.append(
            (
                brand_id,
                _text(brand["name"]),
                _text(brand["countryCode"]),
                _text(brand["currencyCode"]),
                _optional_text(brand.get("description")),
                _optional_text(brand.get("disclaimer")),
                _optional_text(brand.get("redemptionInstructions")),
                _optional_text(brand.get("terms")),
                _optional_text(brand.get("logoUrl")),
                wire_time(_optional_text(brand.get("modifiedDate"))),
            )
        )
        where = f"items.{index}.categories"
        for category in brand.get("categories") or ():
            category_id = _whole(category["id"])
            rows.categories[category_id] = (
                category_id,
                _text(category["name"]),
                _optional_text(category.get("description")),
            )
            rows.brand_categories.append((brand_id, category_id))
        where = f"items.{index}.products"
        for product in brand.get("products") or ():
            price = product["price"]
            count = product.get("count")
            rows.products.append(
                (
                    _whole(product["id"]),
                    brand_id,
                    _text(product["name"]),
                    _amount(product["minFaceValue"]),
                    _amount(product["maxFaceValue"]),
                    None if count is None else _whole(count),
                    _amount(price["min"]),
                    _amount(price["max"]),
                    _text(price["currencyCode"]),
                    wire_time(_optional_text(product.get("modifiedDate"))),
                )
            )
    except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError) as problem:
        raise MalformedResponseError(
            f"catalog v2: response does not match CatalogPage ({where}: {type(problem).__name__} {problem})"
        ) from None


def _text(value: Any) -> str:
    if type(value) is not str:
        raise TypeError("expected text")
    return value


def _optional_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _whole(value: Any) -> int:
    if type(value) is int and number_is_sane(str(value)):
        return value
    if isinstance(value, str) and number_is_sane(value):  # text, or a number with a fraction (_Number)
        number = Decimal(value)
        if number == number.to_integral_value():
            return int(number)
    raise ValueError("expected a whole number")


def _amount(value: Any) -> str:
    """The amount as the exact text it came as; a money object (`{"value", "currencyCode"}`, the provider's
    dialect, as tui.api.models.Amount reads it) by its value."""
    if type(value) is dict and "value" in value:
        value = value["value"]
    if (type(value) is _Number or type(value) is int or type(value) is str) and number_is_sane(str(value)):
        return str(value)  # finite, and within any sane range (not 1e999999, nor 5,000 digits)
    raise ValueError("expected a number within a sane range")
