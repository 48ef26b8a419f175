"""Property tests (Hypothesis) for outside text: the helpers and the row builders (issue 12).

Any string renders, never raises, never puts a control or format character in
what is drawn or printed, and shows every printable character it had, in order.
"""

from __future__ import annotations

import io
import json
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from tui.api.models import Account, Brand, Card, Order, Product
from tui.commands.output import table
from tui.core.safe_text import is_safe, json_visible, visible, visible_in_place
from tui.local.storage import AuditEntry
from tui.screens import audit, catalog_rows, notifications, order
from tui.screens.accounts import AccountsScreen
from widgets.safe_text import VisibleControls, safe, safe_assemble, safe_row

HIDDEN = ("Cc", "Cf", "Zl", "Zp", "Cs")
# Every kind of character, with the dangerous ones and markup brackets far more often than by chance.
DANGEROUS = st.sampled_from(
    [
        "\x1b",
        "\x07",
        "\r",
        "\x08",
        "\x9b",
        "\u202e",
        "\u200b",
        "\u200d",
        "\ufeff",
        "\x7f",
        "[",
        "]",
        "/",
        "@",
        "=",
        "\\",
        "\n",
        "\t",
        "\u0301",
        "🎁",
        "\u2028",
    ]
)
OUTSIDE = st.lists(
    st.one_of(st.characters(), DANGEROUS, st.sampled_from(["[/]", "[b]", "[@click=app.quit]", "[link=x]"])), max_size=60
).map(lambda parts: "".join(parts)[:50])  # under every display limit
PROFILE = st.sampled_from(["demo-sandbox", "prod"])


def printable(text: str) -> list[str]:
    return [char for char in text if unicodedata.category(char) not in HIDDEN]


def in_order(needles: list[str], haystack: str) -> bool:
    """Each of `needles` found in `haystack`, one after the other."""
    position = 0
    for needle in needles:
        position = haystack.find(needle, position)
        if position < 0:
            return False
        position += len(needle)
    return True


def drawn(*renderables: object) -> str:
    """What a terminal would be sent for these renderables (styles aside), wrapped at 80 columns."""
    console = Console(file=io.StringIO(), width=80, force_terminal=True, color_system="truecolor", record=True)
    for renderable in renderables:
        console.print(renderable)
    return console.export_text(styles=False)


def no_controls(text: str) -> bool:
    return not [char for char in text if char != "\n" and unicodedata.category(char) in HIDDEN]


# --- the helpers ------------------------------------------------------------------------


@given(OUTSIDE)
def test_visible_hides_nothing_and_shows_every_printable_character(text):
    shown = visible(text)
    assert is_safe(shown) and "\n" not in shown
    assert in_order(printable(text), shown)
    assert visible(shown) == shown  # stand-ins are themselves printable: nothing changes twice


@given(OUTSIDE)
def test_multiline_keeps_line_feeds_only(text):
    shown = visible(text, multiline=True)
    assert is_safe(shown, multiline=True)
    assert shown.count("\n") == text.count("\n")
    assert in_order([c for c in printable(text) if c != "\t"], shown)


@given(OUTSIDE, st.integers(min_value=0, max_value=20))
def test_a_limit_cuts_and_says_how_long_it_was(text, limit):
    shown = visible(text, limit=limit)
    assert is_safe(shown)
    said = f"… ({len(text):,} characters)"
    if len(text) > limit + len(said):
        assert shown.endswith(f"({len(text):,} characters)")
    else:  # a cut that would save nothing (`(62 characters)` after 60 of them) is not made
        assert shown == visible(text)


@given(OUTSIDE)
def test_in_place_stand_ins_keep_the_length(text):
    shown = visible_in_place(text)
    assert len(shown) == len(text) and is_safe(shown)
    assert [a for a, b in zip(text, shown, strict=True) if a != b] == [c for c in text if not is_safe(c)]


@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), OUTSIDE),
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(OUTSIDE, inner, max_size=4)),
        max_leaves=12,
    )
)
def test_json_stays_exactly_the_same_value_with_nothing_hidden(data):
    document = json_visible(json.dumps(data, indent=2, ensure_ascii=False))
    assert json.loads(document) == data
    assert no_controls(document)


@given(OUTSIDE, st.sampled_from(["", "bold", "red"]))
def test_safe_text_is_literal_and_draws_no_control(text, style):
    shown = safe(text, style=style)
    assert shown.plain == visible(text)  # never parsed: the brackets are all there
    out = drawn(shown, safe(text, multiline=True), safe_assemble((text, "bold"), text, Text("ours")))
    assert no_controls(out)


