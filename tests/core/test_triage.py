"""The board's filter a key at a time (tui.core.triage.Narrowing) answers what a whole filter answers."""

from __future__ import annotations

from datetime import datetime, timedelta

from tui.api.models import OrderHistoryLine
from tui.core.triage import Narrowing, RowQuery, board_rows, filtered, sorted_rows

NOW = datetime(2026, 11, 2, 12, 0)
PRODUCTS = ["Acme Books $25", "Acme Books eGift", "Slow Coffee 10", "Payout Card", "Robot Boxes", "Acme Tech"]
STATUSES = ["Succeeded", "Failed", "Pending", "PartialFailed", "Processing"]


def rows():
    lines = [OrderHistoryLine.model_validate({
        "orderNumber": f"O-06{number:06d}", "orderDate": f"2026-11-02T{number % 12:02d}:{number % 60:02d}:10.000",
        "clientReferenceNumber": f"6f1c0a55-0000-4000-8000-{number:012d}", "productName": PRODUCTS[number % len(PRODUCTS)],
        "denomination": f"USD {number % 7 * 5 + 5}", "quantity": 1, "subTotal": 10.0, "accountCurrency": "USD",
        "status": STATUSES[number % len(STATUSES)]}) for number in range(300)]
    return board_rows(lines, now=NOW, stuck_after=timedelta(minutes=15))


def test_each_key_keeps_what_the_whole_filter_keeps_in_its_order():
    board = rows()
    narrowing = Narrowing()
    narrowing.reset(board)
    typed = ["", "a", "ac", "acme", "acme b", "acme bo", "bo", "b", "", "o-06", "o-060001", "o-06000", "status:pending",
             "status:pending acme", "acme", "status:stuck", "usd 1", "usd 15", "usd", "boxes acme", "acme"]
    for text in typed:
        query = RowQuery.parse(text)
        assert narrowing(query) == filtered(board, query), text
    resorted = sorted_rows(board, "product", descending=False)
    narrowing.reset(resorted)
    assert narrowing(RowQuery.parse("acme")) == filtered(resorted, RowQuery.parse("acme"))


def test_a_query_narrows_one_whose_words_are_all_within_its_own():
    assert RowQuery.parse("tech").narrows(RowQuery.parse("te"))
    assert RowQuery.parse("books acme").narrows(RowQuery.parse("acm"))
    assert not RowQuery.parse("te").narrows(RowQuery.parse("tech"))
    assert not RowQuery.parse("status:failed te").narrows(RowQuery.parse("te"))
    assert RowQuery.parse("anything").narrows(RowQuery.parse(""))
