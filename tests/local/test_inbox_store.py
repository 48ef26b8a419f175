"""The receiver's inbox on disk (real SQLite files in a temp dir): kept once per event id, durable
settings, processing marks, nothing secret stored, refused deliveries without their body."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime, timedelta, timezone

from tui.local.inbox import ACCEPTED, CALLBACK, REFUSED, WEBHOOK, Delivery, SqliteInbox, inbox_path

CALLBACK_BODY = {
    "orderId": 7,
    "status": "succeeded",
    "totalCards": 1,
    "createdOn": "2026-01-01T00:00:00",
    "completedOn": "2026-01-01T00:00:01",
    "secretKey": "the-callback-secret-123",
    "requestId": "REQ-1",
}


def test_a_delivery_is_kept_once_by_its_event_id(tmp_path):
    with SqliteInbox("acme", tmp_path / "inbox.sqlite3") as inbox:
        first = Delivery.accepted_now("msg_1", "productupdated.v1", {"productId": 5}, "10.0.0.1")
        assert inbox.keep(first) is True
        again = Delivery.accepted_now("msg_1", "productupdated.v1", {"productId": 6}, "10.0.0.2")
        assert inbox.keep(again) is False
        [kept] = inbox.since()
        assert (kept.event_id, kept.kind, kept.verdict, kept.payload, kept.source) == (
            "msg_1",
            "productupdated.v1",
            ACCEPTED,
            {"productId": 5},
            "10.0.0.1",
        )
        assert inbox.keep_all([again, Delivery.accepted_now("msg_2", "productupdated.v1", {}, "x")]) == [False, True]


def test_kept_deliveries_survive_a_reopen_with_their_marks(tmp_path):
    path = tmp_path / "deep" / "inbox.sqlite3"
    first = SqliteInbox("acme", path)
    first.keep(Delivery.accepted_now("callback:REQ-1", CALLBACK, CALLBACK_BODY, "127.0.0.1"))
    first.keep(Delivery.accepted_now("msg_2", "productupdated.v1", {"productId": 5}, "127.0.0.1"))
    first.mark("callback:REQ-1", "order REQ-1 settled: Succeeded")
    first.close()

    with SqliteInbox("acme", path) as again:
        assert [d.event_id for d in again.unprocessed()] == ["msg_2"]
        done = next(d for d in again.since() if d.event_id == "callback:REQ-1")
        assert done.outcome == "order REQ-1 settled: Succeeded"
        assert done.processed_at is not None and done.processed_at >= done.received_at
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_commits_are_fsynced(tmp_path):
    with SqliteInbox("acme", tmp_path / "inbox.sqlite3") as inbox:
        assert inbox._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert inbox._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_nothing_secret_is_stored(tmp_path):
    path = tmp_path / "inbox.sqlite3"
    body = {
        **CALLBACK_BODY,
        "data": {
            "recipientEmail": "jane.doe@example.com",
            "cards": [{"cardCode": "ABCD-EFGH-IJKL-9876", "pin": "4321", "recipientPhone": "+447700900123"}],
        },
    }
    with SqliteInbox("acme", path) as inbox:
        inbox.keep(Delivery.accepted_now("callback:REQ-1", CALLBACK, body, "127.0.0.1"))
        [kept] = inbox.since()
    assert "secretKey" not in kept.payload
    assert kept.payload["requestId"] == "REQ-1"
    card = kept.payload["data"]["cards"][0]
    assert kept.payload["data"]["recipientEmail"] == "j****@****.com"
    assert (card["cardCode"], card["pin"], card["recipientPhone"]) == ("****9876", "****", "+****0123")
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    for secret in (b"the-callback-secret-123", b"jane.doe", b"ABCD-EFGH", b"4321", b"7700900123"):
        assert secret not in raw


def test_a_refused_delivery_keeps_its_reason_and_nothing_else(tmp_path):
    with SqliteInbox("acme", tmp_path / "inbox.sqlite3") as inbox:
        one = Delivery.refused_now(WEBHOOK, "no matching signature", "203.0.113.9")
        two = Delivery.refused_now(WEBHOOK, "no matching signature", "203.0.113.9")
        assert inbox.keep(one) and inbox.keep(two)  # each refusal is its own row
        refused = inbox.since()
        assert [(d.verdict, d.kind, d.reason, d.payload) for d in refused] == [
            (REFUSED, WEBHOOK, "no matching signature", None)
        ] * 2
        assert inbox.unprocessed() == []  # nothing to do for a refused delivery


def test_since_selects_by_received_time(tmp_path):
    now = datetime.now(UTC)
    with SqliteInbox("acme", tmp_path / "inbox.sqlite3") as inbox:
        inbox.keep(Delivery("old", "productupdated.v1", ACCEPTED, now - timedelta(days=2), "a", {}))
        inbox.keep(Delivery("new", "productupdated.v1", ACCEPTED, now, "a", {}))
        assert [d.event_id for d in inbox.since(now - timedelta(days=1))] == ["new"]
        assert [d.event_id for d in inbox.since(now.astimezone(timezone(timedelta(hours=5))))] == ["new"]  # any zone
        assert [d.event_id for d in inbox.since()] == ["old", "new"]


def test_each_profile_has_its_own_file(tmp_path, monkeypatch):
    monkeypatch.setenv("GIFTDESK_DATA_DIR", str(tmp_path))
    assert inbox_path("acme") != inbox_path("other")
    with SqliteInbox("acme") as acme, SqliteInbox("other") as other:
        acme.keep(Delivery.accepted_now("msg_1", "productupdated.v1", {}, "a"))
        assert other.since() == [] and other.keep(Delivery.accepted_now("msg_1", "productupdated.v1", {}, "a"))
