"""The service's resources as pydantic v2 models, and the request bodies we send.

Responses (what we parse) are pydantic models: snake_case attributes, wire
names as aliases, unknown fields kept (`extra="allow"`), statuses plain str.
`to_wire(model)` gives back exactly the fields that came, under their wire names.

Requests (what we build) are small frozen dataclasses with `to_wire()`:
they need no parsing, and positional construction reads well at call sites.
Fields that carry secrets are left out of every repr.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, GetCoreSchemaHandler, field_validator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError, core_schema


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


class Amount(Decimal):
    """An amount of money as the service sent it: a JSON number, or `{"value", "currencyCode"}`
    (DESIGN.md "What the real provider sends"). The one place that decides how a money field is read.

    It is a Decimal (sums, comparisons and formatting as before), `.value` is the plain Decimal,
    `.currency_code` the currency when the object named one, and it is written back in the form
    it came in (`to_wire`, `--json`).
    """

    __slots__ = ("currency_code", "sent")
    currency_code: str | None
    sent: dict[str, Any] | None  # the object it came as, or None for a plain number

    def __new__(cls, value: object, currency_code: str | None = None, sent: dict[str, Any] | None = None) -> Amount:
        amount = super().__new__(cls, value)  # type: ignore[arg-type]
        amount.currency_code = currency_code
        amount.sent = sent
        return amount

    @property
    def value(self) -> Decimal:
        return Decimal(self)

    @classmethod
    def read(cls, data: Any) -> Amount:
        if isinstance(data, Amount):
            return data
        if isinstance(data, dict):
            currency = data.get("currencyCode")
            if "value" not in data or not (currency is None or isinstance(currency, str)):
                raise PydanticCustomError("money_object", "a money object is {value, currencyCode}")
            return cls(_number(data["value"]), currency, data)
        return cls(_number(data))

    def as_sent(self) -> Any:
        return self.sent if self.sent is not None else Decimal(self)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls.read, serialization=core_schema.plain_serializer_function_ser_schema(cls.as_sent)
        )


def _number(data: Any) -> Decimal:
    """A finite JSON number (as pydantic reads a Decimal: an int, a Decimal, a float, or numeric text)."""
    if isinstance(data, bool) or not isinstance(data, (int, float, Decimal, str)):
        raise PydanticCustomError("amount_type", "an amount is a number or a money object")
    try:
        number = Decimal(str(data).strip()) if isinstance(data, (float, str)) else Decimal(data)
    except InvalidOperation:
        raise PydanticCustomError("amount_parsing", "an amount is a number") from None
    if not number.is_finite():
        raise PydanticCustomError("finite_number", "an amount is a finite number")
    return number


def _null_as_empty(value: Any) -> Any:
    return "" if value is None else value


class Account(WireModel):
    id: int
    currency: str
    balance: Amount
    is_active: bool
    sandbox_mode: bool | None = None  # some accounts come without it: take the profile's environment

    def environment(self, profile_environment: str) -> str:
        """ "sandbox" or "production": the account's own flag, or the profile's when it has none."""
        if self.sandbox_mode is None:
            return profile_environment
        return "sandbox" if self.sandbox_mode else "production"


class Price(WireModel):
    min: Amount
    max: Amount
    currency_code: str


class Product(WireModel):
    id: int
    name: str
    min_face_value: Amount
    max_face_value: Amount
    count: int | None = None  # None: unrestricted; 0: out of stock
    price: Price
    modified_date: str | None = None
    status: str | None = None  # e.g. "Active", "Inactive"
    is_deleted: bool | None = None

    @property
    def is_fixed_value(self) -> bool:
        return self.min_face_value == self.max_face_value

    @property
    def in_stock(self) -> bool:
        return self.count is None or self.count > 0

    @property
    def orderable(self) -> bool:
        """Not deleted, and active (or no status said): a deleted or inactive product cannot be ordered."""
        return not self.is_deleted and (self.status is None or self.status.strip().lower() == "active")


class Category(WireModel):
    id: int
    name: str
    description: str | None = None


class Brand(WireModel):
    internal_id: str | None = None  # catalog version 1 brands have none
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
    page_index: int = Field(validation_alias=AliasChoices("pageIndex", "pageindex", "page_index"))
    page_size: int
    count: int
    items: list[Brand]

    def product(self, product_id: int) -> tuple[Product, str] | None:
        """A product of this page with its brand's currency (the face value's), or None."""
        found = [(p, brand.currency_code) for brand in self.items for p in brand.products if p.id == product_id]
        return found[0] if found else None


# --- the v2.1 catalog (DESIGN.md "Newer catalog endpoints"): every field optional but what names the thing,
# statuses plain text (one not known is shown as it came).


class FaceValueRange(WireModel):
    min: Amount
    max: Amount


class CatalogItem(WireModel):
    """One item of the v2.1 brands: a product with its SKU, face values and status."""

    id: int | None = None
    name: str
    sku: str | None = None
    country_code: str | None = None
    currency_code: str | None = None
    status: str | None = None  # e.g. "Live", "TemporaryInactive"
    logo_url: str | None = None
    modified_date: str | None = None
    face_values: list[FaceValueRange] = []
    categories: list[int] = []  # category ids (GET categories names them)

    @property
    def is_live(self) -> bool:
        return self.status is None or self.status.strip().lower() == "live"


class BrandsPage(WireModel):
    page_index: int = Field(validation_alias=AliasChoices("pageIndex", "pageindex", "page_index"))
    page_size: int
    count: int
    items: list[CatalogItem]


class Stock(WireModel):
    face_value: Amount
    quantity: int | None = None
    is_stocked: bool | None = None
    price: Amount | None = None
    currency_code: str | None = None


class CatalogCountry(WireModel):
    code: str
    name: str | None = None
    default_currency_code: str | None = None
    alpha3_code: str | None = None


class SkuCheckout(WireModel):
    """Checkout by SKU's answer: the order in brief (Get order has the whole of it)."""

    request_id: str
    order_number: str | int | None = None
    status: str | None = None
    currency_code: str | None = None
    total_cards: int | None = None


