"""The header fits the terminal: a narrow one gets a shorter form that still says what matters."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from widgets.context_bar import Context, describe

WATCHING_IN_PRODUCTION = Context(
    profile="acme-production", environment="production", account="2001 USD", readonly=True, watching=12, attention=3
)


def test_a_wide_terminal_gets_every_word():
    text = describe(WATCHING_IN_PRODUCTION, 160)
    assert (
        text
        == " giftdesk │ profile acme-production │ PRODUCTION │ account 2001 USD │ READ-ONLY │ watching 12 · 3 need attention"
    )
    assert describe(WATCHING_IN_PRODUCTION) == text


@pytest.mark.parametrize("width", [80, 100, 120])
def test_a_narrow_terminal_keeps_environment_read_only_and_the_counts(width):
    text = describe(WATCHING_IN_PRODUCTION, width)
    assert cell_len(text) <= width
    assert "PRODUCTION" in text and "READ-ONLY" in text and "acme-production" in text and "2001 USD" in text
    assert "12" in text and "3" in text.split("PRODUCTION")[1]


def test_the_shortest_form_is_used_only_when_the_longer_does_not_fit():
    demo = Context(profile="demo-sandbox", environment="sandbox", demo=True, watching=1)
    assert describe(demo, 80) == " demo-sandbox │ SANDBOX │ no account │ demo │ watching 1 · 0 need attention"
    assert describe(demo, 60) == " demo-sandbox │ SANDBOX │ no account │ demo │ watch 1 · ⚑ 0"


def test_a_long_profile_name_or_team_words_are_cut_before_the_counts():
    context = Context(
        profile="acme-production-eu-west-payments-reconciliation",
        environment="production",
        account="2001 USD",
        team="team database unreachable, retrying",
        watching=12,
        attention=3,
    )
    text = describe(context, 80)
    assert cell_len(text) <= 80
    assert text.endswith("│ watch 12 · ⚑ 3") and "PRODUCTION" in text and "2001 USD" in text
    assert "…" in text
