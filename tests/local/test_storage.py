"""Audit log, recent orders and chosen accounts, on real files in tmp dirs."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tui.api.redact import register_secret
from tui.local.storage import (
    CARD_REVEAL,
    REDEEM,
    TEST_ORDER,
    AuditLog,
    ChosenAccounts,
    RecentOrders,
)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "data"
    monkeypatch.setenv("GIFTDESK_DATA_DIR", str(directory))
    return directory


def redeem(log: AuditLog, **overrides: str) -> None:
    fields = dict(
        profile="acme-prod",
        environment="production",
        action=REDEEM,
        subject="https://pay.example.com/payout/****Xy12",
        outcome="completed",
        wallet="PayPal",
        recipient="j****@****.com",
    )
    log.record(**{**fields, **overrides})


# --- audit log --------------------------------------------------------------------------------


def test_audit_log_appends_json_lines_privately(data_dir: Path) -> None:
    log = AuditLog()
    redeem(log)
    log.record(
        profile="acme-sandbox",
        environment="sandbox",
        action=TEST_ORDER,
        subject="REQ-1",
        outcome="placed",
        detail="product 7, value 10.00",
    )

    assert log.path == data_dir / "audit.jsonl"
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600
    lines = log.path.read_text().splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert first["action"] == "redeem" and first["wallet"] == "PayPal"
    assert first["time"].endswith("+00:00")
    assert "detail" not in first  # absent optional fields are not written as null


def test_entries_newest_first_filtered_by_text_and_action() -> None:
    log = AuditLog()
    redeem(log, outcome="failed: Weblink is disabled")
    log.record(profile="acme-sandbox", environment="sandbox", action=TEST_ORDER, subject="REQ-42", outcome="placed")
    log.record(profile="acme-sandbox", environment="sandbox", action=CARD_REVEAL, subject="REQ-42", outcome="revealed")

    assert [e.action for e in log.entries()] == ["card-reveal", "new-order", "redeem"]
    assert [e.action for e in log.entries(filter_text="req-42")] == ["card-reveal", "new-order"]
    assert [e.action for e in log.entries(filter_text="DISABLED")] == ["redeem"]
    assert [e.subject for e in log.entries(action=TEST_ORDER)] == ["REQ-42"]
    assert log.entries(filter_text="nothing like this") == []


def test_a_torn_line_is_skipped_and_later_lines_stay_whole() -> None:
    log = AuditLog()
    redeem(log, outcome="first")
    with log.path.open("ab") as file:  # a crash in the middle of a write
        file.write(b'{"time": "2025-01-01T00:00:00+00:00", "profile": "acme-pr')
    redeem(log, outcome="after the crash")

    assert [e.outcome for e in log.entries()] == ["after the crash", "first"]


def test_garbage_and_incomplete_lines_are_skipped() -> None:
    log = AuditLog()
    log.path.parent.mkdir(parents=True)
    log.path.write_bytes(b'not json\n[1, 2]\n{"action": "redeem"}\n\n\xff\xfe\n')
    redeem(log, outcome="ok")
    assert [e.outcome for e in log.entries()] == ["ok"]


def test_the_audit_log_masks_what_the_caller_forgot(data_dir: Path) -> None:
    register_secret("client-secret-value-123")
    log = AuditLog()
    log.record(
        profile="acme-prod",
        environment="production",
        action=REDEEM,
        subject="https://pay.example.com/payout/AbCdEfGhIjKlMnOp%3D",
        outcome="failed",
        wallet="Venmo",
        recipient="+15551234567",
        detail="sent to alice@example.com with client-secret-value-123",
    )
    log.record(
        profile="p",
        environment="sandbox",
        action=REDEEM,
        subject="s",
        outcome="ok",
        wallet="Venmo",
        recipient="@alice_handle",
    )

    written = log.path.read_text()
    for clear in ("AbCdEfGhIjKlMnOp", "15551234567", "alice@example.com", "client-secret-value-123", "alice_handle"):
        assert clear not in written
    assert log.entries()[1].recipient.startswith("+****")


# --- recent orders ------------------------------------------------------------------------------


def test_recent_orders_newest_first_and_a_second_look_moves_to_top(data_dir: Path) -> None:
    recent = RecentOrders()
    recent.record("acme", "REQ-1", "Pending")
    recent.record("acme", "REQ-2", "Succeeded")
    recent.record("acme", "REQ-1", "Failed")

    orders = recent.entries("acme")
    assert [(o.request_id, o.status) for o in orders] == [("REQ-1", "Failed"), ("REQ-2", "Succeeded")]
    assert recent.path == data_dir / "recent_orders.json"
    assert stat.S_IMODE(recent.path.stat().st_mode) == 0o600
    assert sorted(p.name for p in data_dir.iterdir()) == ["recent_orders.json"]  # no temp files


def test_recent_orders_keep_the_last_50_per_profile() -> None:
    recent = RecentOrders()
    for number in range(60):
        recent.record("acme", f"REQ-{number}", "Succeeded")
    recent.record("other", "REQ-X", None)

    orders = RecentOrders().entries("acme")  # a fresh instance: it survives a restart
    assert len(orders) == 50
    assert orders[0].request_id == "REQ-59" and orders[-1].request_id == "REQ-10"
    assert [o.request_id for o in RecentOrders().entries("other")] == ["REQ-X"]
    assert RecentOrders().entries("nobody") == []


def test_a_corrupt_recent_orders_file_starts_afresh(data_dir: Path) -> None:
    data_dir.mkdir()
    (data_dir / "recent_orders.json").write_text("{not json")
    recent = RecentOrders()
    assert recent.entries("acme") == []
    recent.record("acme", "REQ-1", "Pending")
    assert [o.request_id for o in recent.entries("acme")] == ["REQ-1"]


# --- chosen accounts -------------------------------------------------------------------------------


def test_chosen_account_survives_a_restart_in_the_same_environment(data_dir: Path) -> None:
    ChosenAccounts().set("acme", "sandbox", 1001)
    assert ChosenAccounts().get("acme", "sandbox") == 1001
    assert ChosenAccounts().get("other", "sandbox") is None
    assert stat.S_IMODE((data_dir / "chosen_accounts.json").stat().st_mode) == 0o600


def test_chosen_account_is_never_carried_across_environments() -> None:
    accounts = ChosenAccounts()
    accounts.set("acme", "sandbox", 1001)
    assert accounts.get("acme", "production") is None

    accounts.set("acme", "production", 2002)
    assert accounts.get("acme", "sandbox") is None
    assert accounts.get("acme", "production") == 2002


def test_clearing_a_chosen_account() -> None:
    accounts = ChosenAccounts()
    accounts.set("acme", "sandbox", 1001)
    accounts.clear("acme")
    accounts.clear("never-set")
    assert accounts.get("acme", "sandbox") is None