class Card(WireModel):
    id: int
    serial_number: str | None = None
    card_code: str | None = secret_field(None)
    pin: str | None = secret_field(None)
    expiration_date: str | None = None
    status: str


class OrderItem(WireModel):
    product_id: int
    product_face_value: Amount
    quantity: int
    country_code: str | None = None
    currency_code: str | None = None
    cards: list[Card] = []
    brand_code: Any = None
    picture_url: Any = None
    status: str | None = None  # the item's own status, when the service gives one


class Order(WireModel):
    order_id: int
    request_id: str
    items: list[OrderItem] = []
    status: str
    created_date: str | None = None
    total: Amount
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
    unit_price: Amount | None = None
    sub_total: Amount | None = None
    total: Amount | None = None
    account_currency: str | None = None
    status: str


class NotificationConfig(WireModel):
    """The service answers null for a field never set: read as empty (not set), as SPEC's empty string."""

    notification_url: str = ""  # empty disables callbacks
    notification_url_sandbox: str = ""
    secret_key: str = secret_field("")

    _null_as_empty = field_validator("notification_url", "notification_url_sandbox", "secret_key", mode="before")(
        _null_as_empty
    )


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
class BrandsQuery:
    """The v2.1 brands' filters; None means "not sent"."""

    currency_code: str | None = None
    country_code: str | None = None
    name: str | None = None
    sku: str | None = None
    category_id: int | None = None
    modified_date: date | datetime | str | None = None
    page_size: int | None = None
    page_index: int | None = None

    def to_wire(self) -> dict[str, str]:
        params: dict[str, str] = {}
        for attribute in (
            "currency_code",
            "country_code",
            "name",
            "sku",
            "category_id",
            "modified_date",
            "page_size",
            "page_index",
        ):
            value = getattr(self, attribute)
            if value is not None:
                wire_name = to_camel(attribute)
                params[wire_name] = value.isoformat() if isinstance(value, (date, datetime)) else str(value)
        return params


@dataclass(frozen=True)
class OrderLine:
    product_id: int
    quantity: int = 1
    value: float = 0.0  # face value, within the product's min/max face value

    @property
    def names(self) -> str:
        return f"product {self.product_id}"

    def to_wire(self) -> dict[str, Any]:
        return {"ProductId": self.product_id, "Quantity": self.quantity, "Value": self.value}


class CheckoutLine(Protocol):
    def to_wire(self) -> dict[str, Any]: ...


def checkout_wire(request_id: str, account_id: int, lines: Sequence[CheckoutLine]) -> dict[str, Any]:
    """Place order's body, by id or by SKU: the same fields around lines of either kind."""
    return {"RequestId": request_id, "AccountId": account_id, "Products": [line.to_wire() for line in lines]}


@dataclass(frozen=True)
class PlaceOrder:
    request_id: str  # chosen by the caller; a retry reuses it, never a new one
    account_id: int
    products: list[OrderLine] = field(default_factory=list)

    def to_wire(self) -> dict[str, Any]:
        return checkout_wire(self.request_id, self.account_id, self.products)


@dataclass(frozen=True)
class SkuLine:
    sku: str
    quantity: int = 1
    value: float = 0.0  # face value, within the item's face values

    @property
    def names(self) -> str:
        return f"SKU {self.sku}"

    def to_wire(self) -> dict[str, Any]:
        return {"Sku": self.sku, "Quantity": self.quantity, "Value": self.value}


@dataclass(frozen=True)
class PlaceOrderBySku:
    """Checkout by SKU (the v2.1 catalog): only for a product that has no id (docs/decisions.md)."""

    request_id: str  # chosen by the caller; a retry reuses it, never a new one
    account_id: int
    products: list[SkuLine] = field(default_factory=list)

    def to_wire(self) -> dict[str, Any]:
        return checkout_wire(self.request_id, self.account_id, self.products)


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
