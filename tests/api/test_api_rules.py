"""tui.api's pure parts against the shared table of spec truth: payout rules,
statuses, weblink tokens, and redaction."""

from __future__ import annotations

import logging

import pytest
from spec_cases import (
    CARD_CODE_RELEASABLE,
    CARD_STATUS_FINAL,
    ORDER_STATUS_FINAL,
    PAYOUT_CASES,
    PAYOUT_STATUS_FINAL,
    UNKNOWN_STATUSES,
    WEBLINK_CASES,
)

from tui.api import redact, statuses
from tui.api.models import RedeemRequest
from tui.api.payout_rules import RecipientInvalid, redeem_problem, validate_redeem
from tui.api.weblink import WeblinkError, is_payout_url, weblink_token


@pytest.mark.parametrize("case", PAYOUT_CASES, ids=lambda case: case.name)
def test_payout_rules(case):
    assert redeem_problem(case.body) == case.error
    if case.error is None:
        validate_redeem(case.body)
    else:
        with pytest.raises(RecipientInvalid) as caught:
            validate_redeem(case.body)
        assert str(caught.value) == caught.value.text == case.error


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in PAYOUT_CASES
        if c.body and set(c.body) <= {"wallet", "recipientEmail", "recipientPhone", "recipientHandle"}
    ],
    ids=lambda case: case.name,
)
def test_payout_rules_read_a_redeem_request_like_its_wire_body(case):
    request = RedeemRequest(
        case.body.get("wallet"),
        recipient_email=case.body.get("recipientEmail"),
        recipient_phone=case.body.get("recipientPhone"),
        recipient_handle=case.body.get("recipientHandle"),
    )
    assert redeem_problem(request) == case.error


@pytest.mark.parametrize(
    "table, is_final",
    [
        (ORDER_STATUS_FINAL, statuses.is_order_final),
        (CARD_STATUS_FINAL, statuses.is_card_final),
        (PAYOUT_STATUS_FINAL, statuses.is_payout_final),
    ],
)
def test_finality_agrees_with_the_table_in_any_case(table, is_final):
    for status, final in table.items():
        for spelling in (status, status.lower(), status.upper(), f" {status} "):
            assert is_final(spelling) is final, spelling
    for unknown in [*UNKNOWN_STATUSES, None]:
        assert is_final(unknown) is False


def test_only_releasable_card_statuses_release_codes():
    for status in CARD_STATUS_FINAL:
        assert statuses.card_code_releasable(status) is (status in CARD_CODE_RELEASABLE)
        assert statuses.card_code_releasable(status.lower()) is (status in CARD_CODE_RELEASABLE)
    assert not any(statuses.card_code_releasable(s) for s in UNKNOWN_STATUSES)


def test_every_known_status_has_a_meaning_and_unknown_ones_say_so():
    pairs = [
        (ORDER_STATUS_FINAL, statuses.order_status_meaning),
        (CARD_STATUS_FINAL, statuses.card_status_meaning),
        (PAYOUT_STATUS_FINAL, statuses.payout_status_meaning),
    ]
    for table, meaning in pairs:
        for status in table:
            assert meaning(status.lower()) != statuses.UNKNOWN_MEANING
        assert meaning("Refunded") == statuses.UNKNOWN_MEANING


@pytest.mark.parametrize("case", WEBLINK_CASES, ids=lambda case: case.given.strip())
def test_weblink_token(case):
    assert weblink_token(case.given) == case.token


@pytest.mark.parametrize("given", ["", "   ", "https://pay.example.test/", "https://pay.example.test"])
def test_no_token_is_an_error(given):
    with pytest.raises(WeblinkError):
        weblink_token(given)


def test_odd_characters_are_escaped_once():
    assert weblink_token("ab c%zz%3D") == "ab%20c%25zz%3D"


def test_is_payout_url():
    assert is_payout_url("https://pay.example.test/payout/abc%3D")
    assert is_payout_url("HTTP://pay.example.test/p/abc")
    for not_url in ("ABCD-1234-EFGH", "abc%3D", "https://pay.example.test/", None, ""):
        assert not is_payout_url(not_url)


# --- redaction -------------------------------------------------------------------------


def test_masks_keep_only_a_short_tail():
    url = "https://pay.example.test/payout/abcdefghijklmnop1234%3D"
    assert redact.mask_weblink(url) == "https://pay.example.test/payout/****1234"
    assert redact.mask_card_code(url) == redact.mask_weblink(url)
    assert redact.mask_card_code("GIFT-CODE-ABCD-9876") == "****9876"
    assert redact.mask_card_code("1234") == "****"  # short values show nothing
    assert redact.mask_pin("4321") == "****" and redact.mask_secret("x") == "****"
    assert redact.mask_email("ann.smith@example.com") == "a****@****.com"
    assert redact.mask_phone("+15551234567") == "+****4567"
    assert redact.mask_handle("@ann_smith") == "@a****"
    assert [redact.mask_recipient(v) for v in ("ann@example.com", "+15551234567", "@ann_smith")] == [
        "a****@****.com",
        "+****4567",
        "@a****",
    ]
    assert redact.mask_card_code(None) == redact.mask_pin(None) == ""


def test_mask_text_hides_registered_secrets_and_known_shapes():
    redact.register_secret("registered-secret-42")
    text = (
        "GET http://h/api/Integration/v2/payout/status/tokenABCDEFGH%3D -> 429; "
        "card https://pay.example.test/payout/otherTOKEN9876 to ann@example.com "
        "Authorization: Basic YWJjOmRlZg== secret registered-secret-42 and bareToken12345%3D%3D"
    )
    masked = redact.mask_text(text)
    for secret in (
        "tokenABCDEFGH",
        "otherTOKEN9876",
        "ann@example.com",
        "YWJjOmRlZg",
        "registered-secret-42",
        "bareToken12345",
    ):
        assert secret not in masked
    assert "/payout/status/****EFGH" in masked


def test_log_filter_masks_message_args_and_exception_text():
    redact.register_secret("client-secret-xyz")
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(self.format(record))

    logger = logging.getLogger("test.redaction")
    handler = Keep()
    handler.addFilter(redact.RedactionFilter())
    logger.addHandler(handler)
    try:
        logger.warning("redeem %s for %s", "https://pay.example.test/payout/TOKENabc123%3D", "bob@example.com")
        try:
            raise RuntimeError("auth with client-secret-xyz failed")
        except RuntimeError:
            logger.exception("boom %s", "client-secret-xyz")
    finally:
        logger.removeHandler(handler)
    text = "\n".join(records)
    assert "TOKENabc123" not in text and "bob@example.com" not in text
    assert "client-secret-xyz" not in text and "RuntimeError" in text


@pytest.mark.parametrize("padding", ["", "=", "==", "%3D", "%3D%3D"])
def test_one_weblink_masks_to_the_same_four_characters_as_a_url_a_token_a_code_or_in_text(padding):
    """Issue 39 item 7: `****QhIg` here, `****hIg=` there: the bare token, as a card code, kept its padding."""
    from tui.api.redact import mask_card_code, mask_text, mask_weblink

    token = f"tok_3fZx9QhIg{padding}"
    url = f"https://payout.example.com/payout/{token}"
    assert mask_weblink(url).endswith("/****QhIg")
    assert mask_weblink(token) == "****QhIg"
    assert mask_card_code(url) == mask_weblink(url)
    assert mask_card_code(token) == "****QhIg"
    assert "****QhIg" in mask_text(f"redeem of {url} failed") and token not in mask_text(f"redeem of {url} failed")
