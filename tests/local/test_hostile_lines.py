"""A hostile line in giftdesk's own files (issue 24 item 7): `[` x 100,000 in the audit log is a
line that cannot be read, like a torn one, never a RecursionError: the other entries stay shown."""

from __future__ import annotations

from click.testing import CliRunner

from tui.cli import main
from tui.local.storage import AuditLog

DEEP = b"[" * 100_000


def test_a_deep_line_in_the_audit_log_leaves_the_other_entries(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    log.record(profile="p", environment="sandbox", action="redeem", subject="first", outcome="done")
    with log.path.open("ab") as file:
        file.write(DEEP + b"\n")
    log.record(profile="p", environment="sandbox", action="redeem", subject="second", outcome="done")
    assert [entry.subject for entry in log.entries()] == ["second", "first"]
    assert log.first_break()[0] == 3  # read through: the deep line is a link that is not there


def test_audit_verify_says_what_it_found_without_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("GIFTDESK_DATA_DIR", str(tmp_path))
    log = AuditLog()
    log.record(profile="p", environment="sandbox", action="redeem", subject="first", outcome="done")
    with log.path.open("ab") as file:
        file.write(b"[" * 50_000 + b"]" * 50_000 + b"\n")
    result = CliRunner().invoke(main, ["audit", "verify"])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
