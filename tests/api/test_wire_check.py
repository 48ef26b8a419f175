"""tui.api.wire_check: an answer it takes is one the Order model takes as it is, given back as
`to_wire` gives it; a catalog page it takes is built into the very CatalogPage the model
validates; anything else goes to the model (and its messages). Issue 16."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import uuid
from decimal import Decimal
from typing import Any, get_args

import httpx
import pytest
from pydantic import ValidationError

from tui.api import models, wire_check, wire_json
from tui.api.client import ServiceClient
from tui.api.errors import MalformedResponseError
from tui.api.models import CatalogPage, Order, to_wire

SHAPES = [
    wire_check.ORDER,
    wire_check.ORDER_ITEM,
    wire_check.CARD,
    wire_check.CATALOG_PAGE,
    wire_check.BRAND,
    wire_check.PRODUCT,
    wire_check.PRICE,
    wire_check.CATEGORY,
]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.model)
def test_each_shape_is_its_model_field_for_field(shape):
    model = getattr(models, shape.model)
    assert [f.name for f in shape.fields] == list(model.model_fields)  # same fields, same order
    for field in shape.fields:
        info = model.model_fields[field.name]
        assert field.wire == info.alias
        assert field.required == info.is_required()
        if isinstance(field.check, wire_check.Shape) and field.many:
            assert get_args(info.annotation) == (getattr(models, field.check.model),)  # list[Model]
        elif isinstance(field.check, wire_check.Shape):
            assert info.annotation is getattr(models, field.check.model)


TEXT = ["", "Sold", "[/]"]
RIGHT = {  # values each check takes
    wire_check._integer: [0, 7, 500001],
    wire_check._text: TEXT,
    wire_check._optional_text: [None, *TEXT],
    wire_check._optional_integer: [None, 0, 12],
    wire_check._amount: [25, Decimal("10.50"), Decimal("0.001")],
    wire_check._anything: [None, "x", {"a": [1]}],
    wire_check._optional_boolean: [None, True, False],
}
# A money object is what the model's Amount reads and the check leaves to it (issue 25).
WRONG = [None, True, "12", 1.5, Decimal("NaN"), [], {}, {"value": Decimal("5.25"), "currencyCode": "USD"}]


EXTRA_KEYS = ["zz", "orderNumber", "order_id", "product_id", "card_code"]
CATALOG_EXTRA_KEYS = ["zz", "_fields_set", "page_index", "internal_id", "min_face_value", "pageindex", "isDeleted"]
EXTRA_VALUES = [None, 1, "x", [1, {"a": None}], {"b": [2]}]


def near(shape: wire_check.Shape, rng: random.Random, extra_keys: list[str] = EXTRA_KEYS) -> dict[str, Any]:
    """An answer near the shape: each field right (mostly), wrong or missing, and maybe unknown fields."""
    answer: dict[str, Any] = {key: rng.choice(EXTRA_VALUES) for key in rng.sample(extra_keys, rng.randint(0, 2))}
    for field in shape.fields:
        roll = rng.random()
        if roll < 0.1:
            continue
        if roll < 0.2:
            answer[field.wire] = rng.choice(WRONG)
        elif isinstance(field.check, wire_check.Shape) and not field.many:
            answer[field.wire] = near(field.check, rng, extra_keys)
        elif isinstance(field.check, wire_check.Shape):
            answer[field.wire] = [near(field.check, rng, extra_keys) for _ in range(rng.randint(0, 2))]
        else:
            answer[field.wire] = rng.choice(RIGHT[field.check])
    return answer


@pytest.mark.parametrize("seed", range(4))
def test_what_the_check_takes_the_model_takes_and_gives_back_the_same(seed):
    rng = random.Random(seed)
    taken = 0
    for _ in range(500):
        data = near(wire_check.ORDER, rng)
        arranged = wire_check.ORDER.arranged(data)
        try:
            expected = to_wire(Order.model_validate(data))
        except ValidationError:
            assert arranged is None, data  # never passes what the model refuses: the model says why
            continue
        if arranged is not None:
            taken += 1
            assert arranged == expected and list(arranged) == list(expected), data
            assert wire_json.dumps(arranged) == wire_json.dumps(expected), data  # printed alike: order and numbers
    assert taken > 10  # the check does take answers


@pytest.mark.parametrize("seed", range(4))
def test_a_catalog_page_it_builds_is_the_one_the_model_validates(seed):
    rng = random.Random(seed)
    built = 0
    for _ in range(300):
        data = near(wire_check.CATALOG_PAGE, rng, CATALOG_EXTRA_KEYS)
        page = wire_check.CATALOG_PAGE.built(data)
        try:
            expected = CatalogPage.model_validate(data)
        except ValidationError:
            assert page is None, data
            continue
        if page is not None:
            built += 1
            assert page == expected and page.model_fields_set == expected.model_fields_set, data
            assert to_wire(page) == to_wire(expected), data  # the unknown fields too, at every level
            amounts = [
                (product.min_face_value, product.price.max) for brand in page.items for product in brand.products
            ]
            assert all(isinstance(amount, Decimal) for pair in amounts for amount in pair)
    assert built > 10


async def test_the_client_builds_the_simulators_page_as_the_model_does_and_leaves_bad_ones_to_it(sim, demo_credentials):
    credential = demo_credentials["acme-sandbox"]
    async with ServiceClient(sim.base_url, credential.client_id, credential.client_secret) as client:
        page = await client.catalog()
    raw = wire_json.loads(httpx.get(f"{sim.base_url}/api/integration/v2.0/catalog", auth=credential.auth).content)
    assert wire_check.CATALOG_PAGE.built(raw) is not None  # the simulator's answer takes the fast path
    assert page == CatalogPage.model_validate(raw) and page.items

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={**json.loads(wire_json.dumps(raw)), "count": "many"})

    async with ServiceClient(
        "http://service.test", "id", "mock-transport-client-secret", transport=httpx.MockTransport(answer)
    ) as client:
        with pytest.raises(MalformedResponseError, match=r"does not match CatalogPage \(count: int_parsing\)"):
            await client.catalog()


def test_a_typical_answer_is_taken_and_unusual_ones_go_to_the_model():
    order = {
        "orderId": 1,
        "requestId": "r",
        "status": "Succeeded",
        "total": Decimal("25.00"),
        "extra": {"x": 1},
        "items": [
            {
                "productId": 201,
                "productFaceValue": 25,
                "quantity": 1,
                "cards": [{"id": 9, "status": "Sold", "cardCode": "C-1", "pin": None}],
            }
        ],
    }
    assert wire_check.ORDER.arranged(order) == to_wire(Order.model_validate(order))
    for unusual in (
        {**order, "orderId": "1"},
        {**order, "order_id": 1},
        {**order, "items": None},
        {k: v for k, v in order.items() if k != "total"},
        [order],
        "order",
    ):
        assert wire_check.ORDER.arranged(unusual) is None


def test_order_show_json_prints_a_good_answer_without_loading_pydantic(sim, demo_credentials, tmp_path):
    credential = demo_credentials["acme-sandbox"]
    request_id = str(uuid.uuid4())
    body = {"RequestId": request_id, "AccountId": 1001, "Products": [{"ProductId": 201, "Quantity": 1, "Value": 25}]}
    httpx.post(
        f"{sim.base_url}/api/integration/v1.0/orders/checkout", json=body, auth=credential.auth
    ).raise_for_status()
    code = (
        "import sys\nfrom tui.cli import main\n"
        f"try:\n    main(['order', 'show', {request_id!r}, '--json'])\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
        "assert 'pydantic' not in sys.modules, 'loaded pydantic'"
    )
    env = {
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": credential.client_id,
        "GIFTDESK_CLIENT_SECRET": credential.client_secret,
        "GIFTDESK_CONFIG": str(tmp_path / "none.toml"),
        "GIFTDESK_DATA_DIR": str(tmp_path),
        "PATH": "",
    }
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    raw = httpx.get(f"{sim.base_url}/api/integration/v1.0/orders/{request_id}", auth=credential.auth).json()
    assert list(shown) == list(raw) and shown["requestId"] == request_id  # (its status moves on meanwhile)
