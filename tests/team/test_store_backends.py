"""The same store tests on both backends: this machine's SQLite files and the team's PostgreSQL.

Each test takes a store fixture of tests/team/conftest.py and runs once per
backend ([sqlite], [postgresql]), so the twins keep one interface and one set of rules.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from team_support import as_login

from tui.core.endings import NEEDS_ATTENTION
from tui.local.inbox import ACCEPTED, CALLBACK, Delivery
from tui.local.storage import AuditLog

CARD_CODE = "https://payout.example.test/redeem/Zm9vYmFyYmF6cXV4MTIzNDU2%3D"


# --- the watch list -----------------------------------------------------------------------


def test_watch_items_keep_their_status_and_a_removed_one_stays_removed(watch_store):
    order = watch_store.add("sandbox", "order", " REQ-1 ")
    watch_store.add("production", "order", "REQ-9")
    assert order.label == "REQ-1" and order.status is None and not order.final
    first = watch_store.record(order.id, "Processing", False, "0 of 1 card sold")
    assert first is not None and first.changed_at is not None and first.detail == "0 of 1 card sold"
    same = watch_store.record(order.id, "Processing", False, "0 of 1 card sold")
    assert same is not None and same.changed_at == first.changed_at
    assert [(i.label, i.status) for i in watch_store.items("sandbox")] == [("REQ-1", "Processing")]
    assert len(watch_store.items()) == 2

    watch_store.remove(order.id)
    assert watch_store.items("sandbox") == []
    assert watch_store.record(order.id, "Succeeded", True) is None  # a late answer does not bring it back
    back = watch_store.add("sandbox", "order", "REQ-1")
    assert back.id == order.id and watch_store.add("sandbox", "order", "REQ-1").id == order.id


def test_watch_counts_say_what_is_open_and_what_ended_badly(watch_store):
    ids = [watch_store.add("p", "order", f"REQ-{n}").id for n in range(4)]
    watch_store.record(ids[0], "Succeeded", True)
    watch_store.record(ids[1], "Failed", True)
    watch_store.record(ids[2], "Processing", False)
    assert watch_store.counts("p", NEEDS_ATTENTION) == (2, 1)
    assert watch_store.counts("other", NEEDS_ATTENTION) == (0, 0)


def test_a_pinned_payout_is_shown_masked_and_looked_up_by_its_weblink_then_forgets_it(watch_store, memory_keyring):
    payout = watch_store.add("sandbox", "payout", CARD_CODE)
    assert (
        payout.kind == "payout" and payout.reference == "Zm9vYmFyYmF6cXV4MTIzNDU2%3D"
    )  # what this giftdesk looks it up by
    assert "Zm9vYmFy" not in payout.label and watch_store.add("sandbox", "payout", CARD_CODE).id == payout.id
    assert [item.id for item in watch_store.items("sandbox")] == [payout.id]
    ended = watch_store.record(payout.id, "Completed", True, "transactionId T-1")
    assert ended is not None and ended.final and ended.reference == ""  # ended: its weblink is not kept
    assert watch_store.counts("sandbox", NEEDS_ATTENTION) == (0, 0)


# --- notes on orders ------------------------------------------------------------------------


def test_notes_are_kept_per_order_with_author_and_time(note_store):
    first = note_store.add("p", "REQ-1", "  customer called 10:42, code re-sent  ")
    note_store.add("p", "REQ-1", "[b]not markup[/b]\x1b]52;c;x\x07")
    note_store.add("p", "REQ-2", "refund asked")
    note_store.add("other", "REQ-1", "another profile's")
    notes = note_store.for_order("p", "REQ-1")
    assert [n.body for n in notes] == ["customer called 10:42, code re-sent", "[b]not markup[/b]\x1b]52;c;x\x07"]
    assert first.author == "ana" and datetime.fromisoformat(first.written_at) > datetime.now(UTC) - timedelta(minutes=1)
    assert note_store.noted_orders("p") == {"REQ-1": 2, "REQ-2": 1}


def test_a_note_is_checked_and_masked(note_store):
    with pytest.raises(ValueError, match="needs some text"):
        note_store.add("p", "REQ-1", "   ")
    with pytest.raises(ValueError, match="at most 2000 characters"):
        note_store.add("p", "REQ-1", "x" * 2001)
    note = note_store.add("p", "REQ-1", f"sent {CARD_CODE} to jane.doe@example.com")
    assert "Zm9vYmFyYmF6cXV4MTIzNDU2" not in note.body and "jane.doe@example.com" not in note.body


# --- the audit log --------------------------------------------------------------------------


def test_audit_entries_are_read_back_newest_first_and_masked(audit_store):
    audit_store.record(
        profile="p",
        environment="sandbox",
        action="redeem",
        subject=CARD_CODE,
        outcome="ok",
        wallet="Venmo",
        recipient="+15551234567",
    )
    audit_store.record(profile="p", environment="sandbox", action="new-order", subject="REQ-7", outcome="Succeeded")
    newest, oldest = audit_store.entries()
    assert (newest.action, oldest.action) == ("new-order", "redeem")
    assert "Zm9vYmFyYmF6cXV4MTIzNDU2" not in oldest.subject and "5551234567" not in (oldest.recipient or "")
    assert [e.subject for e in audit_store.entries(filter_text="req-7")] == ["REQ-7"]
    assert [e.action for e in audit_store.entries(action="redeem")] == ["redeem"]


def test_the_audit_chain_verifies_until_something_is_changed(audit_store):
    for n in range(3):
        audit_store.record(profile="p", environment="sandbox", action="redeem", subject=f"S{n}", outcome="ok")
    assert audit_store.first_break() == (3, None)


def test_the_audit_log_finds_its_last_entries_removed(audit_store):
    for n in range(4):
        audit_store.record(profile="p", environment="sandbox", action="redeem", subject=f"S{n}", outcome="ok")
    remove_last_entries(audit_store, 2)  # what is left is a whole chain: only the head shows the cut
    count, broken = audit_store.first_break()
    assert count == 2 and broken is not None and broken.startswith("the last entries are missing")


def remove_last_entries(audit_store, count: int) -> None:
    """Behind the store's back: the file's last lines, or the table's last rows past its trigger."""
    if isinstance(audit_store, AuditLog):
        lines = audit_store.path.read_text().splitlines(keepends=True)
        audit_store.path.write_text("".join(lines[:-count]))
        return
    with as_login(audit_store.link.database, "postgres").connect() as connection:  # the owner: an operator may not
        connection.execute("ALTER TABLE audit DISABLE TRIGGER audit_append_only")
        connection.execute("DELETE FROM audit WHERE id IN (SELECT id FROM audit ORDER BY id DESC LIMIT %s)", (count,))


