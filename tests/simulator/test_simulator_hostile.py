"""The simulator's hostile mode (issue 12): every free-text field holds text that tries to obey;
the same seed serves the same text; everything else is as in the plain simulator."""

from __future__ import annotations

import time

import httpx
from click.testing import CliRunner

from tui.cli import main
from tui.simulator import demo_credential
from tui.simulator.hostile import FREE_TEXT_FIELDS, HOSTILE_STRINGS, harden, hostile_string

CATALOG = "/api/integration/v2.0/catalog"
AUTH = demo_credential("acme-sandbox").auth


def get(sim, path: str, **params) -> object:
    response = httpx.get(sim.base_url + path, params=params, auth=AUTH)
    assert response.status_code == 200, response.text
    return response.json()


def test_free_text_gets_a_hostile_prefix_and_nothing_else_changes(sim_factory):
    plain, hostile = sim_factory(brands=20), sim_factory(brands=20, hostile=True)
    calm, wild = get(plain, CATALOG, pageSize=20), get(hostile, CATALOG, pageSize=20)
    assert wild["count"] == calm["count"] == 20
    for before, after in zip(calm["items"], wild["items"], strict=True):
        for key, value in before.items():
            if key in FREE_TEXT_FIELDS and isinstance(value, str) and value:
                assert after[key] == f"{hostile_string(1, key, value)} {value}"
            elif key not in ("products", "categories"):
                assert after[key] == value, key  # ids, codes, dates, and empty or null texts
        assert [p["id"] for p in after["products"]] == [p["id"] for p in before["products"]]
    names = {
        item["name"].removesuffix(" " + plain_item["name"])
        for item, plain_item in zip(wild["items"], calm["items"], strict=True)
    }
    assert len(names) > 5 and names <= set(HOSTILE_STRINGS)
    assert get(hostile, "/api/integration/v1.0/accounts") == get(plain, "/api/integration/v1.0/accounts")


def test_the_same_seed_serves_the_same_text(sim_factory):
    first, again = sim_factory(brands=10, hostile=True, seed=7), sim_factory(brands=10, hostile=True, seed=7)
    assert get(first, CATALOG) == get(again, CATALOG)
    assert harden({"name": "x"}, 7) == harden({"name": "x"}, 7)


HOSTILE_ORDER = "40571e00-0000-4000-8000-000000000001"


def test_orders_still_work_and_their_free_text_is_hostile(sim_factory):
    sim = sim_factory(brands=10, hostile=True)
    body = {
        "RequestId": HOSTILE_ORDER,
        "AccountId": 1001,
        "Products": [{"ProductId": 102, "Value": 10.13, "Quantity": 1}],
    }
    placed = httpx.post(sim.base_url + "/api/integration/v1.0/orders/checkout", json=body, auth=AUTH)
    assert placed.json() == HOSTILE_ORDER  # the RequestId comes back as it was sent
    for _ in range(400):  # 20 s at most; the simulator takes 0.6 s
        order = get(sim, "/api/integration/v1.0/orders/" + HOSTILE_ORDER)
        if order["status"] == "Failed":
            break
        time.sleep(0.05)
    assert order["status"] == "Failed" and order["requestId"] == HOSTILE_ORDER
    assert order["errorMessage"].endswith("All 1 cards failed to be issued.")
    assert order["errorMessage"].startswith(HOSTILE_STRINGS)
    assert order["items"][0]["cards"][0]["serialNumber"].startswith(HOSTILE_STRINGS)


def test_sim_takes_hostile():
    result = CliRunner().invoke(main, ["sim", "--help"])
    assert "--hostile" in result.output
