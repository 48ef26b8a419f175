"""A password in the base URL (`http://user:pass@host`) is never echoed: stderr, the debug log (issue 24 item 12)."""

from __future__ import annotations

import socket

from click.testing import CliRunner

from tui.api.redact import mask_text
from tui.cli import main

PASSWORD = "hunter2-in-the-url"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_password_in_the_base_url_is_not_echoed(monkeypatch, tmp_path):
    monkeypatch.setenv("GIFTDESK_BASE_URL", f"http://ops:{PASSWORD}@127.0.0.1:{closed_port()}")
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", "client")
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", "client-secret-value")
    monkeypatch.setenv("GIFTDESK_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("GIFTDESK_COMMAND_DEADLINE", "2")
    for args in (["accounts", "--debug"], ["profiles", "show"], ["profiles", "list"]):
        result = CliRunner().invoke(main, args)
        assert PASSWORD not in result.output, f"{args}: {result.output}"
    logs = "".join(path.read_text() for path in (tmp_path / "logs").rglob("*") if path.is_file())
    assert logs and PASSWORD not in logs


def test_mask_text_masks_a_url_password_only():
    assert mask_text(f"at http://ops:{PASSWORD}@example.com:8080/x") == "at http://ops:****@example.com:8080/x"
    assert mask_text("at http://example.com:8080/x") == "at http://example.com:8080/x"
