"""The Orders board's export: data, not the screen's text (docs/decisions.md, "Glossary": exports).

ISO times with the year (the day alone where only the day is known), amounts as numbers with their
currency apart, stuck and noted as true/false: never the board's `11-28 14:03`, `⚑ stuck` or `1,234.50 USD`.
No Textual here.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from tui.core.triage import BoardRow

HEADERS = [
    "Time (UTC)",
    "Status",
    "Stuck",
    "Noted",
    "Order number",
    "Total",
    "Currency",
    "Qty",
    "Product",
    "Denomination",
    "RequestId",
]

Cell = str | int | float | bool | None


def board_export(rows: Sequence[BoardRow], noted: Collection[str] = ()) -> tuple[list[str], list[list[Cell]]]:
    """Headers and one row of data per board row, in the board's order."""
    return HEADERS, [_data(row, row.request_id in noted) for row in rows]


def _data(row: BoardRow, noted: bool) -> list[Cell]:
    line = row.line
    when = row.placed.isoformat(timespec="seconds") if row.placed else (row.day.isoformat() if row.day else None)
    total = line.sub_total
    return [
        when,
        line.status,
        row.stuck,
        noted,
        line.order_number,
        None if total is None else float(total.value),  # a JSON number; the wire's decimals are at most 4
        line.account_currency,
        line.quantity,
        line.product_name,
        line.denomination,
        line.client_reference_number,
    ]
