"""Telling, without pydantic, that an answer certainly is an Order or a catalog page (issue 16).

`giftdesk order show ID --json` prints the order as it came; importing
pydantic and building the Order model to check it cost that one-shot command
about a fifth of its time. `ORDER.arranged(data)` answers the common case
alone: an answer in which every field has exactly the type the model wants
(ints as ints, text as text, amounts as numbers) is one the model accepts as
it is. Anything else (a missing field, a string where a number belongs, a
field under its snake_case name) gets None, and the caller asks the pydantic
model, whose answer and whose error messages stay the only ones there are.

The catalog's first page is on the demo's start path: `CATALOG_PAGE.built(data)`
gives the CatalogPage model the answer validates to, made with
`model_construct` (no schema built, no validation run: the check did that
part), or None for the model to decide, as above.

Each shape lists its model's fields in the model's order; a test holds every
shape to its model in tui.api.models (names, wire names, types, defaults).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from typing import Any

Check = Callable[[Any], bool]


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _optional_text(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _optional_integer(value: Any) -> bool:
    return value is None or _integer(value)


def _optional_boolean(value: Any) -> bool:
    return value is None or isinstance(value, bool)


def _amount(value: Any) -> bool:
    """A plain number; a money object (`{value, currencyCode}`) is left to the model's Amount."""
    return _integer(value) or (isinstance(value, Decimal) and value.is_finite())


def _anything(value: Any) -> bool:
    return True


def wire_name(name: str) -> str:
    """snake_case to the wire's camelCase, as the models' alias generator does."""
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


@dataclass(frozen=True)
class WireField:
    name: str  # the model's attribute
    check: Check | Shape  # a Shape: a list of that shape, or one of it when not `many`
    required: bool = False
    many: bool = True

    @cached_property
    def wire(self) -> str:  # asked for every field of every brand and product of a page: worked out once
        return wire_name(self.name)


@dataclass(frozen=True)
class Shape:
    model: str  # the name of the model in tui.api.models
    fields: tuple[WireField, ...]

    def arranged(self, data: Any) -> dict[str, Any] | None:
        """`data` as `to_wire(Model.model_validate(data))` gives it (the model's fields in its
        order, then the unknown ones), or None when the model might not take it as it is."""
        if not isinstance(data, dict):
            return None
        if any(field.name in data for field in self.fields if field.name != field.wire):
            return None  # a snake_case name is a second name for the field: the model decides
        arranged = {}
        for field in self.fields:
            if field.wire not in data:
                if field.required:
                    return None
                continue
            value = data[field.wire]
            if isinstance(field.check, Shape) and not field.many:
                value = field.check.arranged(value)
                if value is None:
                    return None
            elif isinstance(field.check, Shape):
                if not isinstance(value, list):
                    return None
                items = [field.check.arranged(item) for item in value]
                if any(item is None for item in items):
                    return None
                value = items
            elif not field.check(value):
                return None
            arranged[field.wire] = value
        known = set(arranged)
        arranged.update((key, value) for key, value in data.items() if key not in known)
        return arranged

    def built(self, data: Any) -> Any:
        """The model instance `Model.model_validate(data)` gives, or None when the model might
        not take `data` as it is (then the caller asks the model)."""
        arranged = self.arranged(data)
        return None if arranged is None else self._construct(arranged)

    def _construct(self, arranged: dict[str, Any]) -> Any:
        from tui.api import models  # pydantic: only for callers that want the model

        values: dict[str, Any] = {}
        for field in self.fields:
            if field.wire not in arranged:
                continue
            value = arranged.pop(field.wire)
            if isinstance(field.check, Shape):
                value = (
                    field.check._construct(value)
                    if not field.many
                    else [field.check._construct(item) for item in value]
                )
            elif field.check is _amount:
                value = models.Amount(value)  # the model's Amount, from a plain number
            values[field.name] = value
        fields_set = {*values, *arranged}  # what validation records: the fields given, and the unknown ones
        built = getattr(models, self.model).model_construct(fields_set, **values)
        built.__pydantic_extra__.update(arranged)  # the unknown fields as they came (any key, even "_fields_set")
        return built


CARD = Shape(
    "Card",
    (
        WireField("id", _integer, required=True),
        WireField("serial_number", _optional_text),
        WireField("card_code", _optional_text),
        WireField("pin", _optional_text),
        WireField("expiration_date", _optional_text),
        WireField("status", _text, required=True),
    ),
)

ORDER_ITEM = Shape(
    "OrderItem",
    (
        WireField("product_id", _integer, required=True),
        WireField("product_face_value", _amount, required=True),
        WireField("quantity", _integer, required=True),
        WireField("country_code", _optional_text),
        WireField("currency_code", _optional_text),
        WireField("cards", CARD),
        WireField("brand_code", _anything),
        WireField("picture_url", _anything),
        WireField("status", _optional_text),
    ),
)

ORDER = Shape(
    "Order",
    (
        WireField("order_id", _integer, required=True),
        WireField("request_id", _text, required=True),
        WireField("items", ORDER_ITEM),
        WireField("status", _text, required=True),
        WireField("created_date", _optional_text),
        WireField("total", _amount, required=True),
        WireField("error_message", _optional_text),
        WireField("order_type", _optional_text),
        WireField("currency", _optional_text),
    ),
)


PRICE = Shape(
    "Price",
    (
        WireField("min", _amount, required=True),
        WireField("max", _amount, required=True),
        WireField("currency_code", _text, required=True),
    ),
)

PRODUCT = Shape(
    "Product",
    (
        WireField("id", _integer, required=True),
        WireField("name", _text, required=True),
        WireField("min_face_value", _amount, required=True),
        WireField("max_face_value", _amount, required=True),
        WireField("count", _optional_integer),
        WireField("price", PRICE, required=True, many=False),
        WireField("modified_date", _optional_text),
        WireField("status", _optional_text),
        WireField("is_deleted", _optional_boolean),
    ),
)

CATEGORY = Shape(
    "Category",
    (
        WireField("id", _integer, required=True),
        WireField("name", _text, required=True),
        WireField("description", _optional_text),
    ),
)

BRAND = Shape(
    "Brand",
    (
        WireField("internal_id", _optional_text),
        WireField("name", _text, required=True),
        WireField("country_code", _text, required=True),
        WireField("currency_code", _text, required=True),
        WireField("description", _optional_text),
        WireField("disclaimer", _optional_text),
        WireField("redemption_instructions", _optional_text),
        WireField("terms", _optional_text),
        WireField("logo_url", _optional_text),
        WireField("modified_date", _optional_text),
        WireField("products", PRODUCT),
        WireField("categories", CATEGORY),
    ),
)

CATALOG_PAGE = Shape(
    "CatalogPage",
    (
        WireField("page_index", _integer, required=True),
        WireField("page_size", _integer, required=True),
        WireField("count", _integer, required=True),
        WireField("items", BRAND, required=True),
    ),
)
