"""tui.api.wire_check: an answer it takes is one the Order model takes as it is, given back as
`to_wire` gives it; anything else goes to the model (and its messages). Issue 16."""

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
from tui.api.models import Order, to_wire

SHAPES = [wire_check.ORDER, wire_check.ORDER_ITEM, wire_check.CARD]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.model)
def test_each_shape_is_its_model_field_for_field(shape):
    model = getattr(models, shape.model)
    assert [f.name for f in shape.fields] == list(model.model_fields)  # same fields, same order
    for field in shape.fields:
        info = model.model_fields[field.name]
        assert field.wire == info.alias
        assert field.required == info.is_required()
        if isinstance(field.check, wire_check.Shape):
            assert get_args(info.annotation) == (getattr(models, field.check.model),)  # list[Model]


TEXT = ["", "Sold", "[/]"]
RIGHT = {  # values each check takes
    wire_check._integer: [0, 7, 500001],
    wire_check._text: TEXT,
    wire_check._optional_text: [None, *TEXT],
    wire_check._amount: [25, Decimal("10.50"), Decimal("0.001")],
    wire_check._anything: [None, "x", {"a": [1]}],
}
WRONG = [None, True, "12", 1.5, Decimal("NaN"), [], {}]


EXTRA_KEYS = ["zz", "orderNumber", "order_id", "product_id", "card_code"]
EXTRA_VALUES = [None, 1, "x", [1, {"a": None}], {"b": [2]}]


def near(shape: wire_check.Shape, rng: random.Random) -> dict[str, Any]:
    """An answer near the shape: each field right (mostly), wrong or missing, and maybe unknown fields."""
    answer: dict[str, Any] = {key: rng.choice(EXTRA_VALUES) for key in rng.sample(EXTRA_KEYS, rng.randint(0, 2))}
    for field in shape.fields:
        roll = rng.random()
        if roll < 0.1:
            continue
        if roll < 0.2:
            answer[field.wire] = rng.choice(WRONG)
        elif isinstance(field.check, wire_check.Shape):
            answer[field.wire] = [near(field.check, rng) for _ in range(rng.randint(0, 2))]
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


def test_a_typical_answer_is_taken_and_unusual_ones_go_to_the_model():
    order = {"orderId": 1, "requestId": "r", "status": "Succeeded", "total": Decimal("25.00"), "extra": {"x": 1},
             "items": [{"productId": 201, "productFaceValue": 25, "quantity": 1,
                        "cards": [{"id": 9, "status": "Sold", "cardCode": "C-1", "pin": None}]}]}
    assert wire_check.ORDER.arranged(order) == to_wire(Order.model_validate(order))
    for unusual in ({**order, "orderId": "1"}, {**order, "order_id": 1}, {**order, "items": None},
                    {k: v for k, v in order.items() if k != "total"}, [order], "order"):
        assert wire_check.ORDER.arranged(unusual) is None


def test_order_show_json_prints_a_good_answer_without_loading_pydantic(sim, demo_credentials, tmp_path):
    credential = demo_credentials["acme-sandbox"]
    request_id = str(uuid.uuid4())
    body = {"RequestId": request_id, "AccountId": 1001, "Products": [{"ProductId": 201, "Quantity": 1, "Value": 25}]}
    httpx.post(f"{sim.base_url}/api/integration/v1.0/orders/checkout", json=body, auth=credential.auth).raise_for_status()
    code = ("import sys\nfrom tui.cli import main\n"
            f"try:\n    main(['order', 'show', {request_id!r}, '--json'])\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
            "assert 'pydantic' not in sys.modules, 'loaded pydantic'")
    env = {"GIFTDESK_BASE_URL": sim.base_url, "GIFTDESK_CLIENT_ID": credential.client_id,
           "GIFTDESK_CLIENT_SECRET": credential.client_secret, "GIFTDESK_CONFIG": str(tmp_path / "none.toml"),
           "GIFTDESK_DATA_DIR": str(tmp_path), "PATH": ""}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    raw = httpx.get(f"{sim.base_url}/api/integration/v1.0/orders/{request_id}", auth=credential.auth).json()
    assert list(shown) == list(raw) and shown["requestId"] == request_id  # (its status moves on meanwhile)
