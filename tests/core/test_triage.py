"""The board's filter a key at a time (tui.core.triage.Narrowing) answers what a whole filter answers."""

from __future__ import annotations

from datetime import datetime, timedelta

from tui.api.models import OrderHistoryLine
from tui.core.triage import Narrowing, RowQuery, board_rows, filtered, rows_needing_time, sorted_rows

NOW = datetime(2026, 11, 2, 12, 0)
PRODUCTS = ["Acme Books $25", "Acme Books eGift", "Slow Coffee 10", "Payout Card", "Robot Boxes", "Acme Tech"]
STATUSES = ["Succeeded", "Failed", "Pending", "PartialFailed", "Processing"]


def rows():
    lines = [
        OrderHistoryLine.model_validate(
            {
                "orderNumber": f"O-06{number:06d}",
                "orderDate": f"2026-11-02T{number % 12:02d}:{number % 60:02d}:10.000",
                "clientReferenceNumber": f"6f1c0a55-0000-4000-8000-{number:012d}",
                "productName": PRODUCTS[number % len(PRODUCTS)],
                "denomination": f"USD {number % 7 * 5 + 5}",
                "quantity": 1,
                "subTotal": 10.0,
                "accountCurrency": "USD",
                "status": STATUSES[number % len(STATUSES)],
            }
        )
        for number in range(300)
    ]
    return board_rows(lines, now=NOW, stuck_after=timedelta(minutes=15))


def test_each_key_keeps_what_the_whole_filter_keeps_in_its_order():
    board = rows()
    narrowing = Narrowing()
    narrowing.reset(board)
    typed = [
        "",
        "a",
        "ac",
        "acme",
        "acme b",
        "acme bo",
        "bo",
        "b",
        "",
        "o-06",
        "o-060001",
        "o-06000",
        "status:pending",
        "status:pending acme",
        "acme",
        "status:stuck",
        "usd 1",
        "usd 15",
        "usd",
        "boxes acme",
        "acme",
    ]
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


# --- the report dates orders, it does not time them (issue 25) --------------------------------


def line(number: int, status: str, day: str) -> OrderHistoryLine:
    return OrderHistoryLine.model_validate(
        {
            "orderNumber": f"O-{number:08d}",
            "orderDate": f"{day}T00:00:00",
            "clientReferenceNumber": f"6f1c0a55-0000-4000-8000-{number:012d}",
            "status": status,
        }
    )


def test_the_report_date_is_a_day_and_stuck_waits_for_the_orders_time():
    lines = [
        line(1, "Pending", "2026-11-02"),
        line(2, "Succeeded", "2026-11-02"),
        line(3, "Processing", "2026-10-31"),
        line(4, "CheckingOut", "2026-11-02"),
    ]
    board = board_rows(lines, now=NOW, stuck_after=timedelta(minutes=15))
    assert [row.day.isoformat() for row in board] == ["2026-11-02"] * 2 + ["2026-10-31", "2026-11-02"]
    assert [(row.stuck, row.time_unknown) for row in board] == [
        (False, True),  # today and not final: the day alone cannot tell (it was midnight-stuck before)
        (False, False),  # final
        (True, False),  # a day that ended long ago: stuck whatever its time
        (False, True),
    ]  # an unknown status is not final
    assert rows_needing_time(board) == [lines[0].client_reference_number, lines[3].client_reference_number]
    created = {
        lines[0].client_reference_number: datetime(2026, 11, 2, 11, 50),  # 10 minutes ago
        lines[3].client_reference_number: datetime(2026, 11, 2, 4, 29),
    }
    timed = board_rows(lines, now=NOW, stuck_after=timedelta(minutes=15), created=created)
    assert [(row.stuck, row.time_unknown) for row in timed] == [
        (False, False),
        (False, False),
        (True, False),
        (True, False),
    ]
    assert rows_needing_time(timed) == []


def test_just_after_midnight_nothing_of_today_can_be_stuck_yet():
    board = board_rows(
        [line(1, "Pending", "2026-11-02")], now=datetime(2026, 11, 2, 0, 10), stuck_after=timedelta(minutes=15)
    )
    assert (board[0].stuck, board[0].time_unknown) == (False, False)
