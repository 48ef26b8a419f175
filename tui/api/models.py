"""The service's resources as pydantic v2 models, and the request bodies we send.

Responses (what we parse) are pydantic models: snake_case attributes, wire
names as aliases, unknown fields kept (`extra="allow"`), statuses plain str.
`to_wire(model)` gives back exactly the fields that came, under their wire names.

Requests (what we build) are small frozen dataclasses with `to_wire()`:
they need no parsing, and positional construction reads well at call sites.
Fields that carry secrets are left out of every repr.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    # defer_build: a command parses one or two of these; building all at import costs startup time.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow", defer_build=True)


def secret_field(default: Any = ...) -> Any:
    """A field kept out of repr (card codes, PINs, recipients, callback secrets)."""
    return Field(default, repr=False)


def to_wire(model: BaseModel) -> dict[str, Any]:
    """The service's data as it came: wire names, only the fields that were set.
    Amounts stay Decimal (`tui.api.wire_json.dumps` writes them as the numbers they came as)."""
    return model.model_dump(mode="python", by_alias=True, exclude_unset=True)


class Account(WireModel):
    id: int
    currency: str
    balance: Decimal
    is_active: bool
    sandbox_mode: bool | None = None  # an account may lack it: it then takes the profile's environment (DESIGN)


class Price(WireModel):
    min: Decimal
    max: Decimal
    currency_code: str


class Product(WireModel):
    id: int
    name: str
    min_face_value: Decimal
    max_face_value: Decimal
    count: int | None = None  # None: unrestricted; 0: out of stock
    price: Price
    modified_date: str | None = None

    @property
    def is_fixed_value(self) -> bool:
        return self.min_face_value == self.max_face_value

    @property
    def in_stock(self) -> bool:
        return self.count is None or self.count > 0


class Category(WireModel):
    id: int
    name: str
    description: str | None = None


class Brand(WireModel):
    internal_id: str
    name: str
    country_code: str
    currency_code: str
    description: str | None = None
    disclaimer: str | None = None
    redemption_instructions: str | None = None
    terms: str | None = None
    logo_url: str | None = None
    modified_date: str | None = None
    products: list[Product] = []
    categories: list[Category] = []


class CatalogPage(WireModel):
    page_index: int
    page_size: int
    count: int
    items: list[Brand]


class Card(WireModel):
    id: int
    serial_number: str | None = None
    card_code: str | None = secret_field(None)
    pin: str | None = secret_field(None)
    expiration_date: str | None = None
    status: str


class OrderItem(WireModel):
    product_id: int
    product_face_value: Decimal
    quantity: int
    country_code: str | None = None
    currency_code: str | None = None
    cards: list[Card] = []
    brand_code: Any = None
    picture_url: Any = None


class Order(WireModel):
    order_id: int
    request_id: str
    items: list[OrderItem] = []
    status: str
    created_date: str | None = None
    total: Decimal
    error_message: str | None = None
    order_type: str | None = None
    currency: str | None = None

    @property
    def cards(self) -> list[Card]:
        return [card for item in self.items for card in item.cards]


class OrderHistoryLine(WireModel):
    """One order line of the order history (DESIGN.md "Facts"); open the order by `client_reference_number`.

    Fields in the documented order, so that `to_wire` gives them back as the service sends them.
    """

    client_name: str | None = None
    order_number: str
    order_date: str | None = None
    client_reference_number: str  # the RequestId
    channel: str | None = None
    product_name: str | None = None
    denomination: str | None = None  # e.g. "USD 10"
    quantity: int | None = None
    unit_price: Decimal | None = None
    sub_total: Decimal | None = None
    total: Decimal | None = None
    account_currency: str | None = None
    status: str


class NotificationConfig(WireModel):
    notification_url: str = ""  # empty disables callbacks
    notification_url_sandbox: str = ""
    secret_key: str = secret_field("")


class CallbackPayload(WireModel):
    order_id: int
    status: str
    total_cards: int | None = None
    created_on: str | None = None
    completed_on: str | None = None
    secret_key: str | None = secret_field(None)
    request_id: str


class RedeemResult(WireModel):
    transaction_id: str
    payout_batch_id: str
    is_processing: bool
    # Not on the wire: 200 (completed) or 202 (submitted, poll the status).
    http_status: int = Field(200, exclude=True)


class PayoutStatus(WireModel):
    """DESIGN: only `status` is known; the simulator also sends the ids and updatedAt."""

    status: str
    transaction_id: str | None = None
    payout_batch_id: str | None = None
    updated_at: str | None = None


# --- request bodies --------------------------------------------------------


_CATALOG_WIRE_NAMES = {
    "currency_code": "CurrencyCode",
    "country_code": "CountryCode",
    "name": "Name",
    "modified_date": "ModifiedDate",
    "product_id": "ProductId",
    "page_size": "PageSize",
    "page_index": "PageIndex",
    "brand_id": "BrandId",
    "target_currency": "TargetCurrency",
}


@dataclass(frozen=True)
class CatalogQuery:
    """Catalog v2 filters; None means "not sent"."""

    currency_code: str | None = None
    country_code: str | None = None
    name: str | None = None
    modified_date: date | datetime | str | None = None
    product_id: int | None = None
    page_size: int | None = None
    page_index: int | None = None
    brand_id: int | None = None
    target_currency: str | None = None

    def to_wire(self) -> dict[str, str]:
        params: dict[str, str] = {}
        for attribute, wire_name in _CATALOG_WIRE_NAMES.items():
            value = getattr(self, attribute)
            if value is not None:
                params[wire_name] = value.isoformat() if isinstance(value, (date, datetime)) else str(value)
        return params


@dataclass(frozen=True)
class OrderLine:
    product_id: int
    quantity: int = 1
    value: float = 0.0  # face value, within the product's min/max face value

    def to_wire(self) -> dict[str, Any]:
        return {"ProductId": self.product_id, "Quantity": self.quantity, "Value": self.value}


@dataclass(frozen=True)
class PlaceOrder:
    request_id: str  # chosen by the caller; a retry reuses it, never a new one
    account_id: int
    products: list[OrderLine] = field(default_factory=list)

    def to_wire(self) -> dict[str, Any]:
        return {
            "RequestId": self.request_id,
            "AccountId": self.account_id,
            "Products": [line.to_wire() for line in self.products],
        }


@dataclass(frozen=True)
class RedeemRequest:
    wallet: str
    recipient_email: str | None = field(default=None, repr=False)
    recipient_phone: str | None = field(default=None, repr=False)
    recipient_handle: str | None = field(default=None, repr=False)

    @property
    def recipient(self) -> str | None:
        return self.recipient_email or self.recipient_phone or self.recipient_handle

    def to_wire(self) -> dict[str, str]:
        body = {
            "wallet": self.wallet,
            "recipientEmail": self.recipient_email,
            "recipientPhone": self.recipient_phone,
            "recipientHandle": self.recipient_handle,
        }
        return {name: value for name, value in body.items() if value is not None}
