"""Offline search narrows by country and currency with `country:fr` / `currency:eur` in the text (the CLI's
`catalog search` and the TUI's mirror search go through the same Mirror.search)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from test_catalog_mirror import run_sync

from tui.cli import main
from tui.local.mirror import Mirror, SearchFilters
from tui.local.search_terms import split_terms


def test_terms_are_taken_out_and_the_rest_is_searched_for():
    assert split_terms("cinema country:fr") == ("cinema", {"country": "FR"})
    assert split_terms("Currency:eur gift COUNTRY:de") == ("gift", {"currency": "EUR", "country": "DE"})
    assert split_terms("cinema fr") == ("cinema fr", {})  # a bare word stays a word (documented)
    assert split_terms("country:france") == ("country:france", {})  # not a code: left as typed


@pytest.fixture
def synced(sim, demo_credentials, tmp_path):
    with Mirror(tmp_path / "mirror.sqlite3") as mirror:
        run_sync(sim, demo_credentials["acme-sandbox"], mirror)
        yield mirror


def test_country_in_the_text_narrows_as_the_filter_does(synced, sim):
    by_term = synced.search("gift country:gb", limit=1000)
    by_filter = synced.search("gift", SearchFilters(country="GB"), limit=1000)
    assert by_term.count == by_filter.count > 0
    assert {b["countryCode"] for b in by_term.brands} == {"GB"}
    products = synced.search_products("country:de currency:eur")
    assert products and {brand["countryCode"] for brand, _ in products} == {"DE"}
    assert (
        synced.search("gift country:gb", SearchFilters(country="US"), limit=1000).count
        == synced.search("gift", SearchFilters(country="US"), limit=1000).count
    )  # a filter given (--country) wins over the text's


def test_the_cli_search_takes_the_country_term(sim, demo_credentials, monkeypatch):
    credential = demo_credentials["acme-sandbox"]
    monkeypatch.setenv("GIFTDESK_BASE_URL", sim.base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", credential.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", credential.client_secret)
    runner = CliRunner()
    assert runner.invoke(main, ["catalog", "sync"], catch_exceptions=False).exit_code == 0
    result = runner.invoke(main, ["catalog", "search", "tea country:gb", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    import json

    pairs = json.loads(result.stdout)
    assert pairs and {pair["brand"]["countryCode"] for pair in pairs} == {"GB"}
