"""`giftdesk catalog stock | categories | countries` against the simulator over loopback (the v2.1 catalog)."""

from __future__ import annotations

import json

import httpx
import pytest


def wire(sim, demo_credentials, path: str):
    return httpx.get(sim.base_url + path, auth=demo_credentials["acme-sandbox"].auth).json()


def test_stock_readable_and_as_it_came(giftdesk, sim, demo_credentials):
    shown = giftdesk("catalog", "stock", "SIM-402", "20")
    assert shown.exit_code == 0, shown.stderr
    assert "Quantity:" in shown.stdout and " 3\n" in shown.stdout and "In stock:" in shown.stdout
    assert "20.00 USD" in shown.stdout
    as_json = giftdesk("catalog", "stock", "SIM-401", "50", "--json")
    assert as_json.exit_code == 0, as_json.stderr
    assert json.loads(as_json.stdout) == wire(sim, demo_credentials, "/api/integration/v2.0/getstock/SIM-401/50")
    assert json.loads(as_json.stdout)["isStocked"] is False


def test_categories_and_countries_readable_and_as_they_came(giftdesk, sim, demo_credentials):
    for command, path, seen in (
        ("categories", "/api/integration/v2.0/categories", "Books and e-books"),
        ("countries", "/api/integration/v2.0/catalog-countries", "United Kingdom"),
    ):
        shown = giftdesk("catalog", command)
        assert shown.exit_code == 0 and seen in shown.stdout, shown.stderr
        as_json = giftdesk("catalog", command, "--json")
        assert json.loads(as_json.stdout) == wire(sim, demo_credentials, path)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("SIM 402", "20"), "is not a SKU"),
        (("../accounts", "20"), "is not a SKU"),
        (("SIM-402", "twenty"), "VALUE"),
        (("SIM-402", "20.001"), "VALUE"),
        (("SIM-402", "-5"), "VALUE"),
    ],
)
def test_a_bad_sku_or_value_is_exit_2_saying_what_to_give(giftdesk, args, said):
    result = giftdesk("catalog", "stock", *args)
    assert result.exit_code == 2 and said in result.stderr, result.stderr


def test_an_unknown_sku_is_the_services_refusal_in_words(giftdesk):
    result = giftdesk("catalog", "stock", "NO-SUCH-SKU", "20")
    assert result.exit_code == 3 and "InvalidProduct" in result.stderr, result.stderr
