"""The case file's verdict: every attention rule of issue 38, and the words a support engineer reads."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from tui.core.case import CaseFacts, Event, PayoutSeen, timeline, verdict

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
D = Decimal

SUCCEEDED = CaseFacts(
    status="Succeeded",
    final=True,
    created=NOW - timedelta(hours=2),
    currency="USD",
    debits=[D("17.51")],
    transactions_known=True,
    total=D("17.51"),
    sold_share=D(1),
)


def reasons(facts: CaseFacts) -> tuple[str, ...]:
    return verdict(facts, NOW).reasons


def test_a_succeeded_order_charged_once_needs_nothing():
    said = verdict(SUCCEEDED, NOW)
    assert not said.attention and said.net == D("17.51")
    assert said.words == "charged 17.51 USD, not refunded, order Succeeded: nothing needs attention"


def test_failed_charged_and_not_refunded_needs_attention_in_the_issues_words():
    failed = replace(SUCCEEDED, status="Failed", sold_share=D(0))
    said = verdict(failed, NOW)
    assert said.words == "charged 17.51 USD, not refunded, order Failed: needs attention"
    assert said.reasons == ("Failed, but 17.51 USD charged and not refunded",)


def test_failed_and_refunded_in_full_needs_nothing():
    refunded = replace(SUCCEEDED, status="Failed", sold_share=D(0), credits=[D("17.51")])
    said = verdict(refunded, NOW)
    assert not said.attention and said.net == 0
    assert said.words.startswith("charged 17.51 USD, refunded 17.51 USD, order Failed")


def test_failed_and_never_charged_needs_nothing():
    assert not reasons(replace(SUCCEEDED, status="Failed", debits=[], sold_share=D(0)))


def test_partial_failed_charged_more_than_its_sold_cards():
    partial = replace(SUCCEEDED, status="PartialFailed", total=D("100.00"), debits=[D("100.00")], sold_share=D("0.25"))
    assert reasons(partial) == ("PartialFailed: 100.00 USD charged for 25 USD of Sold cards",)
    refunded_rest = replace(partial, credits=[D("75.00")])
    assert not reasons(refunded_rest)
    rounding = replace(partial, credits=[D("74.995")])  # under a cent over what was due
    assert not reasons(rounding)


def test_a_final_order_with_no_debit_where_its_days_are_known():
    assert reasons(replace(SUCCEEDED, debits=[])) == ("Succeeded, but no debit for it in its days' transactions",)
    # Where the transactions are not known, nothing is claimed about them.
    unknown = replace(SUCCEEDED, debits=[], transactions_known=False, transactions_problem="limit reached")
    said = verdict(unknown, NOW)
    assert not said.attention and said.words.startswith("charges not known (limit reached)")
    assert said.to_json()["charged"] is None


@pytest.mark.parametrize(
    ("minutes", "said"),
    [(14, None), (15, "15 minutes"), (600, "10 hours"), (4000, "2 days")],
)
def test_not_final_after_15_minutes(minutes, said):
    pending = replace(SUCCEEDED, status="Pending", final=False, debits=[], created=NOW - timedelta(minutes=minutes))
    assert reasons(pending) == (() if said is None else (f"not final {said} after it was created",))


def test_a_refused_callback_and_an_unknown_outcome():
    assert reasons(replace(SUCCEEDED, refused_callbacks=1)) == ("1 callback about it refused by the receiver",)
    assert reasons(replace(SUCCEEDED, unknown_outcomes=2)) == ("2 money actions with an unknown outcome in the audit",)


@pytest.mark.parametrize(
    ("payout", "needs"),
    [
        (PayoutSeen("Unclaimed", 26), True),
        (PayoutSeen("Unclaimed", 24), False),
        (PayoutSeen("Returned", 1), True),
        (PayoutSeen("Reversed", 1), True),
        (PayoutSeen("Completed", 40), False),
    ],
)
def test_payouts_of_its_cards(payout, needs):
    assert bool(reasons(replace(SUCCEEDED, payouts=[payout]))) is needs


def test_the_timeline_is_oldest_first_with_unknown_times_first():
    late = Event(NOW, "order", "status Failed")
    early = Event(NOW - timedelta(hours=1), "transactions", "debit 17.51 USD")
    unknown = Event(None, "notes", "a note of no time")
    assert timeline([late, early, unknown]) == [unknown, early, late]


def test_amounts_in_json_are_decimal_strings():
    said = verdict(replace(SUCCEEDED, debits=[D("18.9401")]), NOW).to_json()
    assert said["charged"] == "18.9401" and said["net"] == "18.9401" and said["currency"] == "USD"


def test_a_whole_amount_due_is_written_plainly():
    partial = replace(SUCCEEDED, status="PartialFailed", total=D("60"), debits=[D("60")], sold_share=D("0.5"))
    assert reasons(partial) == ("PartialFailed: 60 USD charged for 30 USD of Sold cards",)


def test_a_hostile_request_id_reaches_neither_the_terminal_nor_the_ticket_raw():
    from tui.case_file import CaseFile, case_markdown

    hostile = "id\x1b]52;c;eA==\x07\u202e|`"
    case = CaseFile(hostile, "O-00000001", "Failed", verdict(SUCCEEDED, NOW), [])
    summary = case_markdown(case)
    assert "\x1b" not in summary and "\x07" not in summary and "\u202e" not in summary


def test_a_transaction_of_unknown_direction_is_never_read_as_not_charged():
    # Seen against `giftdesk sim --hostile`: a type that says nothing and no balance before it; the verdict said
    # "not charged, order Failed: nothing needs attention".
    unknown = replace(SUCCEEDED, status="Failed", debits=[], sold_share=D(0), undirected=1)
    said = verdict(unknown, NOW)
    assert said.words.startswith("charges not known (1 transaction of unknown direction)")
    assert said.attention and said.to_json()["charged"] is None
    assert "1 transaction for it of unknown direction: read it in the ledger" in said.reasons
    assert not any("no debit" in reason for reason in reasons(replace(SUCCEEDED, debits=[], undirected=1)))
