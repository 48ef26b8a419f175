"""The Order screen's rules without Textual: card summary, backoff, test-order checks."""

from __future__ import annotations

import pytest

from tui.api.models import Product
from tui.core.order_watch import DraftInvalid, card_summary, needs_attention, order_line, readable_time
from tui.core.polling import Backoff


@pytest.mark.parametrize(
    ("statuses", "summary"),
    [
        (["Sold", "Sold", "Sold", "Failed"], "3 of 4 cards sold, 1 failed"),
        (["Sold"], "1 of 1 card sold"),
        (["Failed", "Failed"], "0 of 2 cards sold, 2 failed"),
        (["Sold", "Paused", "Created", "Processing"], "1 of 4 cards sold, 1 paused, 2 in progress"),
        (["sold", "FAILED"], "1 of 2 cards sold, 1 failed"),  # statuses compare case-insensitively
        (["Sold", "Refunded"], "1 of 2 cards sold, 1 refunded"),  # unknown: named, not folded in
        ([], "No cards yet"),
    ],
)
def test_card_summary(statuses, summary):
    assert card_summary(statuses) == summary


def test_failed_and_paused_cards_need_attention():
    assert needs_attention("Failed") and needs_attention("paused")
    assert not needs_attention("Sold") and not needs_attention("Processing") and not needs_attention(None)


def test_backoff_grows_to_its_cap_and_restarts_when_the_order_moves():
    backoff = Backoff(first=1, factor=2, cap=10)
    assert [backoff.delay(n) for n in range(6)] == [1, 2, 4, 8, 10, 10]


def test_readable_time_keeps_what_it_cannot_read():
    assert readable_time("2025-01-02T03:04:05.678") == "2025-01-02 03:04:05"
    assert readable_time("2025-01-02T03:04:05+00:00") == "2025-01-02 03:04:05 +0000"
    assert readable_time("yesterday") == "yesterday"
    assert readable_time(None) == "—"


RANGE = Product(
    id=102,
    name="Acme Books eGift",
    min_face_value=5,
    max_face_value=500,
    count=None,
    price={"min": 5, "max": 500, "currencyCode": "USD"},
)
SCARCE = RANGE.model_copy(update={"id": 402, "name": "Scarce", "count": 3})


def test_a_valid_line():
    line = order_line(RANGE, " 25.50 ", "2")
    assert (line.product_id, line.value, line.quantity) == (102, 25.5, 2)


@pytest.mark.parametrize(
    ("product", "value", "quantity", "problem"),
    [
        (RANGE, "4.99", "1", "between 5 and 500"),
        (RANGE, "500.01", "1", "between 5 and 500"),
        (RANGE, "ten", "1", "must be a number"),
        (RANGE, "10.001", "1", "at most 2 decimals"),
        (RANGE, "NaN", "1", "not NaN or infinity"),
        (RANGE, "10", "0", "between 1 and 500"),
        (RANGE, "10", "501", "between 1 and 500"),
        (RANGE, "10", "1.5", "whole number"),
        (SCARCE, "10", "4", "Only 3 in stock"),
    ],
)
def test_invalid_lines_say_which_field_and_why(product, value, quantity, problem):
    with pytest.raises(DraftInvalid, match=problem):
        order_line(product, value, quantity)


def test_backoff_never_overflows_however_long_nothing_moves():
    # A stuck order watched for days: the wait stays at the cap, never an OverflowError.
    assert Backoff().delay(100_000) == 30.0