@given(OUTSIDE)
def test_a_text_field_draws_each_character_as_one(text):
    shown = VisibleControls()(Text(text))
    assert len(shown.plain) == len(Text(text).plain) and no_controls(shown.plain)


@given(st.lists(st.one_of(OUTSIDE, st.none(), st.integers()), min_size=1, max_size=5), st.integers(0, 3))
def test_cli_table_prints_no_control_and_every_character(cells, rows):
    printed = table([f"H{i}" for i in range(len(cells))], [cells] * rows)
    assert no_controls(printed)
    for cell in cells if rows else []:
        assert in_order(printable(str(cell)) if cell is not None else [], printed)


# --- the row builders ---------------------------------------------------------------------


def check_row(cells: tuple, *texts: str) -> None:
    assert all(isinstance(cell, Text) for cell in cells), cells  # DataTable parses a str cell as markup
    out = drawn(*cells)
    assert no_controls(out)
    joined = "".join(cell.plain for cell in cells)
    for text in texts:
        assert in_order(printable(text), joined)


def product(name: str, count: int | None = None) -> Product:
    return Product.model_validate(
        {
            "id": 7,
            "name": name,
            "minFaceValue": 5,
            "maxFaceValue": 50,
            "count": count,
            "price": {"min": 5, "max": 50, "currencyCode": "USD"},
            "modifiedDate": "2024-01-01",
        }
    )


@settings(max_examples=60)
@given(OUTSIDE, OUTSIDE, OUTSIDE)
def test_catalog_rows(name, product_name, country):
    brand = Brand.model_validate(
        {
            "internalId": "1",
            "name": name,
            "countryCode": country,
            "currencyCode": "USD",
            "products": [product(product_name, 0).model_dump(by_alias=True)],
        }
    )
    check_row(catalog_rows.brand_row(brand), name, country)
    check_row(catalog_rows.product_row(product(product_name), "USD"), product_name)


@settings(max_examples=60)
@given(OUTSIDE, OUTSIDE)
def test_account_row(currency, environment):
    account = Account.model_validate(
        {"id": 5, "currency": currency, "balance": 12.5, "isActive": True, "sandboxMode": True}
    )
    check_row(AccountsScreen._row(account, environment, 5), currency)


@settings(max_examples=60)
@given(OUTSIDE, OUTSIDE, OUTSIDE, OUTSIDE)
def test_order_rows_and_head(serial, status, error, order_type):
    card = Card.model_validate(
        {"id": 1, "serialNumber": serial, "status": status, "cardCode": "CODE-1234-5678", "pin": None}
    )
    check_row(order._card_cells(card, 102), serial, status)
    head = order._order_head(
        Order.model_validate(
            {
                "orderId": 1,
                "requestId": "r",
                "status": status,
                "total": 1,
                "errorMessage": error,
                "orderType": order_type,
                "items": [],
            }
        )
    )
    assert no_controls(drawn(head))
    assert in_order(printable(order_type) + printable(error), head.plain)


@settings(max_examples=60)
@given(OUTSIDE, OUTSIDE, OUTSIDE, PROFILE)
def test_audit_row_and_detail(action, subject, outcome, profile):
    entry = AuditEntry(
        time="2026-01-02T03:04:05Z",
        profile=profile,
        environment="sandbox",
        action=action,
        subject=subject,
        outcome=outcome,
        detail=outcome,
    )
    check_row(audit._row(entry), action, outcome)
    assert no_controls(drawn(audit._describe(entry)))


@settings(max_examples=60)
@given(OUTSIDE, OUTSIDE)
def test_inbox_row(event_id, outcome):
    from datetime import UTC, datetime

    from tui.local.inbox import ACCEPTED, REFUSED, Delivery

    accepted = Delivery(event_id, outcome, ACCEPTED, datetime.now(UTC), "127.0.0.1", {}, outcome=outcome)
    check_row(notifications.row_cells(accepted), event_id)
    refused = Delivery("refused:1", "webhook", REFUSED, datetime.now(UTC), "127.0.0.1", None, reason=outcome)
    check_row(notifications.row_cells(refused), "refused:1")
    assert safe_row("x", None, 3) == (Text("x"), Text(""), Text("3"))


def test_a_detail_a_little_over_the_limit_is_shown_whole():
    detail = "x" * 62
    assert visible(detail, limit=60) == detail  # not 60 of them and "… (62 characters)"
    assert visible("y" * 200, limit=60) == "y" * 60 + "… (200 characters)"