# --- the receiver's inbox -------------------------------------------------------------------


def test_the_inbox_keeps_a_delivery_once_and_marks_it(inbox_factory):
    inbox = inbox_factory("acme")
    delivery = Delivery.accepted_now(
        "callback:REQ-1", CALLBACK, {"requestId": "REQ-1", "secretKey": "s3cret-key-value"}, "10.0.0.1"
    )
    assert inbox.keep(delivery) is True
    assert inbox.keep_all([delivery, Delivery.accepted_now("msg_2", "productupdated.v1", {}, "x")]) == [False, True]
    assert inbox_factory("other").since() == []
    assert [d.event_id for d in inbox.unprocessed()] == ["callback:REQ-1", "msg_2"]
    inbox.mark("callback:REQ-1", "order REQ-1 settled: Succeeded")
    assert [d.event_id for d in inbox.unprocessed()] == ["msg_2"]
    [kept, _] = inbox.since()
    assert (kept.verdict, kept.outcome, kept.payload) == (
        ACCEPTED,
        "order REQ-1 settled: Succeeded",
        {"requestId": "REQ-1"},
    )
    assert [d.event_id for d in inbox.since(datetime.now(UTC) + timedelta(seconds=5))] == []


def test_a_callback_settles_a_watched_order_by_its_request_id(watch_store):
    item = watch_store.add("p", "order", "REQ-5")
    assert watch_store.settle_order("p", "REQ-404", "Succeeded") is None  # not watched: nothing to settle
    settled = watch_store.settle_order("p", "REQ-5", "Succeeded")
    assert settled is not None and settled.id == item.id and settled.final and settled.detail == "from the callback"
